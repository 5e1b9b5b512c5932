"""Optimizer battery degradation (issue #29): one hourly year of PV and storage solved in process
(`sunflux.optimizer.solve`) as it is, with `ElectricStorage.model_degradation` under the default
augmentation strategy, and under the replacement strategy (2 · 12N monthly binaries with big-M
rows). The state of health adds a variable and a row per day of the N-year analysis period and
the segment rows per time step; the table says what that costs the solve."""

from __future__ import annotations

from typing import Any

import sunflux as sf
from bench_optimizer_engine import HOURS, best_solve, pv_storage

TITLE = "Optimizer battery degradation: augmentation and replacement on one hourly PV + storage year"
REPEATS = 3
#: The service's default analysis period, which the engine section's scenario keeps.
ANALYSIS_YEARS = 25
#: The service's default degradation inputs have one cycle-fade segment.
SEGMENTS = 1
DAYS_PER_YEAR = 365


def added_size(strategy: str | None) -> tuple[int, int, int]:
    """(variables, rows, binaries) the degradation model adds, as `lp/degradation.rs` builds it
    (the Rust test `the_program_grows_by_the_rows_of_the_model` checks these counts): per day of
    the year its average and J discharged energies, J charge and J discharge segments per step,
    one state of health per day of the period; replacement adds 3 variables (2 binaries) and 6
    rows a month."""
    if strategy is None:
        return 0, 0, 0
    days = DAYS_PER_YEAR * ANALYSIS_YEARS
    j = SEGMENTS
    variables = DAYS_PER_YEAR * (1 + j) + 2 * j * HOURS + days
    rows = DAYS_PER_YEAR + 2 * HOURS + 2 * j * HOURS + DAYS_PER_YEAR * j + days
    if strategy == "replacement":
        months = 12 * ANALYSIS_YEARS
        return variables + 3 * months, rows + 6 * months, 2 * months
    return variables, rows, 0


def variants() -> dict[str, tuple[dict[str, Any], str | None]]:
    base = pv_storage(1)
    base["Financial"] = {"analysis_years": ANALYSIS_YEARS}

    def degraded(strategy: str) -> dict[str, Any]:
        storage = {**base["ElectricStorage"], "model_degradation": True, "degradation": {"maintenance_strategy": strategy}}
        return {**base, "ElectricStorage": storage}

    return {"no degradation": (base, None), "augmentation": (degraded("augmentation"), "augmentation"),
            "replacement": (degraded("replacement"), "replacement")}


def run(repeats: int = REPEATS) -> str:
    rows = []
    for label, (document, strategy) in variants().items():
        variables, added_rows, binaries = added_size(strategy)
        try:
            best, result = best_solve(document, repeats)
        except sf.JobTimeout:
            limit = document["Settings"]["timeout_seconds"]
            rows.append(f"| {label} | {variables:,} | {added_rows:,} | {binaries} | > {limit} | – | – | – | – | – |")
            continue
        storage = result.raw["outputs"]["ElectricStorage"]
        health = storage.get("state_of_health")
        rows.append(
            f"| {label} | {variables:,} | {added_rows:,} | {binaries} | {best:.2f} | {result.outputs.Financial.lcc:,.0f} | "
            f"{storage['size_kwh']:.1f} | {health[-1] if health else '–'} | {storage.get('maintenance_cost', '–')} | "
            f"{storage.get('replacement_month', '–')} |"
        )
    return "\n".join([
        f"`sunflux.optimizer.solve` of the PV + storage year of the engine section (8,760 steps, {ANALYSIS_YEARS}-year analysis "
        f"period: {DAYS_PER_YEAR * ANALYSIS_YEARS:,} days of state of health), best of {repeats}, with the service's default "
        "degradation inputs; the variables, rows and binaries are those the degradation model adds:",
        "",
        "| degradation | + variables | + rows | + binaries | seconds | lcc ($) | storage (kWh) | final state of health | "
        "maintenance ($) | replacement month |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        *rows,
    ])


if __name__ == "__main__":
    print(run(repeats=1))
