"""Optimizer emissions constraints (issue #29): one hourly year of PV and storage solved in process
(`sunflux.optimizer.solve`) as it is, with a renewable-electricity minimum, with a CO2 reduction
minimum against the business-as-usual case, and with both, on a grid CO2 factor series made here.
Each bound adds one row summing over the year; the table says what that costs the solve."""

from __future__ import annotations

import math
from typing import Any

from bench_optimizer_engine import best_solve, pv_storage

TITLE = "Optimizer emissions: renewable-electricity and CO2 reduction bounds on one hourly year"
REPEATS = 3
RE_MIN = 0.6
CO2_REDUCTION_MIN = 0.6


def co2_factors() -> list[float]:
    """lb CO2/kWh of the grid per hour: 1.1 at night, 0.6 at midday (solar on the grid)."""
    return [1.1 - 0.5 * max(0.0, math.sin(math.pi * ((hour % 24) - 6) / 12)) for hour in range(8760)]


def variants() -> dict[str, dict[str, Any]]:
    base = pv_storage(1)
    base["ElectricUtility"] = {"emissions_factor_series_lb_CO2_per_kwh": co2_factors()}
    re_min = {**base, "Site": {**base["Site"], "renewable_electricity_min_fraction": RE_MIN}}
    co2 = {**base, "Site": {**base["Site"], "CO2_emissions_reduction_min_fraction": CO2_REDUCTION_MIN}}
    both = {**base, "Site": {**re_min["Site"], "CO2_emissions_reduction_min_fraction": CO2_REDUCTION_MIN}}
    return {"no bounds": base, f"RE ≥ {RE_MIN}": re_min, f"CO2 reduction ≥ {CO2_REDUCTION_MIN}": co2, "both": both}


def run(repeats: int = REPEATS) -> str:
    rows = []
    for label, document in variants().items():
        best, result = best_solve(document, repeats)
        site = result.raw["outputs"]["Site"]
        rows.append(
            f"| {label} | {best:.2f} | {result.outputs.Financial.lcc:,.0f} | {result.outputs.PV.size_kw:.1f} | "
            f"{result.outputs.ElectricStorage.size_kwh:.1f} | {site['onsite_renewable_electricity_fraction_of_elec_load']:.4f} | "
            f"{site['lifecycle_emissions_reduction_CO2_fraction']:.4f} |"
        )
    return "\n".join([
        f"`sunflux.optimizer.solve` of the PV + storage year of the engine section (8,760 steps), best of {repeats}, "
        "with a grid CO2 series (1.1 lb/kWh at night, 0.6 at midday):",
        "",
        "| bounds | seconds | lcc ($) | PV (kW) | storage (kWh) | on-site RE fraction | CO2 reduction |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *rows,
    ])


if __name__ == "__main__":
    print(run(repeats=1))
