"""How `client.optimizer.run` polls by default: the first pause 0.05 s, half again each poll, 15 s
at most (docs/design.md, "Optimizer jobs"). Asserted on the schedule and on counted polls, not
on how long a run takes: every check below holds however slowly the machine runs, because
pauses only ever make a run longer."""

from __future__ import annotations

import inspect
import json
import logging
import time

import pytest

import sunflux as sf
from sunflux import _core
from sunflux.optimizer.jobs import AsyncOptimizerService, OptimizerService
from support.loopback import LoopbackServer
from support.job_server import JobServer, body, scenario
from support.optimizer_documents import scenario as solvable


def defaults(service: type) -> tuple[float, float]:
    parameters = inspect.signature(service.run).parameters
    return parameters["poll_interval"].default, parameters["max_interval"].default


def pauses(count: int) -> list[float]:
    """The default schedule's first ``count`` pauses (the crate's one `Backoff`)."""
    poll_interval, max_interval = defaults(OptimizerService)
    schedule = _core.Backoff(poll_interval, max_interval, 1e6)
    return [schedule.next_pause() or 0.0 for _ in range(count)]


def test_both_faces_start_at_a_twentieth_of_a_second() -> None:
    assert defaults(OptimizerService) == defaults(AsyncOptimizerService) == (0.05, 15.0)


def test_the_default_schedule() -> None:
    waits = pauses(20)
    assert waits[:4] == pytest.approx([0.05, 0.075, 0.1125, 0.16875])
    assert max(waits) == 15.0 and waits.index(15.0) == 15
    polled_at = [sum(waits[:k]) for k in range(len(waits) + 1)]
    assert sum(1 for t in polled_at if t <= 1.0) == 6  # a 1 s first pause allowed one poll (at 0)
    assert sum(1 for t in polled_at if t <= 60.0) == 17  # 9 with a 1 s first pause
    # A run is seen at most half its duration plus 0.05 s after it ends: the pause in progress
    # when it ends is never longer than that.
    for k, wait in enumerate(waits):
        assert wait <= polled_at[k] / 2 + 0.05 + 1e-9


def test_a_run_optimal_at_the_fourth_poll_sleeps_the_first_three_pauses(loopback: LoopbackServer) -> None:
    """Scripted answers: three "Optimizing..." then optimal. The client polls exactly four times
    and sleeps 0.05 + 0.075 + 0.1125 s; with the former 1 s start it slept 4.75 s."""
    server = JobServer(loopback, [(200, body("Optimizing..."))] * 3 + [(200, body("optimal", outputs={"Financial": {"lcc": 1.0}}))])
    started = time.monotonic()
    result = server.client.optimizer.run(scenario())
    elapsed = time.monotonic() - started
    assert result.optimal
    assert [seen["method"] for seen in loopback.seen] == ["POST"] + ["GET"] * 4
    assert sum(pauses(3)) == pytest.approx(0.2375)
    assert elapsed >= 0.2375
    assert elapsed < 4.75  # what the first three pauses alone took before


def test_the_embedded_service_is_polled_on_the_default_schedule(caplog: pytest.LogCaptureFixture) -> None:
    """A small run of the embedded service with the default arguments: the polls (counted by the
    service and in the client's debug log) are spaced by at least the schedule's pauses, and the
    last pause, the most the client can have waited past the run's end, is within half the
    run plus 0.05 s (with the former 1 s start it was at least 1 s for any run)."""
    document = solvable()
    for section in ("PV", "ElectricStorage"):
        del document[section]  # the load and the tariff: the smallest run there is
    with sf.LocalService() as service, caplog.at_level(logging.DEBUG, logger="sunflux"):
        started = time.monotonic()
        result = service.client().optimizer.run(document)
        elapsed = time.monotonic() - started
        hits = service.hits()
    assert result.optimal
    polls = [count for path, count in hits.items() if path.endswith("/results/")]
    assert len(polls) == 1
    count = polls[0]
    logged = [record.created for record in caplog.records if "/results/" in record.getMessage()]
    assert len(logged) == count, [record.getMessage() for record in caplog.records]
    waits = pauses(count - 1)
    gaps = [later - earlier for earlier, later in zip(logged, logged[1:])]
    assert all(gap >= wait - 0.005 for gap, wait in zip(gaps, waits)), (gaps, waits)
    assert sum(waits) <= elapsed
    last = waits[-1] if waits else 0.0
    assert last <= elapsed / 2 + 0.05, (count, elapsed)
    print(json.dumps({"polls": count, "elapsed_s": round(elapsed, 3), "slept_s": round(sum(waits), 3), "last_pause_s": round(last, 3)}))
