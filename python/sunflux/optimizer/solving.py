"""Scenarios solved in this process by sunflux's optimizer engine (Rust, HiGHS for the service's
binaries): no HTTP, no polling, the same engine the embedded service runs.

Only data the scenario holds is used. Where the service would fetch something (a reference
load, a URDB rate, PV or Wind production), `solve` refuses with `ParameterError` naming it:
`Scenario.resolve(client)` brings the load, the rate and the PV and Wind
``production_factor_series`` as the service computes them (or give them, e.g. from
`sunflux.pvwatts`).
"""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Iterable, Mapping
from typing import Any

from sunflux import _core
from sunflux._errors import ParameterError
from sunflux._progress import Progress, progress_flag
from sunflux.optimizer.jobs import OptimizerResult, _scenario_json
from sunflux.optimizer.scenario import Scenario

#: How often `solve_many` looks at its workers and at Ctrl-C (seconds).
_WAIT = 0.1


def _check_threads(threads: int | None) -> None:
    if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool) or threads < 1):
        raise ParameterError(f"threads must be a positive int (got {threads!r})")


def _scenario_bodies(scenarios: Iterable[Scenario | Mapping[str, Any]]) -> list[bytes]:
    """Every scenario's JSON, each checked first (`ParameterError` naming the first bad one by
    its index)."""
    if isinstance(scenarios, (str, bytes, Mapping, Scenario)):
        raise ParameterError(f"scenarios must be an iterable of Scenario or dict (got one {type(scenarios).__name__})")
    bodies: list[bytes] = []
    for index, scenario in enumerate(scenarios):
        try:
            bodies.append(_scenario_json(scenario))
        except ParameterError as error:
            raise ParameterError([f"scenarios[{index}]: {problem}" for problem in error.errors]) from None
    return bodies


def _solve_json(scenario_json: str) -> dict[str, Any]:
    """One scenario's JSON text (checked by `_scenario_bodies`) solved here: its results
    document. What a worker of ``sunflux.distributed.solve`` runs."""
    return _core.optimizer_solve(scenario_json.encode())


def solve(scenario: Scenario | Mapping[str, Any], *, threads: int | None = None) -> OptimizerResult:
    """Solve one optimizer scenario in process and return its results.

    Parameters
    ----------
    scenario : Scenario or dict
        The scenario, checked by the builder's rules first.
    threads : int, optional
        Accepted for symmetry with `solve_many`; one scenario uses one solver thread per case.

    Returns
    -------
    OptimizerResult
        ``status == "optimal"``, with ``outputs`` in the service's shape and ``job_type``
        ``"sunflux.solve"`` (``run_uuid`` is empty: there is no job). ``messages["solver"]``
        gives the size of the optimal and business-as-usual programs (``variables``,
        ``binaries``, ``rows``, ``nonzeros``) and their solves (``iterations``, ``nodes``,
        ``seconds``), and every case tried with its objective ($).

    Raises
    ------
    ParameterError
        The scenario breaks a rule, is larger than the engine's limits, or needs data it does
        not hold (each named, with its remedy).
    JobFailed
        No optimal solution (infeasible, or the solver failed); ``messages["error"]`` says why.
    JobTimeout
        ``Settings.timeout_seconds`` passed.
    KeyboardInterrupt
        Ctrl-C; the solver stops within about 0.1 s.
    """
    _check_threads(threads)
    return OptimizerResult(_core.optimizer_solve(_scenario_json(scenario)))


def solve_many(
    scenarios: Iterable[Scenario | Mapping[str, Any]], *, threads: int | None = None, progress: bool = True
) -> list[OptimizerResult]:
    """Solve many scenarios in process, ``threads`` at a time, and return their results in
    input order.

    Parameters
    ----------
    scenarios : iterable of Scenario or dict
        Every scenario is checked before any is solved (`ParameterError` names the first bad
        one by its index).
    threads : int, optional
        Scenarios solved at once (default: the machine's cores).
    progress : bool, default True
        A progress bar (tqdm when installed, else a line on stderr every tenth).

    Returns
    -------
    list of OptimizerResult
        One optimal result per scenario, in input order (as `solve` returns them).

    Raises
    ------
    ParameterError, JobFailed, JobTimeout
        As `solve`, for the first scenario (in input order) that fails; the others stop.
    KeyboardInterrupt
        Ctrl-C stops every running solve within about 0.2 s.
    """
    _check_threads(threads)
    progress_flag(progress)
    bodies = _scenario_bodies(scenarios)
    workers = min(threads or os.cpu_count() or 1, max(1, len(bodies)))
    token = _core.CancelToken()
    bar = Progress(len(bodies), progress and len(bodies) > 0, "solve_many", "scenario")
    results: list[OptimizerResult | None] = [None] * len(bodies)
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sunflux-solve")
    try:
        futures = {pool.submit(_core.optimizer_solve, body, token): index for index, body in enumerate(bodies)}
        pending = set(futures)
        while pending:
            done, pending = concurrent.futures.wait(pending, timeout=_WAIT, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in done:
                results[futures[future]] = OptimizerResult(future.result())
            bar.advance(len(done))
    except BaseException:
        token.cancel()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        bar.close()
    pool.shutdown(wait=True)
    return [result for result in results if result is not None]
