"""Optimizer battery degradation (issue #29): one hourly year of PV and storage solved in process
(`sunflux.optimizer.solve`) as it is, with `ElectricStorage.model_degradation` under the default
augmentation strategy, and under the replacement strategy (2 · 12N monthly binaries with big-M
rows). The state of health adds a variable and a row per day of the N-year analysis period and
the segment rows per time step; the table says what that costs the solve."""

from __future__ import annotations

from typing import Any

import sunflux as sf
from bench_optimizer_engine import best_solve, pv_storage

TITLE = "Optimizer battery degradation: augmentation and replacement on one hourly PV + storage year"
REPEATS = 1
#: The service's default analysis period, which the engine section's scenario keeps.
ANALYSIS_YEARS = 25
DAYS_PER_YEAR = 365
#: `Settings.timeout_seconds` of every solve here (REopt.jl's own tests say the replacement
#: strategy cannot be solved with open-source solvers in reasonable time).
LIMIT_S = 300


def variants() -> dict[str, dict[str, Any]]:
    base = pv_storage(1)
    base["Financial"] = {"analysis_years": ANALYSIS_YEARS}
    base["Settings"] = {**base["Settings"], "timeout_seconds": LIMIT_S}

    def degraded(strategy: str) -> dict[str, Any]:
        storage = {**base["ElectricStorage"], "model_degradation": True, "degradation": {"maintenance_strategy": strategy}}
        return {**base, "ElectricStorage": storage}

    return {"no degradation": base, "augmentation": degraded("augmentation"), "replacement": degraded("replacement")}


def run(repeats: int = REPEATS) -> str:
    rows = []
    plain: dict[str, int] | None = None
    for label, document in variants().items():
        try:
            best, result = best_solve(document, repeats)
        except sf.JobTimeout:
            rows.append(f"| {label} | – | – | – | > {LIMIT_S} | – | – | – | – | – |")
            continue
        program = result.messages["solver"]["optimal"]
        plain = plain or program
        added = {key: program[key] - plain[key] for key in ("variables", "rows", "binaries")}
        storage = result.raw["outputs"]["ElectricStorage"]
        health = storage.get("state_of_health")
        rows.append(
            f"| {label} | {added['variables']:,} | {added['rows']:,} | {added['binaries']} | {best:.2f} | "
            f"{result.outputs.Financial.lcc:,.0f} | {storage['size_kwh']:.1f} | {health[-1] if health else '–'} | "
            f"{storage.get('maintenance_cost', '–')} | {storage.get('replacement_month', '–')} |"
        )
    return "\n".join([
        f"`sunflux.optimizer.solve` of the PV + storage year of the engine section (8,760 steps, {ANALYSIS_YEARS}-year analysis "
        f"period: {DAYS_PER_YEAR * ANALYSIS_YEARS:,} days of state of health), best of {repeats}, each solve limited to "
        f"{LIMIT_S} s, with the service's default "
        "degradation inputs; the variables, rows and binaries the degradation model adds to the optimal case's program "
        "(`messages[\"solver\"]`):",
        "",
        "| degradation | + variables | + rows | + binaries | seconds | lcc ($) | storage (kWh) | final state of health | "
        "maintenance ($) | replacement month |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
    ])


if __name__ == "__main__":
    print(run(repeats=1))
