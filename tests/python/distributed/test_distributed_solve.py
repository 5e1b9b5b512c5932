"""`sunflux.distributed.solve` on a real two-process `LocalCluster`: the results of `solve_many`
in input order (lcc, sizes, the whole summary frame), scenarios sent as JSON text, a worker
killed mid-run costing nothing, a failing scenario named by its index, and bad input refused
before anything is sent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any, Iterator

import polars as pl
import pytest

import sunflux as sf
from support.paths import ROOT
from support.dask_plugins import kill_once
from support.markers import requires_dask
from sunflux.optimizer import Scenario, solve_many, summaries
from sunflux.optimizer.jobs import OptimizerResult
from support.optimizer_documents import pv_only, with_generator

pytestmark = requires_dask

#: PV-only sweeps of the installed cost (each a pure LP of about a second), one with a generator.
COSTS = [900.0, 1600.0, 5000.0]


def sweep() -> list[Any]:
    """Dicts and a `Scenario`, which must travel as its JSON as the dicts do."""
    scenarios: list[Any] = [pv_only(cost) for cost in COSTS] + [with_generator()]
    scenarios[1] = Scenario.from_dict(scenarios[1])
    return scenarios


@pytest.fixture(scope="module")
def dask_client() -> Iterator[Any]:
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster, Client(cluster) as client:
        yield client


@pytest.fixture(scope="module")
def expected() -> list[OptimizerResult]:
    return solve_many(sweep(), threads=2, progress=False)


def assert_same(results: list[OptimizerResult], expected: list[OptimizerResult]) -> None:
    assert len(results) == len(expected)
    for got, want in zip(results, expected):
        assert got.status == want.status == "optimal"
        assert got.outputs.Financial.lcc == want.outputs.Financial.lcc
        assert got.outputs.PV.size_kw == want.outputs.PV.size_kw
        assert got.raw["outputs"] == want.raw["outputs"]
    assert summaries(results).equals(summaries(expected))


class Recording:
    """A distributed client that records what `submit` is given and passes it on."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.submitted: list[tuple[Any, ...]] = []

    def submit(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        self.submitted.append(args)
        return self.client.submit(function, *args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)


@pytest.mark.slow
def test_solve_equals_solve_many_and_scenarios_travel_as_json(dask_client: Any, expected: list[OptimizerResult]) -> None:
    import sunflux.distributed as sd

    recording = Recording(dask_client)
    results = sd.solve(sweep(), client=recording)
    assert_same(results, expected)
    assert [result.outputs.PV.size_kw for result in results[:3]] == sorted((r.outputs.PV.size_kw for r in results[:3]), reverse=True)
    sent = [args[0] for args in recording.submitted]
    assert all(type(text) is str for text in sent)
    assert [json.loads(text) for text in sent] == [s.to_dict() if isinstance(s, Scenario) else s for s in sweep()]
    frame = summaries(results)
    assert frame.height == len(COSTS) + 1 and frame["Generator.size_kw"].to_list() == [None] * len(COSTS) + [50.0]
    assert frame.schema["PV.size_kw"] == pl.Float64


@pytest.mark.slow
def test_the_current_client_is_used_by_default(dask_client: Any, expected: list[OptimizerResult]) -> None:
    import sunflux.distributed as sd
    from distributed import default_client

    assert default_client() is dask_client
    assert_same(sd.solve(sweep()[:2]), expected[:2])
    assert sd.solve([]) == []


NO_CLIENT_SOLVE = """
import sys
sys.path.insert(0, {tests!r})
import sunflux.distributed as sd
from distributed import default_client
from sunflux.optimizer import solve
from support.optimizer_documents import pv_only

if __name__ == "__main__":
    try:
        default_client()
        raise SystemExit("a client exists")
    except ValueError:
        pass
    results = sd.solve([pv_only(900.0), pv_only(1600.0)])
    assert [r.raw["outputs"] for r in results] == [solve(pv_only(c)).raw["outputs"] for c in (900.0, 1600.0)]
    print("same")
"""


@pytest.mark.slow
def test_without_a_client_a_local_cluster_is_made_for_the_call(tmp_path: Any) -> None:
    script = tmp_path / "no_client.py"
    script.write_text(NO_CLIENT_SOLVE.format(tests=str(ROOT / "tests" / "python")))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.split()[-1:] == ["same"], done.stderr[-3000:]


@pytest.mark.slow
def test_a_worker_killed_mid_run(dask_client: Any, expected: list[OptimizerResult], tmp_path: Any) -> None:
    """A worker dies (SIGKILL) as soon as it has finished its first scenario, its result still
    in its memory and the sweep not done: Dask runs what it lost elsewhere, and the results are
    complete and identical."""
    import sunflux.distributed as sd

    marker = str(tmp_path / "killed")

    plugin = kill_once(marker, "sunflux-solve", "sunflux-kill-once-solve")
    dask_client.register_plugin(plugin)
    try:
        results = sd.solve(sweep(), client=dask_client)
    finally:
        dask_client.unregister_worker_plugin(plugin.name)
        dask_client.wait_for_workers(2, timeout=60)
    assert os.path.exists(marker), "a worker was killed during the run"
    assert_same(results, expected)


@pytest.mark.slow
def test_a_failing_scenario_is_named(dask_client: Any) -> None:
    import sunflux.distributed as sd

    nothing_off_grid = {"Settings": {"off_grid_flag": True}, "Site": {"latitude": 39.74, "longitude": -105.17},
                        "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 87600.0}}
    with pytest.raises(sf.JobFailed, match="no optimal solution") as failed:
        sd.solve([pv_only(), nothing_off_grid], client=dask_client)
    assert "in scenarios[1] (sunflux.distributed.solve)" in failed.value.__notes__
    # What the engine refuses (data it would have to fetch) is refused by the worker, as
    # `solve_many` refuses it in its threads.
    reference = pv_only()
    reference["ElectricLoad"] = {"doe_reference_name": "Hospital"}
    with pytest.raises(sf.ParameterError, match="resolve") as refused:
        sd.solve([reference], client=dask_client)
    assert "in scenarios[0] (sunflux.distributed.solve)" in refused.value.__notes__


def test_bad_input_is_refused_before_anything_is_sent() -> None:
    import sunflux.distributed as sd

    class Nothing:
        def submit(self, *args: Any, **kwargs: Any) -> Any:
            raise AssertionError("nothing may be sent")

    broken = pv_only()
    broken["PV"]["max_kw"] = -5
    with pytest.raises(sf.ParameterError, match=r"scenarios\[1\]: .*max_kw"):
        sd.solve([pv_only(), broken], client=Nothing())
    with pytest.raises(sf.ParameterError, match="iterable of Scenario or dict"):
        sd.solve(pv_only(), client=Nothing())  # type: ignore[arg-type]
