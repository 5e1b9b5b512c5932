"""Optimizer engine (issue #28): the same scenarios solved in process (`sunflux.optimizer.solve`),
through `client.optimizer.run` against `LocalService`, and by the previous release's Clarabel
path (its own `LocalService`, in a second interpreter named by ``SUNFLUX_BENCH_PREVIOUS_PYTHON``,
a venv where the wheel of the commit before the engine is installed); then `solve_many` of 20
variants on 2 threads.

Every scenario carries its PV production (a clear-sky-like arc made here), so the three contenders
solve the same program: the embedded service would otherwise compute production on its synthetic
weather, and `solve` refuses to fetch it."""

from __future__ import annotations

import json
import math
import os
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any, Callable

import sunflux as sf
from sunflux.optimizer import solve, solve_many, summaries

TITLE = "Optimizer engine: in-process solve, LocalService and the previous Clarabel path; solve_many"
HOURS = 8760
#: A business day: 60 kW at night, 150 kW from 08:00 to 18:00.
DAY_LOAD_KW = [150.0 if 8 <= hour < 18 else 60.0 for hour in range(24)]
#: $/kWh: 7 ¢ off-peak, 28 ¢ from 14:00 to 20:00.
TOU_DAY = [0.28 if 14 <= hour < 20 else 0.07 for hour in range(24)]
#: What the previous release may spend on one scenario before it is reported as not finished.
PREVIOUS_LIMIT_S = 300
#: `Settings.timeout_seconds` of the scenario whose generator binary matters in every step.
MILP_LIMIT_S = 120
VARIANTS = 20
THREADS = 2

#: The previous release's side: reads {label: scenario} on stdin, prints {label: [s, lcc, sizes]}.
PREVIOUS_RUNNER = r"""
import json, sys, time
import sunflux as sf
scenarios = json.load(sys.stdin)
limit = float(sys.argv[1])
out = {}
with sf.LocalService(rate_limits=sf.RateLimits(requests=1_000_000)) as svc:
    client = svc.client()
    for label, document in scenarios.items():
        started = time.perf_counter()
        try:
            result = client.optimizer.run(document, timeout=limit, poll_interval=0.05, max_interval=0.1)
            o = result.raw["outputs"]
            out[label] = [time.perf_counter() - started, o["Financial"]["lcc"], o.get("PV", {}).get("size_kw"), o.get("ElectricStorage", {}).get("size_kwh")]
        except sf.JobTimeout:
            out[label] = [None, None, None, None]
        except Exception as error:
            out[label] = [time.perf_counter() - started, None, type(error).__name__ + ": " + str(error)[:80], None]
        print(json.dumps({label: out[label]}), file=sys.stderr, flush=True)
print(json.dumps(out))
sys.stdout.flush()
import os; os._exit(0)
"""


def daylight(steps_per_hour: int) -> list[float]:
    """PV output per kW at each step: a daily arc peaking at 0.8 at noon, weaker in winter."""
    values = []
    for step in range(HOURS * steps_per_hour):
        hour = step / steps_per_hour
        day, h = int(hour // 24), hour % 24
        season = 0.55 + 0.45 * math.sin(math.tau * (day - 80) / 365)
        values.append(0.8 * season * max(0.0, math.sin(math.pi * (h - 6) / 12)) if 6 <= h < 18 else 0.0)
    return values


def pv_storage(steps_per_hour: int, pv_cost: float = 1400.0) -> dict[str, Any]:
    """One year of a business-day load on TOU energy and a $15/kW demand charge, PV and storage sized."""
    n = steps_per_hour
    single = [[0] * 24 for _ in range(12)]
    periods = [[1 if 14 <= hour < 20 else 0 for hour in range(24)] for _ in range(12)]
    return {
        "Site": {"latitude": 39.74, "longitude": -105.17},
        "Settings": {"time_steps_per_hour": n, "timeout_seconds": 1200},
        "ElectricLoad": {"loads_kw": [kw for _ in range(HOURS // 24) for kw in DAY_LOAD_KW for _ in range(n)], "year": 2017},
        "ElectricTariff": {"urdb_response": {
            "energyweekdayschedule": periods, "energyweekendschedule": periods,
            "energyratestructure": [[{"rate": 0.07, "unit": "kWh"}], [{"rate": 0.28, "unit": "kWh"}]],
            "demandweekdayschedule": single, "demandweekendschedule": single,
            "demandratestructure": [[{"rate": 15.0, "unit": "kW"}]],
        }},
        "PV": {"max_kw": 1000, "installed_cost_per_kw": pv_cost, "om_cost_per_kw": 18.0, "production_factor_series": daylight(n)},
        "ElectricStorage": {"max_kw": 500, "max_kwh": 2000, "installed_cost_per_kw": 350.0, "installed_cost_per_kwh": 250.0, "installed_cost_constant": 0.0},
    }


def falling_tier_with_storage() -> dict[str, Any]:
    """20,000 kWh a month at 20 ¢, then 8 ¢ (a falling tier), $15/kW demand, storage sized."""
    single = [[0] * 24 for _ in range(12)]
    return {
        "Site": {"latitude": 34.58, "longitude": -118.12},
        "Settings": {"timeout_seconds": 1200},
        "ElectricLoad": {"loads_kw": [40.0 + (60.0 if 17 <= hour % 24 < 20 else 0.0) for hour in range(HOURS)], "year": 2017},
        "ElectricTariff": {"urdb_response": {
            "energyweekdayschedule": single, "energyweekendschedule": single,
            "energyratestructure": [[{"rate": 0.20, "max": 20000.0, "unit": "kWh"}, {"rate": 0.08, "unit": "kWh"}]],
            "demandweekdayschedule": single, "demandweekendschedule": single,
            "demandratestructure": [[{"rate": 15.0, "unit": "kW"}]],
        }},
        "ElectricStorage": {"max_kw": 200, "max_kwh": 800, "installed_cost_constant": 0, "installed_cost_per_kw": 300, "installed_cost_per_kwh": 200},
    }


def generator_outage(on_grid: bool = False) -> dict[str, Any]:
    """The PV + storage year with a generator sized up to 200 kW and a 48-hour outage on
    1 December: by default it runs only in the outage (30 % turndown, 1,000 gal); ``on_grid``
    lets it run all year on cheap fuel with a 50 % turndown, so its on/off binary matters in
    every step (8,760 binaries) and the run is stopped at ``MILP_LIMIT_S``."""
    document = pv_storage(1)
    document["ElectricLoad"]["critical_load_fraction"] = 0.8
    document["ElectricUtility"] = {"outage_start_time_step": 8017, "outage_end_time_step": 8064}
    if on_grid:
        document["Generator"] = {"max_kw": 200, "min_turn_down_fraction": 0.5, "only_runs_during_grid_outage": False, "fuel_cost_per_gallon": 0.5}
        document["Settings"]["timeout_seconds"] = MILP_LIMIT_S
    else:
        document["Generator"] = {"max_kw": 200, "min_turn_down_fraction": 0.3, "fuel_avail_gal": 1000.0}
    return document


def _measure(fn: Callable[[], Any]) -> tuple[float, Any]:
    """Seconds of one run and its result, None when it stopped at the scenario's time limit."""
    started = time.perf_counter()
    try:
        result = fn()
    except (sf.JobTimeout, sf.JobFailed) as error:  # in process the limit raises JobTimeout; the service fails the job
        if isinstance(error, sf.JobFailed) and "timeout" not in str(error):
            raise
        result = None
    return time.perf_counter() - started, result


def best_solve(document: dict[str, Any], repeats: int) -> tuple[float, Any]:
    """The fastest of ``repeats`` in-process solves of ``document`` (seconds) and the last result."""
    best = math.inf
    for _ in range(repeats):
        started = time.perf_counter()
        result = solve(document)
        best = min(best, time.perf_counter() - started)
    return best, result


def _previous(cases: dict[str, dict[str, Any]]) -> dict[str, list[Any]] | None:
    python = os.environ.get("SUNFLUX_BENCH_PREVIOUS_PYTHON")
    if not python:
        return None
    answer = subprocess.run(
        [python, "-c", PREVIOUS_RUNNER, str(PREVIOUS_LIMIT_S)], input=json.dumps(cases), capture_output=True, text=True,
        timeout=PREVIOUS_LIMIT_S * len(cases) + 120,
    )
    return json.loads(answer.stdout) if answer.returncode == 0 else None


def _seconds(value: float | None) -> str:
    return f"> {PREVIOUS_LIMIT_S}" if value is None else f"{value:.2f}"


def corpus_section() -> str:
    """Every valid real scenario of ``SUNFLUX_SCENARIO_CORPUS`` (resolved once against the embedded
    service and its rate stand-in) run by this build's and the previous release's `LocalService`."""
    folder = os.environ.get("SUNFLUX_SCENARIO_CORPUS")
    if not folder:
        return "### Real scenarios\n\nNot run: `SUNFLUX_SCENARIO_CORPUS` is not set."
    manifest = json.loads((Path(folder) / "MANIFEST.json").read_text())["files"]
    valid = [e["file"] for e in manifest if e["expected"] in ("api_valid", "api_valid_runtime_error")]
    resolved: dict[str, dict[str, Any]] = {}
    rows = []
    with sf.LocalService(rates=sf.RateDatabaseSettings(any_label=True), rate_limits=sf.RateLimits(requests=1_000_000)) as svc:
        client = svc.client()
        for name in valid:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                scenario = sf.optimizer.Scenario.from_dict(json.loads((Path(folder) / name).read_text()))
            try:
                resolved[name] = scenario.resolve(client, cache_dir=None).to_dict()
            except sf.SunfluxError:
                continue
        current: dict[str, tuple[float, float]] = {}
        for name, document in resolved.items():
            started = time.perf_counter()
            try:
                result = client.optimizer.run(document, timeout=1200, poll_interval=0.05, max_interval=0.5)
                current[name] = (time.perf_counter() - started, result.raw["outputs"]["Financial"]["lcc"])
            except sf.SunfluxError:
                pass
    previous = _previous({name: resolved[name] for name in current}) or {}
    for name, (seconds, lcc) in current.items():
        old = previous.get(name)
        if old is None:
            old_cells = "not run | —"
        elif old[1] is None:
            old_cells = f"{_seconds(old[0])} (no answer) | —"
        else:
            old_cells = f"{old[0]:.2f} | {(old[1] - lcc) / abs(lcc):+.1e}"
        rows.append(f"| {name} | {seconds:.2f} | {old_cells} | {lcc:,.0f} |")
    return (
        "### Real scenarios\n\n"
        f"The {len(valid)} valid scenarios of the corpus; the {len(current)} that run locally after `resolve`, "
        "each run once by this build's `LocalService` and by the previous release's (same resolved JSON).\n\n"
        "| scenario | now s | previous s | previous lcc vs now | lcc $ |\n|---|---|---|---|---|\n" + "\n".join(rows)
    )


def run() -> str:
    cases = {
        "PV + storage, 1 step/h": pv_storage(1),
        "PV + storage, 2 steps/h": pv_storage(2),
        "PV + storage, 4 steps/h": pv_storage(4),
        "falling tier + storage (MILP)": falling_tier_with_storage(),
        "generator 30 % turndown, runs in the 48 h outage only": generator_outage(),
        "generator 50 % turndown, runs all year (8,760 binaries) + 48 h outage": generator_outage(on_grid=True),
    }
    previous = _previous(cases)
    rows = []
    with sf.LocalService(rate_limits=sf.RateLimits(requests=1_000_000)) as svc:
        client = svc.client()
        for label, document in cases.items():
            in_process, local = _measure(lambda: solve(document))
            served, remote = _measure(lambda: client.optimizer.run(document, timeout=1200))
            old = previous.get(label) if previous else None
            if local is None:
                old_lcc = "—" if old is None or old[1] is None else f"{old[1]:,.0f} (relaxed)"
                old_cells = "not run" if old is None else _seconds(old[0])
                rows.append(f"| {label} | > {MILP_LIMIT_S} (stopped) | > {MILP_LIMIT_S} (stopped) | — | {old_cells} | {old_lcc} | — | — |")
                continue
            lcc = local.raw["outputs"]["Financial"]["lcc"]
            agree = "—" if remote is None else f"{abs(remote.raw['outputs']['Financial']['lcc'] - lcc) / abs(lcc):.0e}"
            if old is None:
                old_cells = "not run | —"
            elif old[1] is None and old[0] is not None:
                old_cells = f"{old[0]:.2f} (failed: {old[2]}) | —"
            else:
                old_cells = f"{_seconds(old[0])} | " + ("—" if old[1] is None else f"{(old[1] - lcc) / abs(lcc):+.1e}")
            rows.append(f"| {label} | {in_process:.2f} | {served:.2f} | {served / in_process:.2f}x | {old_cells} | {lcc:,.0f} | {agree} |")
    variants = [pv_storage(1, pv_cost=1000.0 + 50.0 * i) for i in range(VARIANTS)]
    started = time.perf_counter()
    many = solve_many(variants, threads=THREADS, progress=False)
    many_seconds = time.perf_counter() - started
    started = time.perf_counter()
    one_by_one = [solve(v) for v in variants[:4]]
    sequential = (time.perf_counter() - started) / 4
    table = summaries(many)
    same = all(a.raw["outputs"]["Financial"]["lcc"] == b.raw["outputs"]["Financial"]["lcc"] for a, b in zip(many, one_by_one))
    previous_note = (
        "The previous path is the wheel of the commit before the engine (d2c38ef) in a second interpreter, "
        f"its own `LocalService`, one run each, stopped at {PREVIOUS_LIMIT_S} s."
        if previous is not None
        else "The previous path was not run (set `SUNFLUX_BENCH_PREVIOUS_PYTHON` to a venv's python with the previous wheel)."
    )
    return (
        "The same scenario, with its PV production given, solved three ways in one run: `solve()` in process "
        "(validation, the model, Clarabel and HiGHS, the results), `client.optimizer.run` against `LocalService` "
        "(HTTP, the job thread and the polling), and the previous release's `client.optimizer.run` (before the "
        f"engine: no HiGHS, a hand-written branch and bound for falling tiers, turndown relaxed). {previous_note} "
        "Business as usual is solved in every run. One run each (the longest take minutes). Where this build "
        f"stops at the scenario's {MILP_LIMIT_S} s limit, the previous path's lcc is its relaxed answer (a lower "
        "bound of the service's: turndown not enforced).\n\n"
        "| scenario | solve() s | LocalService s | LocalService / solve | previous s | previous lcc vs solve | lcc $ | LocalService lcc vs solve |\n"
        "|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
        f"`solve_many` of {VARIANTS} PV-cost variants of the hourly PV + storage year on {THREADS} threads: "
        f"{many_seconds:.1f} s, {VARIANTS / many_seconds:.2f} scenarios/s, against {1 / sequential:.2f} scenarios/s "
        f"for `solve` one after another ({sequential:.2f} s each, first 4); the first 4 results identical: {same}. "
        f"`summaries` of the 20: {table.height} rows × {table.width} columns, PV from "
        f"{table['PV.size_kw'].min():.1f} to {table['PV.size_kw'].max():.1f} kW.\n\n"
        + corpus_section()
    )
