"""What the scenario builder's tests share: the project's own scenario files by kind, the spec's
section names, a plain valid scenario, and readers that keep every number's kind."""

from __future__ import annotations

import json
import warnings
from typing import Any

from sunflux.optimizer import (
    Scenario,
    UnknownFieldWarning,
    validate_scenario_dict,
)
from support.paths import SCENARIOS


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
