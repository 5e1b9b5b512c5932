"""The optimizer scenario builder on the project's own scenario files (``tests/data/scenarios``,
written for this project; see the README there) and on scenarios with year-long series built
here from those files: every file classified, valid files validate and round-trip with their
number kinds, invalid files give exactly their problems, files that are not scenarios are refused.
The optional conformance run on real scenarios published elsewhere lives in
``test_optimizer_corpus.py``."""

from __future__ import annotations

import json
import math
from typing import Any, Callable

import pytest

from sunflux._errors import ParameterError
from sunflux.optimizer import (
    PV,
    SECTIONS,
    Scenario,
    UnknownFieldWarning,
    input_errors,
    validate_scenario_dict,
)
from sunflux.optimizer.jobs import OptimizerResult
from support.paths import SCENARIOS
from support.scenario_files import base_scenario, from_dict_quietly, INVALID_FILES, NOT_SCENARIO_FILES, problems_at, read, VALID_FILES, with_kinds


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
