"""Small optimizer scenarios the engine solves in about a second (PV and storage on a flat load and
a blended rate, production made for the tests), shared by the solve, summary, polling and
distributed tests."""

from __future__ import annotations

import math
from typing import Any


def daylight(peak: float = 0.8) -> list[float]:
    """A daily arc of PV output per kW, 0 at night (made for these tests)."""
    return [peak * max(0.0, math.sin(math.pi * ((h % 24) - 6) / 12)) if 6 <= h % 24 < 18 else 0.0 for h in range(8760)]


def scenario(pv_cost: float = 1600.0) -> dict[str, Any]:
    """PV and storage on a flat load and a blended rate (a small MILP: storage built or not)."""
    return {
        "Site": {"latitude": 39.74, "longitude": -105.17},
        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 876_000.0},
        "ElectricTariff": {"blended_annual_energy_rate": 0.15, "blended_annual_demand_rate": 12.0},
        "PV": {"max_kw": 500, "installed_cost_per_kw": pv_cost, "production_factor_series": daylight()},
        "ElectricStorage": {"max_kwh": 400, "max_kw": 100},
    }


def pv_only(cost: float = 1600.0) -> dict[str, Any]:
    """PV on a flat load and a blended rate: a pure LP that solves in about a second."""
    document = scenario(cost)
    del document["ElectricStorage"]
    return document


def with_generator() -> dict[str, Any]:
    """PV and a fixed 50 kW generator (it runs only in outages, so the program stays an LP);
    the generator brings `Site` fuel-burn emissions into the results."""
    document = pv_only()
    document["Generator"] = {"min_kw": 50, "max_kw": 50, "installed_cost_per_kw": 500.0}
    return document
