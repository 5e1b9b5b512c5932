"""Property-based tests of the optimizer scenario builder (hypothesis).

Random valid scenarios, drawn from the field table itself, must validate cleanly and round-trip
through ``Scenario`` and JSON unchanged (int/float kinds included); random out-of-range values,
invalid choices and wrong series lengths must always be reported at the right path.
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.slow

from sunflux.optimizer import SECTIONS, Scenario, validate_scenario_dict  # noqa: E402
from sunflux.optimizer.validation import BOUND_PAIRS, ON_GRID_FIXED  # noqa: E402

SCALAR_TYPES = ("float", "int", "bool", "str")
# Sections drawn at random on top of the required ones (loads and tariffs have their own
# strategies; sections whose rules tie them to others are left out).
OPTIONAL_SECTIONS = [
    "Meta", "Financial", "PV", "ElectricStorage", "ElectricUtility", "Wind", "Generator",
    "ExistingChiller", "HotThermalStorage", "HighTempThermalStorage", "ColdThermalStorage",
    "AbsorptionChiller", "SteamTurbine", "ElectricHeater", "Boiler", "CHP",
]
# What a drawn section needs besides its random fields.
SECTION_NEEDS: dict[str, dict[str, Any]] = {
    "Boiler": {"fuel_cost_per_mmbtu": 8.5},
    "CHP": {"fuel_cost_per_mmbtu": [9] * 12},
}
# Fields that take part in rules spanning fields or sections; the strategies set them on purpose.
COUPLED_FIELDS = (
    {name for pair in BOUND_PAIRS for name in pair}
    | {name for _, name in ON_GRID_FIXED}
    | {"time_steps_per_hour", "off_grid_flag", "sector", "federal_sector_state",
       "federal_procurement_type", "min_resil_time_steps", "outage_start_time_step",
       "outage_end_time_step", "year", "annual_kwh", "doe_reference_name",
       "min_allowable_ton", "min_allowable_peak_capacity_fraction", "latitude", "longitude"}
)
DOE_NAMES = SECTIONS["ElectricLoad"]["fields"]["doe_reference_name"]["choices"]
PROPERTY_SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def independent_fields(key: str) -> dict[str, dict[str, Any]]:
    return {
        name: record
        for name, record in SECTIONS[key]["fields"].items()
        if record["type"] in SCALAR_TYPES and name not in COUPLED_FIELDS
    }


def value_strategy(record: dict[str, Any]) -> st.SearchStrategy[Any]:
    kind = record["type"]
    if "choices" in record:
        values: st.SearchStrategy[Any] = st.sampled_from(record["choices"])
    elif kind == "bool":
        values = st.booleans()
    elif kind == "str":
        values = st.text(max_size=12)
    else:
        low = record.get("min", -1e6)
        high = record.get("max", 1e6)
        integers = st.integers(math.ceil(low), math.floor(high))
        if kind == "int":
            values = integers
        else:
            floats = st.floats(low, high, allow_nan=False, allow_infinity=False)
            values = st.one_of(floats, integers) if math.ceil(low) <= math.floor(high) else floats
    return st.one_of(st.none(), values) if record["nullable"] else values


def random_fields(key: str) -> st.SearchStrategy[dict[str, Any]]:
    optional = {name: value_strategy(record) for name, record in independent_fields(key).items()}
    return st.fixed_dictionaries({}, optional=optional)


def numbers(low: float, high: float) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.floats(low, high, allow_nan=False, allow_infinity=False),
        st.integers(math.ceil(low), math.floor(high)),
    )


@st.composite
def electric_loads(draw: st.DrawFn, steps: int) -> dict[str, Any]:
    doe = st.sampled_from(DOE_NAMES)
    choice = draw(st.sampled_from(["doe", "annual", "monthly", "series", "blend"]))
    if choice == "doe":
        load = {"doe_reference_name": draw(doe)}
    elif choice == "annual":
        load = {"annual_kwh": draw(numbers(1, 1e10)), "doe_reference_name": draw(doe)}
    elif choice == "monthly":
        monthly = draw(st.lists(numbers(0, 1e9), min_size=12, max_size=12))
        load = {"doe_reference_name": draw(doe), "monthly_totals_kwh": monthly}
    elif choice == "series":
        load = {"loads_kw": [draw(numbers(0, 1e5))] * steps,
                "year": draw(st.integers(1, 9999))}
    else:
        names = draw(st.lists(doe, min_size=2, max_size=2, unique=True))
        share = draw(st.floats(0, 1))
        load = {"blended_doe_reference_names": names,
                "blended_doe_reference_percents": [share, 1 - share]}
    return {**draw(random_fields("ElectricLoad")), **load}


@st.composite
def tariffs(draw: st.DrawFn, steps: int) -> dict[str, Any]:
    rate = numbers(0, 10)
    choice = draw(st.sampled_from(["blended", "monthly", "tou", "label", "names"]))
    if choice == "blended":
        tariff = {"blended_annual_energy_rate": draw(rate),
                  "blended_annual_demand_rate": draw(rate)}
    elif choice == "monthly":
        tariff = {"monthly_energy_rates": draw(st.lists(rate, min_size=1, max_size=12)),
                  "monthly_demand_rates": draw(st.lists(rate, min_size=1, max_size=12))}
    elif choice == "tou":
        tariff = {"tou_energy_rates_per_kwh": [draw(rate)] * steps}
    elif choice == "label":
        tariff = {"urdb_label": draw(st.text(min_size=1, max_size=24))}
    else:
        tariff = {"urdb_utility_name": "Utility", "urdb_rate_name": "Rate"}
    if draw(st.booleans()):
        tariff["wholesale_rate"] = draw(st.one_of(rate, rate.map(lambda value: [value] * steps)))
    return {**draw(random_fields("ElectricTariff")), **tariff}


@st.composite
def valid_scenarios(draw: st.DrawFn) -> dict[str, Any]:
    steps_per_hour = draw(st.sampled_from([1, 2, 4]))
    steps = 8760 * steps_per_hour
    scenario: dict[str, Any] = {
        "Settings": {**draw(random_fields("Settings")), "time_steps_per_hour": steps_per_hour},
        "Site": {**draw(random_fields("Site")), "latitude": draw(numbers(-90, 90)),
                 "longitude": draw(numbers(-180, 180))},
        "ElectricLoad": draw(electric_loads(steps)),
        "ElectricTariff": draw(tariffs(steps)),
    }
    for key in draw(st.lists(st.sampled_from(OPTIONAL_SECTIONS), unique=True, max_size=6)):
        section = {**draw(random_fields(key)), **SECTION_NEEDS.get(key, {})}
        if key == "PV" and draw(st.booleans()):
            scenario[key] = [{**section, "name": "first"},
                             {**draw(random_fields(key)), "name": "second"}]
        else:
            scenario[key] = section
    if "Wind" in scenario:
        # A sized Wind needs its site in the WIND Toolkit grid (the service's rule): the
        # contiguous United States' interior is in it.
        scenario["Site"] = {**scenario["Site"], "latitude": draw(numbers(32, 45)), "longitude": draw(numbers(-110, -85))}
    order = draw(st.permutations(list(scenario)))
    return {key: scenario[key] for key in order}


def with_kinds(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: with_kinds(item) for key, item in value.items()}
    if isinstance(value, list):
        return [with_kinds(item) for item in value]
    return (type(value).__name__, value)


def ranged_fields() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (key, name, record)
        for key, section in SECTIONS.items()
        for name, record in section["fields"].items()
        if record["type"] in ("float", "int") and ("min" in record or "max" in record)
    ]


def choice_fields() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (key, name, record)
        for key, section in SECTIONS.items()
        for name, record in section["fields"].items()
        if "choices" in record
    ]


def series_fields() -> list[tuple[str, str]]:
    return [
        (key, name)
        for key, section in SECTIONS.items()
        for name, record in section["fields"].items()
        if record.get("shape") == "series"
    ]


@st.composite
def out_of_range(draw: st.DrawFn) -> tuple[str, str, Any, str]:
    key, name, record = draw(st.sampled_from(ranged_fields()))
    sides = [side for side in ("min", "max") if side in record]
    side = draw(st.sampled_from(sides))
    limit = record[side]
    direction = -1 if side == "min" else 1
    if record["type"] == "int":
        value: Any = int(limit) + direction * draw(st.integers(1, 10**6))
    else:
        step = max(abs(limit), 1.0) * draw(st.floats(1e-3, 10))
        value = limit + direction * step
    return key, name, value, side


def place(scenario: dict[str, Any], key: str, name: str, value: Any) -> str:
    """Put ``value`` at ``key.name`` (in the last PV array when PV is a list); return its path."""
    section = scenario.get(key)
    if isinstance(section, list):
        section[-1][name] = value
        return f"{key}[{len(section) - 1}].{name}"
    scenario.setdefault(key, {})[name] = value
    return f"{key}.{name}"


@PROPERTY_SETTINGS
@given(valid_scenarios())
def test_random_valid_scenarios_validate_and_round_trip(document: dict[str, Any]) -> None:
    scenario = Scenario.from_dict(document)
    assert scenario.validate() == []
    assert with_kinds(scenario.to_dict()) == with_kinds(document)
    again = Scenario.from_json(scenario.to_json())
    assert with_kinds(again.to_dict()) == with_kinds(document)
    assert again.diff(scenario) == []


@PROPERTY_SETTINGS
@given(valid_scenarios(), out_of_range())
def test_out_of_range_values_are_reported_at_their_path(
    document: dict[str, Any], case: tuple[str, str, Any, str]
) -> None:
    key, name, value, side = case
    path = place(document, key, name, value)
    found = {(problem.path, problem.rule) for problem in validate_scenario_dict(document)}
    assert (path, side) in found


@PROPERTY_SETTINGS
@given(valid_scenarios(), st.sampled_from(choice_fields()), st.data())
def test_invalid_choices_are_reported_at_their_path(
    document: dict[str, Any], field: tuple[str, str, dict[str, Any]], data: st.DataObject
) -> None:
    key, name, record = field
    bad: Any
    if record["type"] == "int":
        bad = data.draw(st.integers().filter(lambda value: value not in record["choices"]))
    else:
        bad = data.draw(st.text(min_size=1).filter(lambda value: value not in record["choices"]))
    path = place(document, key, name, bad)
    found = {(problem.path, problem.rule) for problem in validate_scenario_dict(document)}
    assert (path, "choices") in found


@PROPERTY_SETTINGS
@given(valid_scenarios(), st.sampled_from(series_fields()), st.integers(0, 40000))
def test_series_of_the_wrong_length_are_reported(
    document: dict[str, Any], field: tuple[str, str], length: int
) -> None:
    steps = 8760 * document["Settings"]["time_steps_per_hour"]
    if length in (0, steps):
        length = steps + 1
    key, name = field
    path = place(document, key, name, [0.5] * length)
    found = {(problem.path, problem.rule) for problem in validate_scenario_dict(document)}
    assert (path, "series_length") in found


@PROPERTY_SETTINGS
@given(valid_scenarios())
def test_validation_never_changes_its_input(document: dict[str, Any]) -> None:
    before = json.dumps(document, sort_keys=True)
    validate_scenario_dict(document)
    assert json.dumps(document, sort_keys=True) == before
