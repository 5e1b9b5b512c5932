"""Optimizer production-based incentive (issue #29): the hourly PV + storage year of the engine
section solved in process (`sunflux.optimizer.solve`) without and with a PV production incentive
of 5 ¢/kWh for 10 years, paid only up to 300 kW (below PV's 1,000 kW limit, so the service's
eligibility binary is in the program). The table says what that binary costs the solve."""

from __future__ import annotations

import json
from typing import Any

from bench_optimizer_engine import best_solve, pv_storage

TITLE = "Optimizer production-based incentive: one hourly year with and without it"
REPEATS = 3


def with_production_incentive(document: dict[str, Any]) -> dict[str, Any]:
    """The scenario with the incentive (a deep copy: the plain case is solved too)."""
    document = json.loads(json.dumps(document))
    document["PV"].update({"production_incentive_per_kwh": 0.05, "production_incentive_years": 10, "production_incentive_max_kw": 300})
    return document


def run(repeats: int = REPEATS) -> str:
    plain = pv_storage(1)
    rows = []
    for label, document in (("without incentive", plain), ("with production incentive (binary)", with_production_incentive(plain))):
        best, result = best_solve(document, repeats)
        financial = result.raw["outputs"]["Financial"]
        rows.append(
            f"| {label} | {best:.2f} | {result.outputs.PV.size_kw:.1f} | "
            f"{financial['lifecycle_production_incentive_after_tax']:,.0f} | {financial['lcc']:,.0f} |"
        )
    return "\n".join([
        f"`sunflux.optimizer.solve` of the PV + storage year of the engine section (8,760 steps), best of {repeats}:",
        "",
        "| case | seconds | PV (kW) | lifecycle incentive ($) | lcc ($) |",
        "|---|---:|---:|---:|---:|",
        *rows,
    ])


if __name__ == "__main__":
    print(run(repeats=1))
