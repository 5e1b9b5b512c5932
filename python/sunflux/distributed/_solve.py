"""`solve`: `sunflux.optimizer.solve` over a Dask cluster, one task per scenario, the same
results as `sunflux.optimizer.solve_many` in input order.

Scenarios travel as their JSON text (checked on the calling machine first), never as pickled
`Scenario` objects, and the text sits in the graph: the scheduler keeps it, so a worker that
dies mid-run costs Dask a rerun of its tasks elsewhere, never a scenario.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from sunflux.optimizer.jobs import OptimizerResult
from sunflux.optimizer.scenario import Scenario
from sunflux.optimizer.solving import _scenario_bodies, _solve_json

__all__ = ["solve"]


def solve(scenarios: Iterable[Scenario | Mapping[str, Any]], *, client: Any = None) -> list[OptimizerResult]:
    """Solves every scenario on the workers of a Dask cluster and returns their results in
    input order: what `sunflux.optimizer.solve_many` returns, computed elsewhere.

    Parameters
    ----------
    scenarios : iterable of Scenario or dict
        Every scenario is checked here, before anything is sent (`ParameterError` naming the
        first bad one by its index), and sent as its JSON text. Each must be self-contained
        (`Scenario.resolve(client)` first), as for `sunflux.optimizer.solve`.
    client : distributed.Client, optional
        The cluster to use: by default the current ``distributed`` client, else a
        ``distributed.LocalCluster`` made for this call (as `bulk_download` does).

    Returns
    -------
    list of OptimizerResult
        One per scenario, in order; `sunflux.optimizer.summaries` makes them one frame.

    Raises
    ------
    ParameterError
        A scenario breaks a rule or needs data it does not hold.
    JobFailed, JobTimeout
        As `sunflux.optimizer.solve`, for the first scenario to fail (a note on the error names
        its index); the tasks not yet started are cancelled.

    A task per scenario runs on one worker thread. A worker that dies (killed, out of memory,
    its node gone) loses nothing: the scheduler runs its tasks again on another worker (up to
    ``distributed.scheduler.allowed-failures`` times per task, 3 by default).
    """
    texts = [body.decode() for body in _scenario_bodies(scenarios)]
    if not texts:
        return []
    if client is not None:
        return _run(client, texts)
    from distributed import Client as DaskClient
    from distributed import LocalCluster, default_client

    try:
        current = default_client()
    except ValueError:  # no client in this process: a cluster for this call
        with LocalCluster(processes=True, dashboard_address=":0") as cluster, DaskClient(cluster) as local:
            return _run(local, texts)
    return _run(current, texts)


def _run(client: Any, texts: list[str]) -> list[OptimizerResult]:
    from distributed import as_completed

    # Each call names its own tasks (the same scenario twice is two tasks; a failed call's
    # cancelled tasks never stand in for the next call's).
    call = uuid.uuid4().hex[:12]
    futures = [
        client.submit(_solve_json, text, key=f"sunflux-solve-{index}-{call}", pure=False) for index, text in enumerate(texts)
    ]
    position = {future.key: index for index, future in enumerate(futures)}
    try:
        for future in as_completed(futures):
            if future.status == "error":
                try:
                    future.result()
                except Exception as error:
                    error.add_note(f"in scenarios[{position[future.key]}] (sunflux.distributed.solve)")
                    raise
        documents = client.gather(futures)
    except BaseException:  # a failed scenario or Ctrl-C: stop what has not started
        client.cancel(futures)
        raise
    return [OptimizerResult(document) for document in documents]
