"""Optimizer exports (issue #29): the hourly PV + storage year of the engine section with a
5 ¢/kWh wholesale rate PV may sell at, solved in process (`sunflux.optimizer.solve`) as the
service allows it by default (export and import in the same hour) and with
`ElectricUtility.allow_simultaneous_export_import=false`, the service's binary per time step.
The table says what those 8,760 binaries cost the solve."""

from __future__ import annotations

import json
from typing import Any

from bench_optimizer_engine import best_solve, pv_storage

TITLE = "Optimizer exports: one hourly year with and without simultaneous export and import"
REPEATS = 3
WHOLESALE_PER_KWH = 0.05


def with_wholesale(allow_simultaneous: bool) -> dict[str, Any]:
    """The PV + storage year with PV selling at the wholesale rate, and the service's switch."""
    document = json.loads(json.dumps(pv_storage(1)))
    document["ElectricTariff"]["wholesale_rate"] = WHOLESALE_PER_KWH
    document["PV"].update({"can_wholesale": True, "can_net_meter": False})
    document["ElectricUtility"] = {"allow_simultaneous_export_import": allow_simultaneous}
    return document


def run(repeats: int = REPEATS) -> str:
    rows = []
    for label, document in (("simultaneous export and import allowed", with_wholesale(True)),
                            ("allow_simultaneous_export_import=false (8,760 binaries)", with_wholesale(False))):
        best, result = best_solve(document, repeats)
        pv = result.raw["outputs"]["PV"]
        rows.append(f"| {label} | {best:.2f} | {pv['size_kw']:.1f} | {sum(pv['electric_to_grid_series_kw']):,.0f} | "
                    f"{result.outputs.Financial.lcc:,.0f} |")
    return "\n".join([
        f"`sunflux.optimizer.solve` of the PV + storage year of the engine section (8,760 steps) with a "
        f"{WHOLESALE_PER_KWH * 100:.0f} ¢/kWh wholesale rate for PV, best of {repeats}:",
        "",
        "| case | seconds | PV (kW) | PV to grid (kWh) | lcc ($) |",
        "|---|---:|---:|---:|---:|",
        *rows,
    ])


if __name__ == "__main__":
    print(run(repeats=1))
