"""The optimizer job client's Rust paths against a scripted loopback server, in both I/O styles:
the async run's timeout and failure, a 400 that names a run (a state) or does not (an error),
the schedule's arguments checked before anything is sent, answers echoing the key, and the
Utility Rate Database lookups (the label check, the newest matching rate)."""

from __future__ import annotations

import asyncio
import json
import urllib.parse
from typing import Any

import pytest

import sunflux as sf
from support.loopback import LoopbackServer, reply
from support.job_server import NOT_IN_DB, UUID, JobServer, body, scenario

KEY = "a" * 40


def async_client(loopback: LoopbackServer) -> sf.AsyncClient:
    return sf.AsyncClient(api_key=KEY, base_url=loopback.url, routes="spec", retries=0)


def test_the_async_run_times_out_with_its_uuid_and_last_status(loopback: LoopbackServer) -> None:
    JobServer(loopback, [(200, body("Optimizing..."))])

    async def run() -> None:
        await async_client(loopback).optimizer.run(scenario(), timeout=0.2, poll_interval=0.02)

    with pytest.raises(sf.JobTimeout) as caught:
        asyncio.run(run())
    assert caught.value.job_id == UUID and caught.value.last_status == "Optimizing..."
    assert str(caught.value) == f"optimizer run {UUID} still 'Optimizing...' after 0.2 s; resume with client.optimizer.results('{UUID}')"


def test_the_async_run_waits_out_the_404_race_and_reports_a_failure(loopback: LoopbackServer) -> None:
    failed = body("An error occurred. See messages for more.", messages={"errors": {"timeout": "exceeded"}})
    JobServer(loopback, [NOT_IN_DB, (200, body("Optimizing...")), (200, failed)])

    async def run() -> None:
        await async_client(loopback).optimizer.run(scenario(), timeout=10, poll_interval=0.01)

    with pytest.raises(sf.JobFailed) as caught:
        asyncio.run(run())
    assert caught.value.job_id == UUID and caught.value.messages["errors"] == {"timeout": "exceeded"}
    assert str(caught.value) == f"optimizer run {UUID} ended with status 'An error occurred. See messages for more.': {{'timeout': 'exceeded'}}"


def test_a_400_naming_a_run_is_its_state_in_both_styles(loopback: LoopbackServer) -> None:
    errored = body("error", messages={"errors": {"REopt": "infeasible"}})
    server = JobServer(loopback, [(400, errored)])
    state = server.client.optimizer.results(UUID)
    assert (state.http_status, state.status, state.run_uuid, state.running, state.optimal) == (400, "error", UUID, False, False)

    async def results() -> Any:
        return await async_client(loopback).optimizer.results(UUID)

    assert asyncio.run(results()).raw == state.raw


def test_a_400_that_names_no_run_is_a_validation_error(loopback: LoopbackServer) -> None:
    server = JobServer(loopback, [(400, {"status": "error", "messages": {"error": "bad request"}})])
    with pytest.raises(sf.ValidationError):
        server.client.optimizer.results(UUID)


def test_a_results_read_checks_the_run_uuid_before_sending(loopback: LoopbackServer) -> None:
    server = JobServer(loopback, [(200, body("optimal"))])
    with pytest.raises(sf.ParameterError, match="run_uuid must be a UUID string \\(got int\\)"):
        server.client.optimizer.results(12)  # type: ignore[arg-type]
    with pytest.raises(sf.ParameterError, match="run_uuid must be a UUID"):
        server.client.optimizer.results("../admin")
    assert loopback.seen == []


def test_the_run_schedule_is_checked_before_anything_is_sent(loopback: LoopbackServer) -> None:
    server = JobServer(loopback, [(200, body("optimal"))])
    with pytest.raises(sf.ParameterError) as caught:
        server.client.optimizer.run(scenario(), timeout=-1, poll_interval="soon")  # type: ignore[arg-type]
    assert "poll_interval" in str(caught.value) and "timeout" in str(caught.value)
    assert loopback.seen == []


def test_answers_echoing_the_key_reach_no_result_or_error(loopback: LoopbackServer) -> None:
    echoed = body("optimal", messages={"info": f"key {KEY}", "errors": {}, "warnings": {}}, outputs={"Financial": {"lcc": 1.0}})
    rejected = {"status": "Invalid inputs.", "run_uuid": "", "messages": {"input_errors": {"Site": [f"latitude for {KEY}"]}}}
    server = JobServer(loopback, [(200, echoed)])
    result = server.client.optimizer.run(scenario(), timeout=10, poll_interval=0.01)
    assert result.optimal and KEY not in json.dumps(result.raw) and result.messages["info"] == "key ***"
    refusing = JobServer(loopback, [(200, echoed)], post=(400, rejected))
    with pytest.raises(sf.ValidationError) as caught:
        refusing.client.optimizer.submit(scenario())
    assert caught.value.input_errors == {"Site": ["latitude for ***"]}  # type: ignore[attr-defined]
    assert KEY not in str(caught.value) and KEY not in caught.value.body


RATES = {"items": [
    {"label": "a" * 24, "name": "E-19", "startdate": 100},
    {"label": "b" * 24, "name": "E-19", "startdate": 300},
    {"label": "c" * 24, "name": "A-1", "startdate": 900},
]}


def test_the_newest_rate_whose_name_is_part_of_the_rate_name_in_both_styles(loopback: LoopbackServer) -> None:
    loopback.handler = lambda request: reply(request, 200, json.dumps(RATES).encode())
    client = sf.Client(api_key=KEY, base_url="http://127.0.0.1:9", urdb_base_url=loopback.url)
    assert client.optimizer.urdb_rate_by_name("PG&E", "E-19 Medium General Demand")["label"] == "b" * 24
    query = dict(urllib.parse.parse_qsl(str(loopback.seen[0]["path"]).split("?", 1)[1]))
    assert (query["ratesforutility"], query["version"], query["format"]) == ("PG&E", "8", "json")
    with pytest.raises(sf.NotFoundError, match="no rate 'B-6' of 'PG&E'"):
        client.optimizer.urdb_rate_by_name("PG&E", "B-6")

    async def lookups() -> tuple[dict[str, Any], dict[str, Any]]:
        asynchronous = sf.AsyncClient(api_key=KEY, base_url="http://127.0.0.1:9", urdb_base_url=loopback.url)
        return await asynchronous.optimizer.urdb_rate("a" * 24), await asynchronous.optimizer.urdb_rate_by_name("PG&E", "A-1")

    by_label, by_name = asyncio.run(lookups())
    assert by_label["label"] == "a" * 24 and by_name["label"] == "c" * 24


def test_rate_lookups_check_their_arguments_before_sending(loopback: LoopbackServer) -> None:
    client = sf.Client(api_key=KEY, base_url="http://127.0.0.1:9", urdb_base_url=loopback.url)
    with pytest.raises(sf.ParameterError, match=r"24 hexadecimal digits \(got 12\)"):
        client.optimizer.urdb_rate(12)  # type: ignore[arg-type]
    with pytest.raises(sf.ParameterError, match="urdb_utility_name and urdb_rate_name must both be given"):
        client.optimizer.urdb_rate_by_name("PG&E", "")
    assert loopback.seen == []


def test_a_results_document_is_read_from_any_mapping_and_a_bad_value_is_named() -> None:
    from types import MappingProxyType

    from sunflux.optimizer import simulate_outages
    from support.job_server import results_body

    raw = results_body()
    raw["outputs"]["ElectricLoad"]["critical_load_series_kw"] = [50.0] * 8760
    stats = simulate_outages(MappingProxyType(raw))
    assert stats == simulate_outages(raw) and len(stats["resilience_by_time_step"]) == 8760
    raw["outputs"]["ElectricLoad"]["critical_load_series_kw"] = [object()] * 8760
    with pytest.raises(sf.ParameterError, match=r"^result\.outputs\.ElectricLoad\.critical_load_series_kw\[0\] must be a JSON value \(got object\)$"):
        simulate_outages(raw)


WRONG_SHAPES = [
    ({}, "has no status"),
    ({"run_uuid": UUID, "status": ""}, "has no status"),
    ({"run_uuid": UUID, "status": ["optimal"]}, "has no status"),
    ({"run_uuid": UUID, "status": "optimal", "messages": ["x"]}, "has messages of type array where an object is expected"),
    ({"run_uuid": UUID, "status": "optimal", "messages": "x"}, "has messages of type string where an object is expected"),
    ({"run_uuid": UUID, "status": "optimal", "outputs": [1, 2]}, "has outputs of type array where an object is expected"),
    ({"run_uuid": UUID, "status": "optimal", "inputs": 3}, "has inputs of type number where an object is expected"),
    ({"run_uuid": {"a": 1}, "status": "optimal"}, "has a run_uuid of type object where a string is expected"),
]


@pytest.mark.parametrize(("answer", "problem"), WRONG_SHAPES)
def test_a_results_document_of_the_wrong_shape_is_an_api_error_naming_the_run(loopback: LoopbackServer, answer: dict[str, Any], problem: str) -> None:
    server = JobServer(loopback, [(200, answer)])
    for call in (lambda: server.client.optimizer.results(UUID), lambda: server.client.optimizer.run(scenario(), timeout=5, poll_interval=0.01)):
        with pytest.raises(sf.ApiError) as caught:
            call()
        assert type(caught.value) is sf.ApiError and f"for run {UUID} {problem}" in str(caught.value)


def test_a_results_document_without_its_run_uuid_gets_the_one_asked_for(loopback: LoopbackServer) -> None:
    server = JobServer(loopback, [(200, {"status": "optimal", "outputs": None, "messages": None})])
    result = server.client.optimizer.results(UUID)
    assert (result.run_uuid, result.status, result.messages, result.outputs.to_dict()) == (UUID, "optimal", {}, {})
