"""Optimizer job client against a scripted loopback server: submit, the 404 race right after
POST, "Optimizing..." then optimal, the 200 "An error occurred", the 400 error state, a run stuck
in "Optimizing..." (JobTimeout with the run_uuid), input_errors on POST, and a full results body
(the project's own ``tests/data/scenarios/results_response.json`` with year-long series added)."""

from __future__ import annotations

import datetime
from typing import Any

import polars as pl
import pytest

import sunflux as sf
from support.job_server import body, JobServer, NOT_IN_DB, results_body, scenario, UUID
from support.loopback import LoopbackServer
from sunflux.optimizer.jobs import OptimizerResult


def test_submit_validates_first_and_sends_nothing_when_invalid(loopback: LoopbackServer) -> None:
    server = JobServer(loopback, [(200, body("optimal"))])
    broken = {"Site": {"latitude": 120}, "ElectricLoad": {"loads_kw": [1.0] * 10}}
    with pytest.raises(sf.ParameterError) as caught:
        server.client.optimizer.submit(broken)
    assert any("Site.latitude" in str(p) for p in caught.value.errors)
    assert loopback.seen == []
    assert server.client.optimizer.submit(scenario()) == UUID
    assert server.posted[0]["Site"] == {"latitude": 39.74, "longitude": -105.17}


def test_400_on_post_raises_validation_error_with_input_errors(loopback: LoopbackServer) -> None:
    rejected = {
        "status": "Invalid inputs. No optimization task has been created. See messages for details.",
        "run_uuid": "",
        "messages": {"error": "Invalid inputs.", "input_errors": {"ElectricTariff": ["urdb_label: not found"]}},
    }
    server = JobServer(loopback, [(200, body("optimal"))], post=(400, rejected))
    with pytest.raises(sf.ValidationError) as caught:
        server.client.optimizer.submit(scenario())
    assert caught.value.input_errors == {"ElectricTariff": ["urdb_label: not found"]}  # type: ignore[attr-defined]
    assert "ElectricTariff: urdb_label: not found" in caught.value.errors


def test_run_waits_out_the_404_race_and_optimizing(loopback: LoopbackServer) -> None:
    final = body("optimal", outputs={"PV": {"size_kw": 12.5}, "Financial": {"lcc": 100.0, "npv": 5.0}})
    server = JobServer(loopback, [NOT_IN_DB, NOT_IN_DB, (200, body("Optimizing...")), (200, body("Optimizing...")), (200, final)])
    result = server.client.optimizer.run(scenario(), timeout=10, poll_interval=0.01)
    assert result.optimal and result.outputs.PV.size_kw == 12.5 and result.outputs.Financial.npv == 5.0
    assert len([s for s in loopback.seen if s["method"] == "GET"]) == 5


def test_results_returns_any_state(loopback: LoopbackServer) -> None:
    server = JobServer(loopback, [(200, body("Optimizing..."))])
    state = server.client.optimizer.results(UUID)
    assert state.running and not state.optimal and state.status == "Optimizing..."


@pytest.mark.parametrize(
    "answer",
    [
        (200, body("An error occurred. See messages for more.", messages={"errors": {"timeout": "exceeded"}, "warnings": {}})),
        (400, body("error", messages={"errors": {"REopt": "infeasible"}, "warnings": {}, "has_stacktrace": False})),
    ],
)
def test_terminal_errors_raise_job_failed_with_messages(loopback: LoopbackServer, answer: tuple[int, dict[str, Any]]) -> None:
    server = JobServer(loopback, [(200, body("Optimizing...")), answer])
    with pytest.raises(sf.JobFailed) as caught:
        server.client.optimizer.run(scenario(), timeout=10, poll_interval=0.01)
    assert caught.value.job_id == UUID
    assert caught.value.messages["errors"] == answer[1]["messages"]["errors"]
    assert server.client.optimizer.results(UUID).status == answer[1]["status"]


def test_stuck_run_times_out_with_its_uuid(loopback: LoopbackServer) -> None:
    server = JobServer(loopback, [(200, body("Optimizing..."))])
    with pytest.raises(sf.JobTimeout) as caught:
        server.client.optimizer.run(scenario(), timeout=0.2, poll_interval=0.02)
    assert caught.value.job_id == UUID and caught.value.last_status == "Optimizing..."
    assert f"client.optimizer.results('{UUID}')" in str(caught.value)


def test_unknown_run_after_grace_raises_not_found(loopback: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    import sunflux.optimizer.jobs as jobs

    monkeypatch.setattr(jobs, "NOT_FOUND_GRACE", 0.1)
    server = JobServer(loopback, [NOT_IN_DB])
    with pytest.raises(sf.NotFoundError):
        server.client.optimizer.run(scenario(), timeout=10, poll_interval=0.02)


def test_results_body_parses() -> None:
    """A full optimal body: outputs and inputs by attribute, every year-long series in one frame."""
    raw = results_body()
    result = OptimizerResult(raw)
    assert result.optimal and result.status == "optimal" and not result.running
    assert result.run_uuid == "6f0e3b1c-2d4a-4e5f-9a8b-7c6d5e4f3a21"
    assert result.outputs.PV.size_kw == pytest.approx(262.48)
    assert result.outputs.Financial.lcc == pytest.approx(2861453.27)
    assert result.outputs.Financial.microgrid_upgrade_cost is None
    assert result.inputs.Settings.timeout_seconds == 300
    assert result.messages["errors"] == {} and result.messages["has_stacktrace"] is False
    assert "lcc=2861453.27" in repr(result)
    series = result.series()
    assert series.height == 8760
    assert series.columns == ["timestamp", "ElectricUtility.electric_to_load_series_kw",
                              "ElectricLoad.load_series_kw", "PV.electric_to_load_series_kw",
                              "PV.electric_to_grid_series_kw"]
    assert series.schema["timestamp"] == pl.Datetime("us", "Etc/GMT+7"), "Denver's standard time"
    assert series.schema["PV.electric_to_grid_series_kw"] == pl.Float64
    local = series["timestamp"].dt.replace_time_zone(None)
    assert local[0] == datetime.datetime(2017, 1, 1, 0, 0)
    assert local[-1] == datetime.datetime(2017, 12, 31, 23, 0)
    assert series["ElectricLoad.load_series_kw"].to_list() == raw["outputs"]["ElectricLoad"]["load_series_kw"]
    with pytest.raises(AttributeError, match="outputs.PV has no 'nonexistent'"):
        _ = result.outputs.PV.nonexistent


def test_results_series_follow_the_input_resolution_and_year() -> None:
    """Quarter-hourly inputs give 35,040 rows 15 minutes apart, from 1 January of ElectricLoad.year."""
    raw = results_body(time_steps_per_hour=4)
    raw["inputs"]["ElectricLoad"]["year"] = 2023
    series = OptimizerResult(raw).series()
    assert series.height == 35040
    assert series["timestamp"][1] - series["timestamp"][0] == datetime.timedelta(minutes=15)
    assert series["timestamp"][0] == datetime.datetime(2023, 1, 1, 7, tzinfo=datetime.timezone.utc)
    assert series["timestamp"].dt.replace_time_zone(None)[-1].year == 2023


def test_results_series_take_a_given_zone_and_survive_missing_parts() -> None:
    """``tz=`` names the standard time; a result without series or inputs still has its time axis."""
    raw = results_body()
    kolkata = OptimizerResult(raw).series(tz=5.5)
    assert kolkata.schema["timestamp"] == pl.Datetime("us", "Asia/Kolkata")
    assert kolkata["timestamp"].dt.replace_time_zone(None)[0] == datetime.datetime(2017, 1, 1)
    bare = OptimizerResult({"status": "optimal", "outputs": {}}).series()
    assert bare.columns == ["timestamp"] and bare.height == 8760
    assert bare.schema["timestamp"] == pl.Datetime("us", "UTC")
    no_inputs = OptimizerResult({"status": "optimal", "inputs": None, "outputs": {"Financial": {"lcc": 1.0}}}).series()
    assert no_inputs.height == 8760
