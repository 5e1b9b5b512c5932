"""Tests of the optimizer scenario builder: the project's own scenario files, building, validation.

The scenario files under ``tests/data/scenarios`` were written for this project (see the README
there); scenarios with year-long series are built in this module from those files. The optional
conformance run on real scenarios published elsewhere lives in ``test_optimizer_corpus.py``.
"""

from __future__ import annotations

import json
import math
import pickle
import warnings
from pathlib import Path
from typing import Any, Callable

import pytest

from sunflux._errors import ParameterError
from sunflux.optimizer import (
    CHP,
    CST,
    PV,
    SECTION_CLASSES,
    SECTIONS,
    ASHPWaterHeater,
    ElectricLoad,
    ElectricStorage,
    ElectricTariff,
    ElectricUtility,
    ExistingBoiler,
    Financial,
    Meta,
    Problem,
    Scenario,
    Section,
    Settings,
    Site,
    SpaceHeatingLoad,
    UnknownFieldWarning,
    input_errors,
    validate_scenario_dict,
)
from sunflux.optimizer.jobs import OptimizerResult

SCENARIOS = Path(__file__).parent / "data" / "scenarios"
VALID_FILES = sorted(path.name for path in SCENARIOS.glob("valid_*.json"))
#: Each invalid file and exactly the (path, rule) problems it must give.
INVALID_FILES: dict[str, set[tuple[str, str]]] = {
    "invalid_boiler_over_max.json": {("Boiler.max_mmbtu_per_hour", "max")},
    "invalid_zero_annual_kwh.json": {("ElectricLoad.annual_kwh", "min")},
    "invalid_process_heat_limits.json": {
        ("ElectricLoad.annual_kwh", "min"),
        ("ExistingBoiler.max_thermal_factor_on_peak_load", "max"),
    },
    "invalid_outage_past_year_end.json": {("ElectricUtility.outage_durations", "time_step_bound")},
    "invalid_tariff_energy_rates_only.json": {("ElectricTariff", "input_set")},
    "invalid_many_problems.json": {
        ("user_uuid", "type"),
        ("Settings.time_steps_per_hour", "choices"),
        ("Site.latitude", "type"),
        ("ElectricLoad.doe_reference_name", "choices"),
        ("ElectricTariff", "input_set"),
        ("ElectricUtility.outage_end_time_step", "pair"),
        ("PV[1].name", "unique"),
        ("PV[1].tilt", "max"),
        ("ElectricStorage.min_kwh", "min_max"),
        ("Financial.analysis_years", "integer"),
        ("CHP.fuel_cost_per_mmbtu", "required"),
    },
}
#: Each file that is not a scenario and the hint the refusal must give.
NOT_SCENARIO_FILES = {
    "not_scenario_urdb_rate.json": "URDB rate",
    "results_response.json": "results response",
}
SPEC_SECTIONS = [
    "Meta", "Settings", "Financial", "ElectricLoad", "ElectricTariff", "ElectricUtility", "PV",
    "ElectricStorage", "ExistingChiller", "ExistingBoiler", "Boiler", "HotThermalStorage",
    "HighTempThermalStorage", "ColdThermalStorage", "SpaceHeatingLoad", "DomesticHotWaterLoad",
    "ProcessHeatLoad", "Site", "CHP", "ASHPSpaceHeater", "ASHPWaterHeater", "CST",
]
SERVICE_ONLY_SECTIONS = [
    "Generator", "Wind", "CoolingLoad", "AbsorptionChiller", "SteamTurbine", "GHP", "ElectricHeater",
]


def read(name: str) -> Any:
    return json.loads((SCENARIOS / name).read_text(encoding="utf-8"))


def with_kinds(value: Any) -> Any:
    """JSON normalisation that keeps key order and the int/float/bool kind of every number."""
    if isinstance(value, dict):
        return [(key, with_kinds(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [with_kinds(item) for item in value]
    return (type(value).__name__, value)


def from_dict_quietly(document: dict[str, Any]) -> Scenario:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownFieldWarning)
        return Scenario.from_dict(document)


def base_scenario() -> dict[str, Any]:
    return {
        "Site": {"latitude": 39.7407, "longitude": -105.1686},
        "ElectricLoad": {"doe_reference_name": "RetailStore", "annual_kwh": 1_000_000.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.12, "blended_annual_demand_rate": 15},
    }


def problems_at(scenario: dict[str, Any]) -> set[tuple[str, str]]:
    return {(problem.path, problem.rule) for problem in validate_scenario_dict(scenario)}


# ------------------------------------------------------------------------------------------------
# Year-long series, built here rather than stored


def daily_cycle(steps_per_hour: int, low: float, high: float, digits: int = 3) -> list[float]:
    """One value per time step of a year: ``low`` at night rising to ``high`` at 13:00."""
    values = []
    for step in range(8760 * steps_per_hour):
        hour = (step / steps_per_hour) % 24
        daylight = max(0.0, math.sin(math.pi * (hour - 6) / 14)) if 6 <= hour <= 20 else 0.0
        values.append(round(low + (high - low) * daylight, digits))
    return values


def production_factors(steps_per_hour: int) -> list[float | int]:
    """A PV production factor series whose night steps are the integer 0 (a mix of kinds)."""
    return [value if value > 0 else 0 for value in daily_cycle(steps_per_hour, 0.0, 0.82)]


def hourly_loads_and_production() -> dict[str, Any]:
    """Measured integer loads, critical loads and PV and wind production factors, hourly."""
    document = read("valid_wind_single_outage.json")
    document["ElectricLoad"] = {
        "loads_kw": [int(value) for value in daily_cycle(1, 35, 120, digits=0)],
        "year": 2019,
        "critical_loads_kw": daily_cycle(1, 10.0, 30.0),
    }
    document["PV"] = {"max_kw": 90, "production_factor_series": production_factors(1)}
    document["Wind"]["production_factor_series"] = [
        round(0.3 + 0.2 * math.cos(step / 500), 4) for step in range(8760)
    ]
    return document


def quarter_hourly_with_urdb_rate() -> dict[str, Any]:
    """Settings.time_steps_per_hour 4, 35,040-step series, an hourly URDB rate plus monthly rates."""
    document = {"Settings": {"time_steps_per_hour": 4}, **read("valid_urdb_rate.json")}
    document["ElectricLoad"] = {
        "loads_kw": daily_cycle(4, 18.0, 64.0),
        "critical_loads_kw": daily_cycle(4, 6.0, 12.0),
        "year": 2021,
    }
    document["PV"]["production_factor_series"] = production_factors(4)
    document["ElectricTariff"]["monthly_energy_rates"] = [0.01] * 6 + [0.015] * 6
    document["ElectricTariff"]["monthly_demand_rates"] = [0, 0, 0, 0, 0, 2.5, 2.5, 2.5, 2.5, 0, 0, 0]
    document["ElectricTariff"]["add_monthly_rates_to_urdb_rate"] = True
    return document


def hourly_prices_and_grid_series() -> dict[str, Any]:
    """A time-of-use price per step, grid emission and renewable-fraction series, a heating profile."""
    document = read("valid_minimal.json")
    document["ElectricTariff"] = {"tou_energy_rates_per_kwh": daily_cycle(1, 0.08, 0.31)}
    document["ElectricUtility"] = {
        "emissions_factor_series_lb_CO2_per_kwh": daily_cycle(1, 0.9, 0.55),
        "renewable_energy_fraction_series": daily_cycle(1, 0.2, 0.6),
    }
    document["SpaceHeatingLoad"] = {"fuel_loads_mmbtu_per_hour": daily_cycle(1, 0.4, 0.1)}
    document["ExistingBoiler"] = {"fuel_cost_per_mmbtu": 12.0}
    return document


def half_hourly_cooling() -> dict[str, Any]:
    """Settings.time_steps_per_hour 2 with 17,520-step electric and cooling loads."""
    document = read("valid_blended_federal.json")
    document["Settings"] = {"time_steps_per_hour": 2}
    document["ElectricLoad"] = {"loads_kw": daily_cycle(2, 300.0, 820.0), "year": 2022}
    document["SpaceHeatingLoad"] = {"fuel_loads_mmbtu_per_hour": daily_cycle(2, 1.2, 0.3)}
    document["DomesticHotWaterLoad"] = {"doe_reference_name": "LargeOffice"}
    document["CoolingLoad"] = {"thermal_loads_ton": daily_cycle(2, 20.0, 140.0)}
    return document


SERIES_SCENARIOS: dict[str, Callable[[], dict[str, Any]]] = {
    "hourly loads and production": hourly_loads_and_production,
    "quarter-hourly with urdb rate": quarter_hourly_with_urdb_rate,
    "hourly prices and grid series": hourly_prices_and_grid_series,
    "half-hourly cooling": half_hourly_cooling,
}


# ------------------------------------------------------------------------------------------------
# The project's scenario files


def test_every_scenario_file_is_classified_and_described() -> None:
    """A file added to tests/data/scenarios must be listed here and in its README."""
    on_disk = {path.name for path in SCENARIOS.glob("*.json")}
    assert on_disk == set(VALID_FILES) | set(INVALID_FILES) | set(NOT_SCENARIO_FILES)
    readme = (SCENARIOS / "README.md").read_text(encoding="utf-8")
    assert [name for name in sorted(on_disk) if f"`{name}`" not in readme] == []


@pytest.mark.parametrize("name", VALID_FILES)
def test_valid_scenarios_validate_and_round_trip(name: str) -> None:
    """Valid files give no problem and come back from to_json with order and kinds intact."""
    original = read(name)
    scenario = from_dict_quietly(original)
    assert scenario.validate() == []
    assert scenario.check() is scenario
    assert with_kinds(json.loads(scenario.to_json())) == with_kinds(original)
    assert with_kinds(json.loads(scenario.to_json(indent=None))) == with_kinds(original)


@pytest.mark.parametrize("build", [pytest.param(build, id=name)
                                   for name, build in SERIES_SCENARIOS.items()])
def test_year_long_series_validate_and_round_trip(build: Callable[[], dict[str, Any]]) -> None:
    """Series of every accepted length, mixed int/float items included, pass and survive to_json."""
    original = build()
    scenario = from_dict_quietly(original)
    assert scenario.validate() == []
    assert with_kinds(json.loads(scenario.to_json())) == with_kinds(original)


def test_series_keep_the_kind_of_each_item() -> None:
    """Integer loads stay integers, and a PV series mixing 0 and floats keeps both kinds."""
    scenario = from_dict_quietly(hourly_loads_and_production())
    exported = scenario.to_dict()
    assert {type(value) for value in exported["ElectricLoad"]["loads_kw"]} == {int}
    assert {type(value) for value in exported["PV"]["production_factor_series"]} == {int, float}
    quarter = from_dict_quietly(quarter_hourly_with_urdb_rate())
    assert quarter.electric_load is not None and len(quarter.electric_load.loads_kw or []) == 35040


def test_series_of_the_wrong_resolution_are_rejected() -> None:
    """The same quarter-hourly scenario without its Settings is an hourly one with wrong lengths."""
    document = quarter_hourly_with_urdb_rate()
    del document["Settings"]
    found = problems_at(document)
    assert found == {("ElectricLoad.loads_kw", "series_length"),
                     ("ElectricLoad.critical_loads_kw", "series_length"),
                     ("PV.production_factor_series", "series_length")}


def test_explicit_nulls_empties_and_number_kinds_survive() -> None:
    """null, [], [[]], "" and {} are kept apart from absent fields, and 5 stays apart from 5.0."""
    scenario = Scenario.from_json(SCENARIOS / "valid_every_section.json")
    assert scenario.financial is not None and scenario.financial.is_set("NOx_grid_cost_per_tonne")
    assert scenario.financial.NOx_grid_cost_per_tonne is None
    assert scenario.electric_load is not None and scenario.electric_load.is_set("loads_kw")
    assert scenario.user_uuid == "0b6d2f6e-4c1a-4a8e-9e3f-5d2c7a1b9e40"
    exported = scenario.to_dict()
    assert exported["Site"]["roof_squarefeet"] is None
    assert exported["ElectricLoad"]["loads_kw"] == []
    assert exported["ElectricTariff"]["coincident_peak_load_active_time_steps"] == [[]]
    assert exported["Meta"]["address"] == ""
    assert type(exported["ElectricLoad"]["annual_kwh"]) is int
    assert type(exported["PV"]["max_kw"]) is float and type(exported["PV"]["tilt"]) is int
    assert type(exported["Settings"]["run_bau"]) is bool
    assert list(exported)[:3] == ["user_uuid", "webtool_uuid", "Meta"]
    assert from_dict_quietly(read("valid_blended_federal.json")).to_dict()["SpaceHeatingLoad"] == {}


def test_fixtures_cover_every_section_field_type_and_value_form() -> None:
    """The valid files and built scenarios together use all 29 sections and every field type."""
    documents = [read(name) for name in VALID_FILES]
    documents += [build() for build in SERIES_SCENARIOS.values()]
    sections: set[str] = set()
    types: set[str] = set()
    forms: set[str] = set()
    for document in documents:
        for key, value in document.items():
            if key not in SECTIONS:
                forms.add(key if key in ("user_uuid", "webtool_uuid") else "unknown top-level key")
                continue
            sections.add(key)
            if isinstance(value, list):
                forms.add("section list")
            for item in value if isinstance(value, list) else [value]:
                if not item:
                    forms.add("empty section")
                for name, field_value in item.items():
                    record = SECTIONS[key]["fields"].get(name)
                    if record is None:
                        forms.add("unknown field")
                        continue
                    types.add(record["type"])
                    forms.add(value_form(record["type"], field_value))
    assert sections == set(SECTIONS) and len(sections) == 29
    assert types == {record["type"] for section in SECTIONS.values()
                     for record in section["fields"].values()}
    assert forms >= {
        "null", "empty list", "empty string", "int for float", "float", "int", "bool", "str",
        "scalar for list", "list", "object", "empty section", "section list", "unknown field",
        "unknown top-level key", "user_uuid", "webtool_uuid",
    }


def value_form(field_type: str, value: Any) -> str:
    if value is None:
        return "null"
    if value == [] or value == [[]]:
        return "empty list"
    if value == "":
        return "empty string"
    if field_type.startswith("list"):
        return "list" if isinstance(value, list) else "scalar for list"
    if field_type == "float" and type(value) is int:
        return "int for float"
    return {"float": "float", "int": "int", "bool": "bool", "str": "str", "object": "object"}[field_type]


@pytest.mark.parametrize("name", sorted(INVALID_FILES))
def test_invalid_scenarios_give_exactly_their_problems(name: str) -> None:
    """Each invalid file gives exactly the listed problems, and check() raises with all of them."""
    scenario = from_dict_quietly(read(name))
    problems = scenario.validate()
    assert {(problem.path, problem.rule) for problem in problems} == INVALID_FILES[name]
    assert len(problems) == len(INVALID_FILES[name])
    # The section each problem belongs to: the path up to its first dot or bracket; a top-level
    # string such as user_uuid belongs to no section, and input_errors files it under "Scenario".
    sections = {path.split(".")[0].split("[")[0] for path, _ in INVALID_FILES[name]}
    assert {problem.section for problem in problems} == {
        "" if section == "user_uuid" else section for section in sections}
    assert set(input_errors(problems)) == {
        "Scenario" if section == "user_uuid" else section for section in sections}
    with pytest.raises(ParameterError) as raised:
        scenario.check()
    assert list(raised.value.errors) == problems


def test_problem_messages_follow_the_service_wording() -> None:
    """The range messages read as the live service's, limit included."""
    [boiler] = from_dict_quietly(read("invalid_boiler_over_max.json")).validate()
    assert boiler.message == "Ensure this value is less than or equal to 100000000.0."
    assert boiler.value == 250_000_000.0
    [load] = from_dict_quietly(read("invalid_zero_annual_kwh.json")).validate()
    assert load.message == "Ensure this value is greater than or equal to 1."
    [tariff] = from_dict_quietly(read("invalid_tariff_energy_rates_only.json")).validate()
    assert tariff.message.startswith(
        "Must provide at least one set of valid inputs from [['urdb_response'],")


@pytest.mark.parametrize("name", sorted(NOT_SCENARIO_FILES))
def test_files_that_are_not_scenarios_are_refused(name: str) -> None:
    """A URDB rate or a results response is refused with a hint of what it is."""
    with pytest.raises(ParameterError, match="not an optimizer scenario") as raised:
        Scenario.from_json(SCENARIOS / name)
    assert NOT_SCENARIO_FILES[name] in str(raised.value)
    [problem] = validate_scenario_dict(read(name))
    assert problem.rule == "not_a_scenario" and NOT_SCENARIO_FILES[name] in problem.message


def test_a_urdb_rate_file_fits_under_urdb_response() -> None:
    """The refused rate is what ElectricTariff.urdb_response takes, and then it validates."""
    rate = read("not_scenario_urdb_rate.json")
    scenario = Scenario.from_dict({**base_scenario(), "ElectricTariff": {"urdb_response": rate}})
    assert scenario.validate() == []
    broken = json.loads(json.dumps(rate))
    broken["energyweekdayschedule"][6][12] = 2
    assert problems_at({**base_scenario(), "ElectricTariff": {"urdb_response": broken}}) == {
        ("ElectricTariff.urdb_response", "urdb")}


def test_unknown_fields_are_kept_and_warned_about() -> None:
    """Fields the table does not know are warned about once, kept, and written back."""
    with pytest.warns(UnknownFieldWarning, match=r"2 key\(s\).*Site\.node.*ElectricLoad\.city"):
        scenario = Scenario.from_json(SCENARIOS / "valid_off_grid.json")
    assert scenario.site is not None and scenario.site.extra == {"node": 7}
    assert scenario.electric_load is not None and scenario.electric_load.extra == {"city": "Fairbanks"}
    assert scenario.to_dict()["ElectricLoad"]["city"] == "Fairbanks"
    assert scenario.validate() == []
    with pytest.warns(UnknownFieldWarning, match=r"CST\.SSC_Inputs"):
        thermal = Scenario.from_json(SCENARIOS / "valid_process_heat_cst.json")
    assert thermal.cst is not None
    assert thermal.cst.extra == {"SSC_Inputs": {"receiver": "trough", "design_dni_w_per_m2": 950}}


def test_unknown_top_level_keys_are_kept() -> None:
    """Top-level keys that are not sections stay, in place, and are warned about."""
    with pytest.warns(UnknownFieldWarning,
                      match=r"APIMeta.*PV\.installed_cost_us_dollars_per_kw.*Storage"):
        scenario = Scenario.from_json(SCENARIOS / "valid_legacy_extras.json")
    assert scenario.extra == {"APIMeta": {}, "Storage": {"max_kw": 50, "max_kwh": 200}}
    assert list(scenario.to_dict()) == list(read("valid_legacy_extras.json"))
    assert scenario["Storage"] == {"max_kw": 50, "max_kwh": 200}


def test_results_response_inputs_are_a_valid_scenario() -> None:
    """The scenario a results response ran, under 'inputs', loads and validates."""
    response = read("results_response.json")
    with pytest.warns(UnknownFieldWarning, match=r"ElectricUtility\.emissions_region"):
        scenario = Scenario.from_dict(response["inputs"])
    assert scenario.validate() == []
    assert with_kinds(scenario.to_dict()) == with_kinds(response["inputs"])
    result = OptimizerResult(response)
    assert result.optimal and result.run_uuid == response["run_uuid"]
    assert result.inputs.ElectricLoad.annual_kwh == scenario["ElectricLoad"].annual_kwh == 1450000.0


def test_multiple_pv_arrays_load_as_a_list() -> None:
    """A PV list loads as named PV objects and is written back as a list."""
    scenario = Scenario.from_json(SCENARIOS / "valid_multiple_pv.json")
    assert isinstance(scenario.pv, list) and all(isinstance(array, PV) for array in scenario.pv)
    assert [array.name for array in scenario.pv] == ["carport", "roof_south", "field"]
    assert scenario.pv[2].existing_kw == 50 and scenario.pv[2].tilt is None
    assert [array["name"] for array in scenario.to_dict()["PV"]] == ["carport", "roof_south", "field"]


# ------------------------------------------------------------------------------------------------
# The section classes


def test_every_section_has_a_class() -> None:
    assert list(SECTION_CLASSES) == SPEC_SECTIONS + SERVICE_ONLY_SECTIONS
    for key, section_class in SECTION_CLASSES.items():
        assert section_class._key == key
        assert section_class.__doc__
        for name in SECTIONS[key]["fields"]:
            assert "Type: " in (vars(section_class)[name].__doc__ or "")


def test_no_field_hides_a_section_method() -> None:
    reserved = {name for name in dir(Section) if not name.startswith("_")}
    for key, section in SECTIONS.items():
        assert not reserved & set(section["fields"]), key


def test_field_info_carries_unit_default_range_and_choices() -> None:
    losses = PV.field_info("losses")
    assert (losses.unit, losses.default, losses.minimum, losses.maximum) == ("fraction", 0.14, 0, 0.99)
    assert PV.field_info("array_type").choices == (0, 1, 2, 3, 4)
    assert ElectricLoad.field_info("loads_kw").shape == "series"
    assert Site.field_info("latitude").required
    assert "max_kw" in ElectricStorage.fields()


def test_unset_fields_read_as_defaults_but_are_not_written() -> None:
    pv = PV(max_kw=100)
    assert pv.losses == 0.14
    assert pv.tilt is None
    assert not pv.is_set("losses")
    assert pv.to_dict() == {"max_kw": 100}
    assert pv.to_dict(include_defaults=True)["losses"] == 0.14
    del pv.max_kw
    assert pv.to_dict() == {}


def test_explicit_null_is_kept_apart_from_unset() -> None:
    financial = Financial(NOx_grid_cost_per_tonne=None)
    assert financial.to_dict() == {"NOx_grid_cost_per_tonne": None}
    assert financial.validate() == []


def test_misspelt_fields_are_refused_with_a_suggestion() -> None:
    pv = PV()
    with pytest.raises(AttributeError, match="did you mean 'losses'"):
        pv.lossess = 0.1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        PV(max_kwh=5)  # type: ignore[call-arg]


def test_sections_accept_numpy_polars_and_pandas_series() -> None:
    numpy = pytest.importorskip("numpy")
    polars = pytest.importorskip("polars")
    pandas = pytest.importorskip("pandas")
    load = ElectricLoad(loads_kw=numpy.full(8760, 2.5), year=numpy.int64(2017))
    assert load.loads_kw == [2.5] * 8760 and type(load.year) is int
    load.loads_kw = polars.Series([1] * 8760)
    assert load.loads_kw is not None and type(load.loads_kw[0]) is int
    load.critical_loads_kw = pandas.Series(numpy.linspace(0, 1, 8760))
    assert type(load.critical_loads_kw[1]) is float
    pv = PV(losses=numpy.float64(0.1), array_type=numpy.int8(0))
    assert type(pv.to_dict()["losses"]) is float and type(pv.to_dict()["array_type"]) is int
    json.dumps(load.to_dict())


def test_flat_load_helper() -> None:
    load = ElectricLoad.flat(annual_kwh=876_000)
    assert load.loads_kw == [100.0] * 8760 and load.year == 2017
    quarter_hourly = ElectricLoad.flat(annual_kwh=876_000, time_steps_per_hour=4, year=2021)
    assert quarter_hourly.loads_kw == [100.0] * 35040 and quarter_hourly.year == 2021
    with pytest.raises(ParameterError):
        ElectricLoad.flat(annual_kwh=1, time_steps_per_hour=3)
    with pytest.raises(ParameterError):
        ElectricLoad.flat(annual_kwh=-1)


def test_tariff_helpers() -> None:
    blended = ElectricTariff.blended(energy_rate=0.1, demand_rate=12)
    assert blended.to_dict() == {"blended_annual_energy_rate": 0.1, "blended_annual_demand_rate": 12}
    day = [0.1] * 16 + [0.3] * 5 + [0.1] * 3
    tou = ElectricTariff.tou(day)
    rates = tou.tou_energy_rates_per_kwh
    assert rates is not None and len(rates) == 8760 and rates[16] == 0.3 and rates[24 + 16] == 0.3
    half_hourly = ElectricTariff.tou(day, time_steps_per_hour=2).tou_energy_rates_per_kwh
    assert half_hourly is not None and len(half_hourly) == 17520 and half_hourly[33] == 0.3
    full = ElectricTariff.tou([0.2] * 8760)
    assert full.tou_energy_rates_per_kwh == [0.2] * 8760


# ------------------------------------------------------------------------------------------------
# Building scenarios


def example() -> Scenario:
    return (
        Scenario(site=Site(latitude=39.7407, longitude=-105.1686))
        .with_load(ElectricLoad.flat(annual_kwh=1_000_000))
        .with_tariff(ElectricTariff.tou([0.09] * 16 + [0.28] * 5 + [0.09] * 3))
        .with_pv(max_kw=500, array_type=0)
        .with_storage(max_kw=200, max_kwh=800)
    )


def test_fluent_building_gives_a_valid_scenario() -> None:
    scenario = example()
    assert scenario.validate() == []
    assert scenario.check() is scenario
    assert list(scenario.to_dict()) == ["Site", "ElectricLoad", "ElectricTariff", "PV",
                                        "ElectricStorage"]


def test_with_methods_return_new_scenarios() -> None:
    first = Scenario(site=Site(latitude=1, longitude=2))
    second = first.with_pv(max_kw=10)
    assert first.pv is None and isinstance(second.pv, PV)
    pv = PV(max_kw=5)
    third = second.with_pv(pv)
    pv.max_kw = 6
    assert isinstance(third.pv, PV) and third.pv.max_kw == 5
    several = first.with_pv(PV(name="east", azimuth=90), PV(name="west", azimuth=270))
    assert isinstance(several.pv, list) and len(several.pv) == 2
    assert several.with_settings(time_steps_per_hour=2).settings == Settings(time_steps_per_hour=2)
    with pytest.raises(TypeError):
        first.with_storage(ElectricStorage(), max_kw=1)


def test_plain_attribute_setting() -> None:
    scenario = Scenario()
    scenario.site = Site(latitude=10.0, longitude=20.0)
    scenario.electric_load = ElectricLoad(doe_reference_name="Hospital")
    scenario.electric_tariff = ElectricTariff(urdb_label="5ed6c1a15457a3367add15ae")
    scenario.meta = Meta(description="a test")
    assert scenario.validate() == []
    scenario.meta = None
    assert "Meta" not in scenario.to_dict()
    with pytest.raises(TypeError):
        scenario.site = PV()  # type: ignore[assignment]
    with pytest.raises(AttributeError, match="electric_storage"):
        scenario.electric_storag = ElectricStorage()  # type: ignore[attr-defined]


def test_assigning_a_dict_builds_the_section() -> None:
    scenario = Scenario()
    with pytest.warns(UnknownFieldWarning, match="Site.node"):
        scenario.site = {"latitude": 1.0, "longitude": 2.0, "node": 3}  # type: ignore[assignment]
    assert isinstance(scenario.site, Site) and scenario.site.extra == {"node": 3}


def test_round_trip_keeps_nulls_order_and_number_kinds(tmp_path: Path) -> None:
    document = {
        "Settings": {"time_steps_per_hour": 1, "run_bau": None},
        "Site": {"longitude": -105, "latitude": 39.5, "roof_squarefeet": None},
        "ElectricLoad": {"doe_reference_name": "Hospital", "annual_kwh": 1000000},
        "ElectricTariff": {"urdb_label": "abc", "wholesale_rate": 0.04},
        "ExistingBoiler": {"fuel_cost_per_mmbtu": 10},
        "SpaceHeatingLoad": {},
        "user_uuid": "not-a-uuid",
    }
    scenario = Scenario.from_dict(document)
    assert scenario.validate() == []
    assert with_kinds(scenario.to_dict()) == with_kinds(document)
    assert list(scenario.to_dict()["Site"]) == ["longitude", "latitude", "roof_squarefeet"]
    target = tmp_path / "scenario.json"
    scenario.to_json(target)
    assert Scenario.from_json(target) == scenario
    assert Scenario.from_json(target.read_bytes()) == scenario
    with target.open() as handle:
        assert Scenario.from_json(handle) == scenario
    assert pickle.loads(pickle.dumps(scenario)) == scenario


def test_from_dict_copies_its_input() -> None:
    document = base_scenario()
    scenario = Scenario.from_dict(document)
    document["Site"]["latitude"] = 0.0
    assert scenario.site is not None and scenario.site.latitude == 39.7407
    exported = scenario.to_dict()
    exported["Site"]["latitude"] = 1.0
    assert scenario.site.latitude == 39.7407


def test_include_defaults_fills_present_sections_only() -> None:
    full = Scenario.from_dict(base_scenario()).to_dict(include_defaults=True)
    assert full["Site"]["sector"] == "commercial/industrial"
    assert full["ElectricLoad"]["critical_load_fraction"] == 0.5
    assert "Settings" not in full


def test_structural_problems_are_refused() -> None:
    with pytest.raises(ParameterError, match="must be an object"):
        Scenario.from_dict({"Site": 3, "ElectricLoad": {}})
    with pytest.raises(ParameterError, match="JSON object"):
        Scenario.from_dict([1, 2])  # type: ignore[arg-type]
    with pytest.raises(ParameterError, match="Not valid JSON"):
        Scenario.from_json("{not json")


def test_nan_cannot_be_exported() -> None:
    scenario = Scenario.from_dict(base_scenario())
    scenario.pv = PV(max_kw=math.nan)
    with pytest.raises(ParameterError, match=r"PV\.max_kw"):
        scenario.to_json()


def test_diff_reports_changed_added_and_removed_fields() -> None:
    left = example()
    right = left.copy()
    assert left.diff(right) == [] and left == right
    assert isinstance(right.pv, PV) and right.electric_load is not None
    right.pv.max_kw = 600
    right.pv.tilt = 20
    right.electric_storage = None
    loads = list(right.electric_load.loads_kw or [])
    loads[5] = 0.0
    right.electric_load.loads_kw = loads
    differences = {difference.path: difference for difference in left.diff(right)}
    assert set(differences) == {"PV.max_kw", "PV.tilt", "ElectricStorage",
                                "ElectricLoad.loads_kw"}
    assert "1 of 8760 values differ, first at index 5" in str(differences["ElectricLoad.loads_kw"])
    assert str(differences["PV.tilt"]) == "PV.tilt: (unset) -> 20"
    same_value_other_kind = left.copy()
    assert isinstance(same_value_other_kind.pv, PV)
    same_value_other_kind.pv.max_kw = 500.0
    assert left.diff(same_value_other_kind) == []


def test_repr_and_html_show_only_what_was_set() -> None:
    scenario = example()
    text = repr(scenario)
    assert text.startswith("Scenario(site=Site(latitude=39.7407, longitude=-105.1686)")
    assert "loads_kw=<8760 values, 114.155..114.155>" in text
    assert "losses" not in text
    page = scenario._repr_html_()
    assert "<table>" in page and "max_kwh" in page and "losses" not in page
    assert "kWh" in page


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
