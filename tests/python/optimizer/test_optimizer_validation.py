"""The optimizer scenario builder's validation: the service's rules case by case, every problem
reported at once with the service's wording, sections validated on their own, boolean fields as
the service takes them, and the unit warnings with their fix."""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

from sunflux._errors import ParameterError
from sunflux.optimizer import (
    CHP,
    CST,
    PV,
    ASHPWaterHeater,
    ElectricLoad,
    ElectricStorage,
    ElectricTariff,
    ElectricUtility,
    ExistingBoiler,
    Problem,
    Scenario,
    SpaceHeatingLoad,
    UnknownFieldWarning,
    input_errors,
    validate_scenario_dict,
)
from support.scenario_files import base_scenario, problems_at


# ------------------------------------------------------------------------------------------------
# Validation rules


def test_base_scenario_is_valid() -> None:
    assert validate_scenario_dict(base_scenario()) == []


def test_array_names_of_the_wrong_type_are_type_problems_not_crashes() -> None:
    """Found by the long fuzz run: a dict as a PV array's name raised TypeError (unhashable)."""
    scenario = base_scenario()
    scenario["PV"] = [{"name": {"a": 1}}, {"name": ["b"]}, {"name": "roof"}]
    problems = validate_scenario_dict(scenario)
    assert {(problem.path, problem.rule) for problem in problems} >= {("PV[0].name", "type"), ("PV[1].name", "type")}


def mutated(**changes: Any) -> dict[str, Any]:
    """The base scenario with sections replaced (None removes a section)."""
    scenario = base_scenario()
    for key, value in changes.items():
        if value is None:
            scenario.pop(key, None)
        else:
            scenario[key] = value
    return scenario


RULE_CASES = [
    ("lat required", mutated(Site={"longitude": 1.0}), ("Site.latitude", "required")),
    ("lat null", mutated(Site={"latitude": None, "longitude": 1.0}), ("Site.latitude", "required")),
    ("missing load", mutated(ElectricLoad=None), ("ElectricLoad", "required")),
    ("missing tariff", mutated(ElectricTariff=None), ("ElectricTariff", "required")),
    ("range", mutated(Site={"latitude": 91, "longitude": 1}), ("Site.latitude", "max")),
    ("choices", mutated(PV={"array_type": 7}), ("PV.array_type", "choices")),
    ("integer", mutated(Financial={"analysis_years": 2.5}), ("Financial.analysis_years", "integer")),
    ("type", mutated(PV={"max_kw": "big"}), ("PV.max_kw", "type")),
    ("bool type", mutated(PV={"can_curtail": 2}), ("PV.can_curtail", "type")),
    ("null", mutated(PV={"losses": None}), ("PV.losses", "null")),
    ("not finite", mutated(PV={"max_kw": math.inf}), ("PV.max_kw", "finite")),
    ("load set", mutated(ElectricLoad={"annual_kwh": 5.0}), ("ElectricLoad", "input_set")),
    ("tariff pair", mutated(ElectricTariff={"monthly_energy_rates": [0.1] * 12}),
     ("ElectricTariff", "input_set")),
    ("series length", mutated(ElectricLoad={"loads_kw": [1.0] * 100, "year": 2017}),
     ("ElectricLoad.loads_kw", "series_length")),
    ("series vs steps", mutated(Settings={"time_steps_per_hour": 2},
                                ElectricLoad={"loads_kw": [1.0] * 8760, "year": 2017}),
     ("ElectricLoad.loads_kw", "series_length")),
    ("series items", mutated(ElectricLoad={"loads_kw": [1.0] * 8759 + [-1.0], "year": 2017}),
     ("ElectricLoad.loads_kw", "min")),
    ("year with loads", mutated(ElectricLoad={"loads_kw": [1.0] * 8760}),
     ("ElectricLoad.year", "required")),
    ("monthly", mutated(ElectricLoad={"doe_reference_name": "Hospital",
                                      "monthly_totals_kwh": [1.0] * 11}),
     ("ElectricLoad.monthly_totals_kwh", "length")),
    ("up to 12", mutated(ElectricTariff={"monthly_energy_rates": [0.1] * 13,
                                         "monthly_demand_rates": [1.0] * 12}),
     ("ElectricTariff.monthly_energy_rates", "length")),
    ("tou per step", mutated(ElectricTariff={"tou_energy_rates_per_kwh": [0.1] * 17520}),
     ("ElectricTariff.tou_energy_rates_per_kwh", "series_length")),
    ("scalar or series", mutated(ElectricTariff={"urdb_label": "x", "wholesale_rate": [0.1] * 12}),
     ("ElectricTariff.wholesale_rate", "series_length")),
    ("blend sum", mutated(ElectricLoad={"blended_doe_reference_names": ["Hospital", "LargeOffice"],
                                        "blended_doe_reference_percents": [0.5, 0.6]}),
     ("ElectricLoad.blended_doe_reference_percents", "sum")),
    ("blend lengths", mutated(ElectricLoad={"blended_doe_reference_names": ["Hospital"],
                                            "blended_doe_reference_percents": [0.5, 0.5]}),
     ("ElectricLoad.blended_doe_reference_names", "matching_length")),
    ("blend names", mutated(ElectricLoad={"blended_doe_reference_names": ["Hospital", "Zoo"],
                                          "blended_doe_reference_percents": [0.5, 0.5]}),
     ("ElectricLoad.blended_doe_reference_names", "choices")),
    ("outage order", mutated(ElectricUtility={"outage_start_time_step": 20,
                                              "outage_end_time_step": 10}),
     ("ElectricUtility.outage_end_time_step", "order")),
    ("outage pair", mutated(ElectricUtility={"outage_start_time_step": 20}),
     ("ElectricUtility.outage_end_time_step", "pair")),
    ("outage bound", mutated(ElectricUtility={"outage_start_time_step": 1,
                                              "outage_end_time_step": 9000}),
     ("ElectricUtility.outage_end_time_step", "time_step_bound")),
    ("outage wrap", mutated(ElectricUtility={"outage_start_time_steps": [8758],
                                             "outage_durations": [5]}),
     ("ElectricUtility.outage_durations", "time_step_bound")),
    ("probability length", mutated(ElectricUtility={"outage_start_time_steps": [10],
                                                    "outage_durations": [5, 6],
                                                    "outage_probabilities": [1.0]}),
     ("ElectricUtility.outage_probabilities", "matching_length")),
    ("probability sum", mutated(ElectricUtility={"outage_start_time_steps": [10],
                                                 "outage_durations": [5, 6],
                                                 "outage_probabilities": [0.5, 0.4]}),
     ("ElectricUtility.outage_probabilities", "sum")),
    ("outage modes", mutated(ElectricUtility={"outage_start_time_step": 1,
                                              "outage_end_time_step": 5,
                                              "outage_start_time_steps": [10],
                                              "outage_durations": [5]}),
     ("ElectricUtility.outage_start_time_steps", "exclusive")),
    ("resilience", mutated(Site={"latitude": 1, "longitude": 1, "min_resil_time_steps": 10},
                           ElectricUtility={"outage_start_time_steps": [10],
                                            "outage_durations": [5]}),
     ("Site.min_resil_time_steps", "cross_section")),
    ("coincident peak", mutated(ElectricTariff={"urdb_label": "x",
                                                "coincident_peak_load_active_time_steps": [[1, 2]],
                                                "coincident_peak_load_charge_per_kw": [1, 2]}),
     ("ElectricTariff.coincident_peak_load_charge_per_kw", "matching_length")),
    ("coincident steps", mutated(ElectricTariff={"urdb_label": "x",
                                                 "coincident_peak_load_active_time_steps": [[9000]],
                                                 "coincident_peak_load_charge_per_kw": [1]}),
     ("ElectricTariff.coincident_peak_load_active_time_steps", "time_step_bound")),
    ("off-grid section", mutated(Settings={"off_grid_flag": True}, CHP={"fuel_cost_per_mmbtu": 1}),
     ("CHP", "off_grid")),
    ("off-grid export", mutated(Settings={"off_grid_flag": True}, PV={"can_net_meter": True}),
     ("PV.can_net_meter", "off_grid")),
    ("on-grid reserve", mutated(ElectricLoad={"doe_reference_name": "Hospital",
                                              "operating_reserve_required_fraction": 0.1}),
     ("ElectricLoad.operating_reserve_required_fraction", "off_grid")),
    ("fuel price", mutated(ExistingBoiler={"efficiency": 0.8}),
     ("ExistingBoiler.fuel_cost_per_mmbtu", "required")),
    ("heating needs boiler", mutated(SpaceHeatingLoad={"annual_mmbtu": 100.0}),
     ("ExistingBoiler", "cross_section")),
    ("heating inherits", mutated(ElectricLoad={"loads_kw": [1.0] * 8760, "year": 2017},
                                 SpaceHeatingLoad={}, ExistingBoiler={"fuel_cost_per_mmbtu": 9}),
     ("SpaceHeatingLoad.doe_reference_name", "cross_section")),
    ("cst land", mutated(CST={}, ProcessHeatLoad={"industrial_reference_name": "Chemical"},
                         ExistingBoiler={"fuel_cost_per_mmbtu": 9}),
     ("Site.land_acres", "cross_section")),
    ("bounds", mutated(ElectricStorage={"min_kwh": 10, "max_kwh": 5}),
     ("ElectricStorage.min_kwh", "min_max")),
    ("federal", mutated(Site={"latitude": 1, "longitude": 1, "sector": "federal"}),
     ("Site.federal_procurement_type", "required")),
    ("ashp", mutated(ASHPWaterHeater={"min_allowable_ton": 1,
                                      "min_allowable_peak_capacity_fraction": 0.5}),
     ("ASHPWaterHeater.min_allowable_ton", "exclusive")),
    ("ashp curves", mutated(ASHPWaterHeater={"heating_cop_reference": [1, 2],
                                             "heating_cf_reference": [1, 2],
                                             "heating_reference_temps_degF": [5]}),
     ("ASHPWaterHeater.heating_cop_reference", "matching_length")),
    ("pv list item", mutated(PV=[{"name": "a"}, {"name": "b", "tilt": 95}]), ("PV[1].tilt", "max")),
    ("pv list type", mutated(PV=[{"name": "a"}, 3]), ("PV[1]", "type")),
    ("pv names", mutated(PV=[{"max_kw": 5}, {"name": "PV"}]), ("PV[1].name", "unique")),
    ("section type", mutated(Settings=[1]), ("Settings", "type")),
    ("chp outages", mutated(CHP={"fuel_cost_per_mmbtu": 9, "unavailability_periods": [
        {"month": 13, "start_week_of_month": 1, "start_day_of_week": 1, "start_hour": 1,
         "duration_hours": 5}]}), ("CHP.unavailability_periods", "unavailability_period")),
    ("urdb steps", mutated(ElectricTariff={"urdb_response": {
        "energyweekdayschedule": [[0] * 96] * 12, "energyweekendschedule": [[0] * 96] * 12,
        "energyratestructure": [[{"rate": 0.1}]]}}), ("ElectricTariff.urdb_response", "urdb")),
    ("urdb periods", mutated(ElectricTariff={"urdb_response": {
        "energyweekdayschedule": [[1] * 24] * 12, "energyweekendschedule": [[0] * 24] * 12,
        "energyratestructure": [[{"rate": 0.1}]]}}), ("ElectricTariff.urdb_response", "urdb")),
    ("uuid type", mutated(user_uuid=5), ("user_uuid", "type")),
]


@pytest.mark.parametrize(("scenario", "expected"),
                         [pytest.param(s, e, id=name) for name, s, e in RULE_CASES])
def test_rules(scenario: dict[str, Any], expected: tuple[str, str]) -> None:
    assert expected in problems_at(scenario)


ACCEPTED_CASES = [
    ("scalar fuel price", mutated(ExistingBoiler={"fuel_cost_per_mmbtu": 10.5})),
    ("monthly fuel price", mutated(ExistingBoiler={"fuel_cost_per_mmbtu": [10.5] * 12})),
    ("scalar emissions", mutated(ElectricUtility={"emissions_factor_series_lb_NOx_per_kwh": 1})),
    ("off-grid without tariff", mutated(Settings={"off_grid_flag": True}, ElectricTariff=None)),
    ("quarter-hourly series", mutated(Settings={"time_steps_per_hour": 4},
                                      ElectricLoad={"loads_kw": [1] * 35040, "year": 2020})),
    ("empty heating load", mutated(SpaceHeatingLoad={},
                                   ExistingBoiler={"fuel_cost_per_mmbtu": 9})),
    ("no coincident peaks", mutated(ElectricTariff={"urdb_label": "x",
                                                    "coincident_peak_load_active_time_steps": [[]],
                                                    "coincident_peak_load_charge_per_kw": []})),
    ("blank strings", mutated(Site={"latitude": 1, "longitude": 2, "federal_sector_state": "",
                                    "federal_procurement_type": ""})),
    ("integral float for int", mutated(Financial={"analysis_years": 20.0})),
]


@pytest.mark.parametrize("scenario", [pytest.param(s, id=name) for name, s in ACCEPTED_CASES])
def test_accepted(scenario: dict[str, Any]) -> None:
    assert validate_scenario_dict(scenario) == []


def test_not_a_scenario() -> None:
    [problem] = validate_scenario_dict({"energyweekdayschedule": []})
    assert problem.rule == "not_a_scenario" and "URDB rate" in problem.message
    [problem] = validate_scenario_dict([])
    assert problem.rule == "type"


def test_every_problem_is_reported_at_once() -> None:
    scenario = mutated(
        Site={"latitude": 100, "longitude": -200},
        PV={"losses": 2, "array_type": 9},
        ElectricLoad={"loads_kw": [-1.0] * 10},
    )
    found = problems_at(scenario)
    assert {("Site.latitude", "max"), ("Site.longitude", "min"), ("PV.losses", "max"),
            ("PV.array_type", "choices"), ("ElectricLoad.loads_kw", "min"),
            ("ElectricLoad.loads_kw", "series_length"), ("ElectricLoad.year", "required")} <= found


def test_problem_fields_and_text() -> None:
    [problem] = validate_scenario_dict(mutated(PV={"tilt": 95}))
    assert isinstance(problem, Problem)
    assert (problem.section, problem.field, problem.path, problem.rule, problem.value) == (
        "PV", "tilt", "PV.tilt", "max", 95)
    assert str(problem) == "PV.tilt: Ensure this value is less than or equal to 90. (got 95)"
    assert problem.to_dict()["message"] == problem.message
    assert input_errors([problem]) == {"PV": {"tilt": [problem.message]}}


def test_item_problems_name_the_first_bad_item_and_count_the_rest() -> None:
    loads = [1.0] * 8760
    loads[3] = loads[7] = loads[9] = -2.0
    [problem] = validate_scenario_dict(mutated(ElectricLoad={"loads_kw": loads, "year": 2017}))
    assert problem.value == -2.0
    assert problem.message.startswith("Item 4 in the array did not validate")
    assert "2 more items" in problem.message


def test_check_raises_parameter_error_with_every_problem() -> None:
    import sunflux as sf

    with pytest.warns(sf.UnitWarning, match="3 looks like a percent"):
        scenario = Scenario.from_dict(mutated(PV={"tilt": 95, "losses": 3}))
    with pytest.raises(ParameterError) as raised:
        scenario.check()
    assert isinstance(raised.value, ValueError)
    assert [problem.path for problem in raised.value.errors] == ["PV.tilt", "PV.losses"]
    assert "2 problems" in str(raised.value)


def test_sections_validate_on_their_own() -> None:
    assert PV(tilt=100).validate()[0].path == "PV.tilt"
    assert ElectricLoad(loads_kw=[1.0] * 8760).validate(time_steps_per_hour=2)[0].rule == (
        "series_length")
    assert ElectricUtility(outage_start_time_step=5, outage_end_time_step=4).validate()[0].rule == (
        "order")
    assert CHP(fuel_cost_per_mmbtu=3.0).validate() == []
    assert CST().validate() == [] and ExistingBoiler().validate() == []
    assert SpaceHeatingLoad(blended_doe_reference_names=["Hospital"],
                            blended_doe_reference_percents=[0.9]).validate()[0].rule == "sum"
    assert ASHPWaterHeater(min_ton=1).validate() == []


def test_pv_losses_given_as_a_percent_warn_naming_the_fraction() -> None:
    import sunflux as sf
    from sunflux.optimizer import PV

    with pytest.warns(sf.UnitWarning, match=r"PV.losses is a fraction .*: 14 looks like a percent; for 14 % give 0.14") as caught:
        PV(losses=14)
    assert [w.filename for w in caught if w.category is sf.UnitWarning][0] == __file__
    pv = PV()
    with pytest.warns(sf.UnitWarning, match="20 looks like a percent"):
        pv.losses = 20
    with pytest.warns(sf.UnitWarning, match="14 looks like a percent"):
        Scenario.from_dict({"PV": {"losses": 14}})
    with warnings.catch_warnings():
        warnings.simplefilter("error", sf.UnitWarning)
        PV(losses=0.14)
        PV(losses=0)


TYPO_SCENARIO: dict[str, Any] = {
    "Site": {"latitude": 39.7, "longitude": -105.2},
    "PV": {"arrray_type": 1},
    "Pv": {},
    "ElectricLoad": {"annual_kwh": 10000, "doe_reference_name": "RetailStore"},
    "ElectricTariff": {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 0},
}


def test_unknown_field_warning_suggests_the_closest_field() -> None:
    with pytest.warns(UnknownFieldWarning) as caught:
        Scenario.from_dict(TYPO_SCENARIO)
    message = next(str(w.message) for w in caught if w.category is UnknownFieldWarning)
    assert "PV.arrray_type (did you mean 'PV.array_type'?)" in message
    assert "Pv (did you mean 'PV'?)" in message
    with pytest.warns(UnknownFieldWarning, match=r"PV\[0\].tilit \(did you mean 'PV\[0\].tilt'\?\)"):
        Scenario.from_dict({**TYPO_SCENARIO, "PV": [{"tilit": 20, "name": "roof"}]})


def test_strict_validation_reports_unknown_fields_as_problems() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownFieldWarning)
        scenario = Scenario.from_dict(TYPO_SCENARIO)
    assert scenario.validate() == []
    strict = scenario.validate(strict=True)
    assert [(p.path, p.rule) for p in strict] == [("PV.arrray_type", "unknown_field"), ("Pv", "unknown_field")]
    assert str(strict[0]) == "PV.arrray_type: not a known field; did you mean 'PV.array_type'? (got 1)"
    with pytest.raises(ParameterError, match="did you mean 'PV.array_type'"):
        scenario.check(strict=True)
    assert scenario.check() is scenario


@pytest.mark.parametrize("flag", [True, False, 1, 0, 1.0, 0.0, "t", "True", "1", "f", "False", "0"])
def test_a_boolean_field_takes_what_the_services_boolean_field_takes_and_keeps_it(flag: Any) -> None:
    document = {
        "Site": {"latitude": 39.74, "longitude": -105.17},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 876_000.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.15, "blended_annual_demand_rate": 12.0},
        "PV": {"can_net_meter": flag},
        "GHP": {"require_ghp_purchase": flag, "building_sqft": 10_000.0},
    }
    assert validate_scenario_dict(document) == []
    kept = Scenario.from_dict(document).to_dict()
    assert kept["PV"]["can_net_meter"] == flag and type(kept["GHP"]["require_ghp_purchase"]) is type(flag)


@pytest.mark.parametrize("flag", [2, -1, 0.5, "yes", "true", [True]])
def test_a_boolean_field_refuses_what_the_service_refuses(flag: Any) -> None:
    problems = validate_scenario_dict({"Site": {"latitude": 39.74, "longitude": -105.17}, "PV": {"can_net_meter": flag}})
    assert any(p.rule == "type" and "can_net_meter" in str(p.path) and "must be either True or False" in str(p) for p in problems), problems


def test_rates_loads_and_storage_costs_in_the_wrong_unit_warn_with_the_fix() -> None:
    import sunflux as sf

    with pytest.warns(sf.UnitWarning, match=r"ElectricTariff.tou_energy_rates_per_kwh is in \$/kWh: 28 \$/kWh .* ¢/kWh; for 28 ¢/kWh give 0.28") as caught:
        ElectricTariff.tou([0.12] * 8759 + [28.0])
    assert [w.filename for w in caught if w.category is sf.UnitWarning][0] == __file__
    with pytest.warns(sf.UnitWarning, match=r"ElectricTariff.blended_annual_energy_rate is in \$/kWh"):
        ElectricTariff(blended_annual_energy_rate=15, blended_annual_demand_rate=20)
    with pytest.warns(sf.UnitWarning, match=r"ElectricLoad.loads_kw is in kW: a peak of 91,324 kW is a 91.3 MW site"):
        ElectricLoad(loads_kw=[50_000.0] * 8759 + [91_324.0])
    with pytest.warns(sf.UnitWarning, match=r"ElectricStorage.installed_cost_per_kwh is in \$/kWh: 0.3 .* for 0.3 \$/Wh give 300"):
        Scenario.from_dict({"ElectricStorage": {"installed_cost_per_kwh": 0.3}})
    with warnings.catch_warnings():
        warnings.simplefilter("error", sf.UnitWarning)
        ElectricTariff.tou([0.28] * 8760)
        ElectricTariff(monthly_energy_rates=[2.5] * 12, monthly_demand_rates=[30.0] * 12)
        ElectricLoad(loads_kw=[91.324] * 8760, critical_loads_kw=[49_999.0] * 8760)
        ElectricStorage(installed_cost_per_kwh=0, replace_cost_per_kwh=250)
        ElectricStorage(installed_cost_per_kwh=5)
