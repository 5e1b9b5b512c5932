"""Technical potential (the deprecated RE Data Explorer service): configuration queries, job
validation against the configuration and the canonical numbers-as-strings body (captured on a
loopback server), the job state machine, deletion, failure statuses, timeouts and re-attaching,
server-side 400s, the once-per-process DeprecationWarning, parsing of the live bodies from the
facts note, and results that follow from the filters on the embedded service."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from typing import Any, Iterator
from urllib.parse import parse_qs, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sunflux as sf
from sunflux import _core
from sunflux.technical_potential import DEPRECATION_MESSAGE, Configuration, JobResult, JobState, TechnicalPotentialJob

from support.paths import DATA
from support.loopback import LoopbackServer, reply

pytestmark = pytest.mark.filterwarnings("ignore:The technical potential service is deprecated:DeprecationWarning")

CONFIG_BODY = (DATA / "tp_config_india.json").read_bytes()
QUEUED_BODY = (DATA / "tp_job_queued.json").read_bytes()
STARTED_BODY = (DATA / "tp_job_started.json").read_bytes()
FINISHED_BODY = (DATA / "tp_job_finished.json").read_bytes()
LIVE_POST_BODY = json.loads((DATA / "tp_job_post_body.json").read_text())

JOB_PATH = "/api/opencarto/rede/v1/technical-potential"
SPEC_RESOURCE_KEYS = {"fixlat", "csp", "axis1", "wind_t200", "wind_t237", "wind_t245", "wind_t255", "wind_t325"}
CORRIDOR_DISTANCES = [1, 5, 10, 15, 20, 50, 100]
LAND_USE_TYPES: list[str] = next(
    field["fieldValues"]
    for field in json.loads(CONFIG_BODY)["outputs"][0]["availableResources"][0]["inputFields"]
    if field["fieldName"] == "limitByLandUse"
)
TOTALS = ("total_nameplate_capacity_mw", "total_ac_generation_mwh", "total_land_area_sq_km")
CLASS_COLUMNS = {"total_nameplate_capacity_mw": "nameplate_capacity_mw", "total_ac_generation_mwh": "ac_generation_mwh",
                 "total_land_area_sq_km": "land_area_sq_km"}
HOURS_PER_YEAR = 8760


@dataclass
class Instant:
    """An embedded service whose jobs finish at once, and a client whose configuration is cached."""

    service: sf.LocalService
    client: sf.Client

    def run(self, region: str, resource: str, **fields: Any) -> JobResult:
        job = self.client.technical_potential.submit("rede", region, resource, **fields)
        return job.wait(timeout=10, poll_interval=0.01)


@pytest.fixture(scope="module")
def instant() -> Iterator[Instant]:
    """One job run up front caches the configuration, so later submits send only their POST."""
    with sf.LocalService(jobs=sf.JobSettings(start_delay=0, run_time=0)) as service:
        setup = Instant(service, service.client())
        setup.run("India", "fixlat")
        yield setup


@pytest.fixture(scope="module")
def india_fixlat(instant: Instant) -> JobResult:
    return instant.run("India", "fixlat")


def quick_service(explorers: tuple[str, ...] = (), **job_settings: Any) -> sf.LocalService:
    """An embedded service whose jobs take 0.05 s queued and 0.1 s started unless told otherwise."""
    return sf.LocalService(explorers=explorers, jobs=sf.JobSettings(**{"start_delay": 0.05, "run_time": 0.1, **job_settings}))


def poll_until(job: TechnicalPotentialJob, status: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while job.status().status != status:
        assert time.monotonic() < deadline, f"job {job.job_id} never reached {status}"
        time.sleep(0.01)


def near(total: float, parts: list[float]) -> bool:
    """``parts`` add up to ``total`` within the 0.01 rounding of each of them and of the total."""
    return abs(sum(parts) - total) <= 0.005 * (len(parts) + 1) + 1e-9 * abs(total)


# ---------------------------------------------------------------------------------------------
# Configuration


def test_config_lists_every_region_with_its_resources_and_fields(instant: Instant) -> None:
    config = instant.client.technical_potential.config("rede")
    assert [(r.label, r.id) for r in config.regions] == [("India", 6), ("Bangladesh", 3), ("Kenya", 12)]
    assert config.version == "1.0.0-local" and config.inputs == {}
    india = config.region("india")
    assert {r.key for r in india.resources} == SPEC_RESOURCE_KEYS
    wind = india.resource("wind_t200")
    assert india.resource("WIND T-200") is wind and india.resource(32) is wind
    assert (wind.id, wind.label, wind.default_power_density) == (32, "Wind T-200", 3)
    fields = {f.field_name: f for f in wind.input_fields}
    assert fields["limitByWindSpeed"].default_value == {"min": 3, "max": None}
    assert fields["limitToTransmissionCorridors"].field_values["distance"] == CORRIDOR_DISTANCES
    assert fields["limitByLandUse"].field_values == LAND_USE_TYPES
    assert "Chhattisgarh" in fields["limitByGeographicExtent"].field_values
    table = config.to_polars()
    assert table.height == sum(len(res.input_fields) for region in config.regions for res in region.resources)
    assert table.filter(table["region_label"] == "Kenya")["resource_key"].unique().sort().to_list() == sorted(
        r.key for r in config.region("Kenya").resources
    )


def test_an_empty_answer_is_no_configuration(loopback: LoopbackServer) -> None:
    loopback.handler = lambda request: reply(request, 200, b"{}")
    client = sf.Client(api_key="k" * 40, base_url=loopback.url, retries=0)
    with pytest.raises(sf.ApiError, match="outputs.*missing"):
        client.technical_potential.config("rede")


def test_config_records_are_the_public_dataclasses_typed_by_the_core(instant: Instant) -> None:
    import dataclasses

    from sunflux.technical_potential import InputField, Region, Resource

    india = instant.client.technical_potential.config("rede").region("India")
    assert type(india) is Region and dataclasses.is_dataclass(india)
    resource = india.resources[0]
    assert type(resource) is Resource and all(type(f) is InputField for f in resource.input_fields)
    assert type(resource.default_power_density) is float and type(resource.id) is int
    assert dataclasses.replace(india) == india
    assert repr(india).startswith("Region(id=6, region_id=6, label='India', resources=[Resource(id=")


def test_config_by_countries_keeps_configuration_order_and_ignores_unknown_names(instant: Instant) -> None:
    config = instant.client.technical_potential.config("rede", countries=["kenya", "India", "Atlantis"])
    assert [r.label for r in config.regions] == ["India", "Kenya"]
    assert config.inputs == {"countries": "kenya,India,Atlantis"}
    assert instant.client.technical_potential.config("rede", countries="Atlantis").regions == []


@pytest.mark.parametrize(
    ("wkt", "labels"),
    [("POINT(77.216 28.644)", ["India"]), ("POINT(36.82 -1.29)", ["Kenya"]), ("POINT(90.4 23.8)", ["Bangladesh"]), ("POINT(0 0)", [])],
)
def test_config_by_point_is_the_region_containing_it(instant: Instant, wkt: str, labels: list[str]) -> None:
    config = instant.client.technical_potential.config("rede", wkt=wkt)
    assert [r.label for r in config.regions] == labels
    assert config.inputs == {"wkt": wkt}


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"countries": "India", "wkt": "POINT(77.216 28.644)"}, "countries and wkt"),
        ({"wkt": "POINT(200 0)"}, "wkt"),
        ({"wkt": "LINESTRING(0 0, 1 1)"}, "wkt"),
        ({"countries": " , "}, "countries"),
    ],
)
def test_bad_config_query_is_refused_before_sending(instant: Instant, query: dict[str, str], named: str) -> None:
    before = instant.service.hits()
    with pytest.raises(sf.ParameterError) as caught:
        instant.client.technical_potential.config("rede", **query)  # type: ignore[arg-type]
    assert caught.value.errors[0].startswith(f"{named}:")
    assert instant.service.hits() == before


def test_other_explorer_names_are_served_when_configured() -> None:
    with quick_service(explorers=("myexplorer", "re-de_2")) as service:
        client = service.client()
        rede = client.technical_potential.config("rede")
        mine = client.technical_potential.config("myexplorer")
        assert [r.label for r in mine.regions] == [r.label for r in rede.regions]
        job = client.technical_potential.submit("re-de_2", "Kenya", "csp")
        assert job.explorer == "re-de_2"
        assert job.wait(timeout=10, poll_interval=0.02).resource_type == "csp"
        assert service.hits()["/api/opencarto/re-de_2/v1/technical-potential"] >= 2
        with pytest.raises(sf.NotFoundError) as caught:
            client.technical_potential.config("unserved")
        assert caught.value.status == 404
        assert caught.value.errors == ["explorer 'unserved' is not served here; served explorers: rede, myexplorer, re-de_2"]


@pytest.mark.parametrize("explorer", ["re de", "rede/../admin", "", "réde", "rede?x=1"])
def test_explorer_names_with_bad_characters_are_refused_before_sending(instant: Instant, explorer: str) -> None:
    before = instant.service.hits()
    service = instant.client.technical_potential
    calls = [
        lambda: service.config(explorer),
        lambda: service.submit(explorer, "India", "fixlat"),
        lambda: service.job(explorer, "tpot_result_india_1001").status(),
        lambda: service.job(explorer, "tpot_result_india_1001").delete(),
    ]
    for call in calls:
        with pytest.raises(sf.ParameterError) as caught:
            call()
        assert caught.value.errors[0].startswith("explorer must be a name of letters, digits")
    assert instant.service.hits() == before


WAITED_JOB = "tpot_result_india_1001"


@pytest.mark.parametrize(
    ("job_id", "schedule", "problem"),
    [
        (WAITED_JOB, {"poll_interval": -1.0}, "poll_interval must be a number of seconds >= 0 (got -1.0)"),
        (WAITED_JOB, {"max_interval": float("nan")}, "max_interval must be a number of seconds >= 0 (got NaN)"),
        (WAITED_JOB, {"timeout": float("inf")}, "timeout must be a number of seconds >= 0 (got inf)"),
        (WAITED_JOB, {"timeout": -0.5}, "timeout must be a number of seconds >= 0 (got -0.5)"),
        ("", {}, "job_id must not be empty: use the id submit() returned"),
        (" ", {}, "job_id must not be empty: use the id submit() returned"),
    ],
)
def test_a_wait_with_bad_arguments_is_refused_before_sending(instant: Instant, job_id: str, schedule: dict[str, float], problem: str) -> None:
    """The core's wait and the client's ``job(...).wait`` check the schedule and the job alike."""
    arguments = {"timeout": 10.0, "poll_interval": 0.01, "max_interval": 15.0, **schedule}
    before = instant.service.hits()
    with pytest.raises(sf.ParameterError) as core:
        _core.technical_potential_wait(
            instant.client._transport, "rede", job_id, arguments["timeout"], arguments["poll_interval"], arguments["max_interval"]
        )
    with pytest.raises(sf.ParameterError) as public:
        instant.client.technical_potential.job("rede", job_id).wait(**arguments)
    assert core.value.errors == public.value.errors == [problem]
    assert instant.service.hits() == before


def test_every_problem_of_a_wait_is_reported_at_once(instant: Instant) -> None:
    job = instant.client.technical_potential.job("rede", "")
    with pytest.raises(sf.ParameterError) as caught:
        job.wait(timeout=float("inf"), poll_interval=-1, max_interval=float("nan"))
    assert [problem.split(" must ")[0] for problem in caught.value.errors] == ["job_id", "poll_interval", "max_interval", "timeout"]
    with pytest.raises(sf.ParameterError, match="job_id must be at most"):
        instant.client.technical_potential.job("rede", "x" * 10_000).wait(timeout=1)


# ---------------------------------------------------------------------------------------------
# Job validation (client side) and the body sent


@pytest.mark.parametrize(
    ("region", "resource", "fields", "named"),
    [
        pytest.param("India", "fixlat", {"limitByWindSpeed": {"min": 3}}, "limitByWindSpeed", id="field-of-another-resource"),
        pytest.param("India", "fixlat", {"limitByDaylight": {"min": 3}}, "limitByDaylight", id="unknown-field"),
        pytest.param("India", "fixlat", {"excludeProtectedAreas": "yes"}, "excludeProtectedAreas", id="boolean-as-word"),
        pytest.param("India", "fixlat", {"excludeProtectedAreas": 1}, "excludeProtectedAreas", id="boolean-as-number"),
        pytest.param("India", "fixlat", {"limitBySlope": {"min": 5, "max": 1}}, "limitBySlope", id="slope-min-above-max"),
        pytest.param("India", "wind_t200", {"limitByWindSpeed": {"min": "9", "max": 4}}, "limitByWindSpeed", id="wind-min-above-max"),
        pytest.param("India", "fixlat", {"limitBySlope": {"max": 10, "step": 1}}, "limitBySlope", id="range-with-extra-key"),
        pytest.param("India", "fixlat", {"limitToTransmissionCorridors": {"distance": 7}}, "limitToTransmissionCorridors.distance",
                     id="distance-not-offered"),
        pytest.param("India", "csp", {"limitToRoadCorridors": {"distance": 5, "units": "leagues"}}, "limitToRoadCorridors.units",
                     id="units-not-km-or-miles"),
        pytest.param("India", "csp", {"limitToRoadCorridors": {"distance": 5, "units": "meters"}}, "limitToRoadCorridors.units",
                     id="units-meters"),
        pytest.param("India", "fixlat", {"limitByLandUse": ["Water Bodies", "Moon Dust"]}, "limitByLandUse", id="land-use-not-in-spec"),
        pytest.param("India", "fixlat", {"limitByGeographicExtent": ["Atlantis"]}, "limitByGeographicExtent", id="extent-unknown"),
        pytest.param("India", "fixlat", {"limitByGeographicExtent": ["Nairobi"]}, "limitByGeographicExtent",
                     id="extent-of-another-country"),
        pytest.param("India", "fixlat", {"limitByGeographicExtent": []}, "limitByGeographicExtent", id="extent-empty"),
        pytest.param("India", "fixlat", {"powerDensity": 0}, "powerDensity", id="power-density-zero"),
        pytest.param("Atlantis", "fixlat", {}, "region", id="unknown-region"),
        pytest.param("India", "wind_t999", {}, "resource", id="unknown-resource"),
        pytest.param("Bangladesh", "csp", {}, "resource", id="resource-not-offered-in-region"),
    ],
)
def test_invalid_job_is_refused_naming_the_field_and_nothing_is_sent(
    instant: Instant, region: str, resource: str, fields: dict[str, Any], named: str
) -> None:
    before = instant.service.hits()
    with pytest.raises(sf.ParameterError) as caught:
        instant.client.technical_potential.submit("rede", region, resource, **fields)
    assert len(caught.value.errors) == 1, caught.value.errors
    assert caught.value.errors[0].startswith(f"{named}:"), caught.value.errors
    assert instant.service.hits() == before


def test_every_problem_of_a_job_is_reported_at_once(instant: Instant) -> None:
    with pytest.raises(sf.ParameterError) as caught:
        instant.client.technical_potential.submit(
            "rede", "India", "fixlat", excludeProtectedAreas="maybe", limitBySlope={"min": 9, "max": 2}, limitByLandUse=["Lava"]
        )
    assert [error.split(":")[0] for error in caught.value.errors] == ["excludeProtectedAreas", "limitBySlope", "limitByLandUse"]
    assert str(caught.value).startswith("3 problems:")


def technical_potential_loopback_handler(request: Any) -> None:
    """Answers the configuration GET with the live India configuration and the POST with the
    live queued answer."""
    reply(request, 200, CONFIG_BODY if request.command == "GET" else QUEUED_BODY)


def loopback_client(loopback: LoopbackServer) -> sf.Client:
    loopback.handler = technical_potential_loopback_handler
    return sf.Client(api_key="k" * 40, base_url=loopback.url)


def posted_json(loopback: LoopbackServer) -> dict[str, Any]:
    posts = [seen for seen in loopback.seen if seen["method"] == "POST"]
    assert len(posts) == 1
    assert urlsplit(str(posts[0]["path"])).path == JOB_PATH
    return json.loads(posts[0]["body"])  # type: ignore[arg-type]


def leaves(value: Any) -> Iterator[Any]:
    """Every scalar inside nested dicts and lists."""
    if isinstance(value, dict):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, list):
        for item in value:
            yield from leaves(item)
    else:
        yield value


def test_native_values_are_sent_as_the_live_docs_body(loopback: LoopbackServer) -> None:
    client = loopback_client(loopback)
    job = client.technical_potential.submit(
        "rede",
        "India",
        "Wind T-200",
        limitByLandUse=["urban and built-up land", "Water Bodies", "Wooded Wetland"],
        limitByGeographicExtent=["Andaman and Nicobar", "chhattisgarh"],
        limitByWindSpeed={"min": 3, "max": 20.0},
        powerDensity=3,
        limitToRoadCorridors={"distance": 50.0},
        limitToTransmissionCorridors={"distance": "50", "units": "Kilometers"},
        limitBySlope={"min": 1, "max": 12},
        excludeProtectedAreas=True,
    )
    sent = posted_json(loopback)
    assert list(sent.items()) == list(LIVE_POST_BODY.items())
    assert all(isinstance(leaf, str) for leaf in leaves(sent))
    post = next(seen for seen in loopback.seen if seen["method"] == "POST")
    headers = {name.lower(): value for name, value in post["headers"].items()}  # type: ignore[attr-defined]
    assert headers["content-type"].startswith("application/json")
    assert job.job_id == "tpot_result_india_3513"


@pytest.mark.parametrize(
    ("resource", "fields", "body"),
    [
        pytest.param("fixlat", {}, {"region": "6", "resource": "14", "powerDensity": "36",
                                    "limitBySolarResource": {"min": "2", "max": "9"}}, id="solar-defaults"),
        pytest.param("32", {}, {"region": "6", "resource": "32", "powerDensity": "3", "limitByWindSpeed": {"min": "3"}},
                     id="wind-default-has-no-max"),
        pytest.param("csp", {"excludeProtectedAreas": "TRUE", "powerDensity": 2.5, "limitBySlope": {"max": 0.5, "min": None}},
                     {"region": "6", "resource": "15", "excludeProtectedAreas": "true", "limitBySlope": {"max": "0.5"},
                      "limitBySolarResource": {"min": "2", "max": "9"}, "powerDensity": "2.5"}, id="fractions-and-open-sides"),
        pytest.param("axis1", {"limitBySolarResource": {"min": 5}, "limitToRoadCorridors": {"distance": 10, "units": "miles"}},
                     {"region": "6", "resource": "13", "powerDensity": "31", "limitBySolarResource": {"min": "5"},
                      "limitToRoadCorridors": {"distance": "10", "units": "miles"}}, id="given-range-replaces-default"),
    ],
)
def test_defaults_are_filled_and_every_scalar_is_a_string(
    loopback: LoopbackServer, resource: str, fields: dict[str, Any], body: dict[str, Any]
) -> None:
    loopback_client(loopback).technical_potential.submit("rede", "6", resource, **fields)
    assert list(posted_json(loopback).items()) == list(body.items())


def test_config_query_parameters_on_the_wire(loopback: LoopbackServer) -> None:
    client = loopback_client(loopback)
    client.technical_potential.config("rede", countries=["India", "Kenya"])
    client.technical_potential.config("rede", wkt="POINT(77.216 28.644)")
    queries = [parse_qs(urlsplit(str(seen["path"])).query) for seen in loopback.seen]
    assert [urlsplit(str(seen["path"])).path for seen in loopback.seen] == [f"{JOB_PATH}/config"] * 2
    assert queries == [{"countries": ["India,Kenya"]}, {"wkt": ["POINT(77.216 28.644)"]}]


# ---------------------------------------------------------------------------------------------
# Hand-sent bodies: the embedded service validates too


@pytest.mark.parametrize(
    ("body", "error_starts"),
    [
        pytest.param([1], ["request body must be a JSON object"], id="not-an-object"),
        pytest.param(b"{nope", ["request body is not valid JSON"], id="not-json"),
        pytest.param({"powerDensity": "3"}, ["region: required", "resource: required"], id="no-region-no-resource"),
        pytest.param({"region": "Atlantis", "resource": "14"}, ["region: 'Atlantis' is not a region"], id="unknown-region"),
        pytest.param({"region": "6", "resource": "14", "excludeProtectedAreas": "yes", "limitBySlope": {"min": "5", "max": "1"}},
                     ["excludeProtectedAreas: expected true or false", "limitBySlope: min 5 is greater than max 1"], id="bad-fields"),
        pytest.param({"region": "6", "resource": "14", "limitToTransmissionCorridors": {"distance": "7", "units": "kilometers"}},
                     ["limitToTransmissionCorridors.distance: 7 is not offered"], id="distance-not-offered"),
    ],
)
def test_bad_post_bodies_get_400_with_every_error_and_no_job(body: Any, error_starts: list[str]) -> None:
    with quick_service() as service:
        client = service.client()
        with pytest.raises(sf.ValidationError) as caught:
            client.request("POST", "technical_potential_job", args={"explorer": "rede"}, json=body)
        assert caught.value.status == 400
        assert len(caught.value.errors) == len(error_starts)
        for error, start in zip(caught.value.errors, error_starts):
            assert error.startswith(start), caught.value.errors
        envelope = json.loads(caught.value.body)
        assert (envelope["status"], envelope["outputs"]) == (400, {})
        assert service.hits()[JOB_PATH] == 1
        assert client.technical_potential.submit("rede", "India", "fixlat").job_id == "tpot_result_india_1001"


def test_live_docs_post_body_is_accepted_as_sent(instant: Instant) -> None:
    answer = instant.client.request("POST", "technical_potential_job", args={"explorer": "rede"}, json=LIVE_POST_BODY).json()
    assert answer["inputs"] == LIVE_POST_BODY
    assert answer["outputs"]["status"] == "queued" and answer["outputs"]["jobId"].startswith("tpot_result_india_")
    result = instant.client.technical_potential.job("rede", answer["outputs"]["jobId"]).wait(timeout=10, poll_interval=0.01)
    assert (result.resource_type, result.units) == ("wind_t200", "m/s")
    assert list(result.regional) == ["Andaman and Nicobar", "Chhattisgarh"]


# ---------------------------------------------------------------------------------------------
# The state machine, deletion, failures, timeouts


def test_job_moves_queued_started_finished_with_growing_runtime() -> None:
    with quick_service(start_delay=0.15, run_time=0.25) as service:
        job = service.client().technical_potential.submit("rede", "India", "wind_t200")
        states: list[JobState] = [job.status()]
        with pytest.raises(sf.ParameterError, match="call wait"):
            job.result  # noqa: B018 - a queued job has no result yet
        deadline = time.monotonic() + 10
        while not states[-1].finished and time.monotonic() < deadline:
            time.sleep(0.01)
            states.append(job.status())
    statuses = [state.status for state in states]
    assert [s for i, s in enumerate(statuses) if i == 0 or s != statuses[i - 1]] == ["queued", "started", "finished"]
    assert all(state.disposition == state.status for state in states)
    assert {state.runtime_seconds for state in states if state.status == "queued"} == {0.0}
    started = [state.runtime_seconds or 0.0 for state in states if state.status == "started"]
    assert started == sorted(started) and started[0] < started[-1] and 0 < started[-1] <= 0.25
    finished = states[-1]
    assert isinstance(finished, JobResult) and not any(isinstance(state, JobResult) for state in states[:-1])
    assert finished.runtime_seconds == 0.25
    assert finished.map_data_deleted is False
    assert job.result is finished


def test_delete_keeps_the_summary_and_marks_map_data_deleted() -> None:
    with quick_service() as service:
        client = service.client()
        job = client.technical_potential.submit("rede", "Kenya", "wind_t245", limitBySlope={"max": 10})
        finished = job.wait(timeout=10, poll_interval=0.02)
        deleted = job.delete()
        assert (finished.map_data_deleted, deleted.map_data_deleted) == (False, True)
        assert deleted.status == "finished"
        assert deleted.outputs["results"] == finished.outputs["results"]
        assert deleted.cumulative == finished.cumulative and deleted.regional == finished.regional
        again = job.delete()
        assert again.outputs == deleted.outputs
        polled = service.client().technical_potential.job("rede", job.job_id).status()
        assert isinstance(polled, JobResult) and polled.outputs == deleted.outputs


def test_delete_before_finished_is_refused_and_changes_nothing() -> None:
    with quick_service(start_delay=0.15, run_time=0.3) as service:
        job = service.client().technical_potential.submit("rede", "India", "fixlat")
        for status in ("queued", "started"):
            poll_until(job, status)
            with pytest.raises(sf.ApiError) as caught:
                job.delete()
            assert caught.value.status == 409
            assert caught.value.errors == [f"job '{job.job_id}' is {status}: only a finished job can be deleted"]
        assert job.wait(timeout=10, poll_interval=0.02).map_data_deleted is False


def test_unknown_and_missing_job_ids_are_errors(instant: Instant) -> None:
    unknown = instant.client.technical_potential.job("rede", "tpot_result_india_999999")
    for call in (unknown.status, unknown.delete, lambda: unknown.wait(timeout=1)):
        with pytest.raises(sf.NotFoundError) as caught:
            call()
        assert caught.value.errors == ["no job with jobId 'tpot_result_india_999999'"]
    for method in ("GET", "DELETE"):
        with pytest.raises(sf.ValidationError) as missing:
            instant.client.request(method, "technical_potential_job", args={"explorer": "rede"})
        assert (missing.value.status, missing.value.errors) == (400, ["jobId: required (the id returned by the job POST)"])


@pytest.mark.parametrize("status", ["failed", "crashed", "Error"])
def test_job_ending_in_an_unknown_status_raises_job_failed(status: str) -> None:
    with quick_service(failure_status=status, failure_message="raster processing failed", failure_region="Bangladesh") as service:
        client = service.client()
        failing = client.technical_potential.submit("rede", "Bangladesh", "fixlat")
        fine = client.technical_potential.submit("rede", "India", "fixlat")
        with pytest.raises(sf.JobFailed) as caught:
            failing.wait(timeout=10, poll_interval=0.02)
        assert (caught.value.job_id, caught.value.status) == (failing.job_id, status)
        assert str(caught.value) == f'technical potential job {failing.job_id} ended with status "{status}": raster processing failed'
        with pytest.raises(sf.JobFailed):
            client.technical_potential.job("rede", failing.job_id).status()
        assert fine.wait(timeout=10, poll_interval=0.02).finished


def test_job_failed_carries_the_body_errors_as_messages() -> None:
    with quick_service(failure_status="failed", failure_message="raster processing failed") as service:
        job = service.client().technical_potential.submit("rede", "India", "fixlat")
        with pytest.raises(sf.JobFailed) as caught:
            job.wait(timeout=10, poll_interval=0.02)
    assert caught.value.messages == ["raster processing failed"]


def test_wait_times_out_with_the_job_id_and_the_job_can_be_resumed() -> None:
    with quick_service(start_delay=0.4, run_time=0.05) as service:
        job = service.client().technical_potential.submit("rede", "India", "csp")
        started = time.monotonic()
        with pytest.raises(sf.JobTimeout) as caught:
            job.wait(timeout=0.05, poll_interval=0.01)
        assert time.monotonic() - started < 0.3
        assert isinstance(caught.value, TimeoutError)
        assert (caught.value.job_id, caught.value.last_status) == (job.job_id, "queued")
        assert f"client.technical_potential.job('rede', '{job.job_id}').wait()" in str(caught.value)
        resumed = service.client().technical_potential.job("rede", caught.value.job_id)
        result = resumed.wait(timeout=10, poll_interval=0.02)
        assert result.resource_type == "csp"
        assert result.outputs == job.wait(timeout=1, poll_interval=0.02).outputs


# ---------------------------------------------------------------------------------------------
# The once-per-process DeprecationWarning


@pytest.mark.parametrize(
    "first_call",
    [
        'client.technical_potential.config("rede")',
        'client.technical_potential.submit("rede", "India", "fixlat")',
        'client.technical_potential.job("rede", "tpot_result_india_1001")',
    ],
)
def test_deprecation_warning_is_issued_once_per_process_at_the_caller(first_call: str) -> None:
    script = textwrap.dedent(
        f"""\
        import sunflux as sf
        with sf.LocalService(jobs=sf.JobSettings(start_delay=0, run_time=0)) as svc:
            client = svc.client()
            {first_call}
            job = client.technical_potential.submit("rede", "Kenya", "csp")
            client.technical_potential.job("rede", job.job_id).wait(timeout=10, poll_interval=0.01)
            svc.client().technical_potential.config("rede", countries="India")
        """
    )
    done = subprocess.run([sys.executable, "-W", "always", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("DeprecationWarning") == 1, done.stderr
    assert f"<string>:4: DeprecationWarning: {DEPRECATION_MESSAGE}" in done.stderr


# ---------------------------------------------------------------------------------------------
# The live bodies of the facts note


def test_live_configuration_body_parses() -> None:
    config = Configuration(_core.parse_technical_potential_configuration(CONFIG_BODY))
    assert (config.version, config.inputs) == ("1.0.0", {"wkt": "POINT(77.216 28.644)"})
    (india,) = config.regions
    assert (india.id, india.region_id, india.label) == (6, 6, "India")
    assert {r.key for r in india.resources} == SPEC_RESOURCE_KEYS
    assert (india.resource("14").key, india.resource("fixlat").default_power_density) == ("fixlat", 36)
    csp_fields = {f.field_name: f for f in india.resource("csp").input_fields}
    assert (csp_fields["limitBySolarResource"].field_id, csp_fields["limitBySolarResource"].default_value) == (2, {"min": 2, "max": 9})
    assert csp_fields["limitToRoadCorridors"].field_values == {"distance": CORRIDOR_DISTANCES, "units": ["kilometers"]}
    table = config.to_polars()
    assert table.height == 8 * 8
    assert table.filter(table["resource_key"] == "wind_t325")["field_name"].to_list()[-3:] == [
        "limitByWindSpeed", "limitByGeographicExtent", "limitByLandUse"]


def test_live_queued_and_started_bodies_parse() -> None:
    queued = JobState(_core.parse_technical_potential_job(QUEUED_BODY))
    assert (queued.status, queued.finished, queued.runtime_seconds) == ("queued", False, None)
    started = JobState(_core.parse_technical_potential_job(STARTED_BODY))
    assert (started.status, started.disposition, started.runtime_seconds) == ("started", "started", 26.98)


def test_live_finished_body_parses_with_classes_adding_up() -> None:
    result = JobResult(_core.parse_technical_potential_job(FINISHED_BODY))
    assert (result.status, result.finished, result.map_data_deleted, result.runtime_seconds) == ("finished", True, True, 33)
    assert (result.resource_type, result.units) == ("wind_t200", "kWh/m<sup>2</sup>/day")
    cumulative = result.cumulative
    assert (cumulative.total_nameplate_capacity_mw, cumulative.total_land_area_sq_km, cumulative.min, cumulative.max) == (
        159505.72, 53168.58, 0, 6)
    assert cumulative.classes.columns == ["min", "max", "nameplate_capacity_mw", "ac_generation_mwh", "land_area_sq_km"]
    assert cumulative.classes["min"].to_list() == [0.001, 4, 4.5, 5, 5.5, 6]
    for total, column in CLASS_COLUMNS.items():
        assert near(getattr(cumulative, total), cumulative.classes[column].to_list()), total
    assert list(result.regional) == ["Chhattisgarh"]
    chhattisgarh = result.regional["Chhattisgarh"]
    assert (chhattisgarh.min, chhattisgarh.max) == (1, 6)
    assert chhattisgarh.classes.equals(cumulative.classes)


def test_failure_body_from_elsewhere_parses_without_raising() -> None:
    core = _core.parse_technical_potential_job(b'{"outputs": {"status": "error", "disposition": "error"}, "errors": ["no raster"], "status": 200}')
    assert (core.status, core.errors, core.runtime_seconds) == ("error", ["no raster"], None)


# ---------------------------------------------------------------------------------------------
# Results follow from the filters


@pytest.mark.parametrize(
    "fields",
    [
        {"excludeProtectedAreas": True},
        {"limitBySlope": {"max": 1}},
        {"limitBySlope": {"min": 2}},
        {"limitToTransmissionCorridors": {"distance": 10}},
        {"limitToRoadCorridors": {"distance": 5, "units": "miles"}},
        {"limitByLandUse": ["Urban and Built-Up Land"]},
        {"limitBySolarResource": {"min": 6}},
        {"limitByGeographicExtent": ["Delhi", "Gujarat"]},
    ],
    ids=lambda fields: next(iter(fields)),
)
def test_each_filter_removes_land(instant: Instant, india_fixlat: JobResult, fields: dict[str, Any]) -> None:
    filtered = instant.run("India", "fixlat", **fields).cumulative
    for total in TOTALS:
        assert 0 < getattr(filtered, total) < getattr(india_fixlat.cumulative, total), total


def test_power_density_scales_capacity_and_generation_but_not_area(instant: Instant, india_fixlat: JobResult) -> None:
    doubled = instant.run("India", "fixlat", powerDensity=72).cumulative
    base = india_fixlat.cumulative
    assert doubled.total_land_area_sq_km == base.total_land_area_sq_km
    assert doubled.total_nameplate_capacity_mw == pytest.approx(2 * base.total_nameplate_capacity_mw, abs=0.02)
    assert doubled.total_ac_generation_mwh == pytest.approx(2 * base.total_ac_generation_mwh, abs=0.02)


def test_miles_are_converted_to_kilometres(instant: Instant) -> None:
    def area(distance: int, units: str) -> float:
        corridor = {"distance": distance, "units": units}
        return instant.run("India", "fixlat", limitToTransmissionCorridors=corridor).cumulative.total_land_area_sq_km

    assert area(15, "kilometers") < area(10, "miles") < area(20, "kilometers")
    assert area(1, "miles") > area(1, "kilometers")


def test_tracking_adds_twenty_percent_generation_per_megawatt(instant: Instant, india_fixlat: JobResult) -> None:
    tracking = instant.run("India", "axis1").cumulative
    fixed = india_fixlat.cumulative
    assert tracking.total_land_area_sq_km == fixed.total_land_area_sq_km
    assert tracking.total_nameplate_capacity_mw == pytest.approx(fixed.total_nameplate_capacity_mw * 31 / 36, rel=1e-9)
    ratio = (tracking.total_ac_generation_mwh / tracking.total_nameplate_capacity_mw) / (
        fixed.total_ac_generation_mwh / fixed.total_nameplate_capacity_mw)
    assert ratio == pytest.approx(1.2, rel=1e-6)


def test_fixed_tilt_generation_matches_each_class_resource(india_fixlat: JobResult) -> None:
    """Fixed tilt: generation = capacity × 8760 h × 0.80 × GHI / 24, so each class's mean GHI
    implied by its numbers lies within the class's bounds."""
    for row in india_fixlat.cumulative.classes.iter_rows(named=True):
        implied_ghi = row["ac_generation_mwh"] / (row["nameplate_capacity_mw"] * HOURS_PER_YEAR) * 24 / 0.80
        assert row["min"] - 1e-6 <= implied_ghi <= row["max"] + 1e-6, row


@pytest.mark.parametrize(
    ("region", "resource", "fields"),
    [
        ("India", "fixlat", {}),
        ("Kenya", "wind_t200", {"limitBySlope": {"max": 5}, "limitByLandUse": ["Shrubland"]}),
        ("Bangladesh", "wind_t255", {"limitByWindSpeed": {"min": 4, "max": 6}}),
        ("India", "csp", {"limitByGeographicExtent": ["Rajasthan", "Delhi", "Gujarat"], "excludeProtectedAreas": True}),
    ],
)
def test_regional_stats_and_classes_add_up_to_the_totals(instant: Instant, region: str, resource: str, fields: dict[str, Any]) -> None:
    result = instant.run(region, resource, **fields)
    cumulative, regional = result.cumulative, list(result.regional.values())
    assert len(regional) >= 2
    for total, column in CLASS_COLUMNS.items():
        assert near(getattr(cumulative, total), [getattr(stats, total) for stats in regional]), total
        for stats in [cumulative, *regional]:
            assert near(getattr(stats, total), stats.classes[column].to_list()), total
    lowest, highest = [stats.min for stats in regional], [stats.max for stats in regional]
    assert cumulative.min is not None and cumulative.max is not None and None not in lowest + highest
    assert cumulative.min == min(lowest) and cumulative.max == max(highest)  # type: ignore[type-var]
    bounds = list(zip(cumulative.classes["min"], cumulative.classes["max"]))
    assert all(low < high for low, high in bounds) and bounds == sorted(bounds)
    assert bounds[0][0] <= cumulative.min and cumulative.max <= bounds[-1][1]


def test_geographic_extent_keeps_only_the_selected_regions_unchanged(instant: Instant, india_fixlat: JobResult) -> None:
    selected = instant.run("India", "fixlat", limitByGeographicExtent=["delhi", "Tamil Nadu"])
    assert list(selected.regional) == ["Delhi", "Tamil Nadu"]
    for name, stats in selected.regional.items():
        assert stats == india_fixlat.regional[name]
    assert near(selected.cumulative.total_nameplate_capacity_mw, [s.total_nameplate_capacity_mw for s in selected.regional.values()])


def test_filters_that_keep_no_land_give_an_empty_result(instant: Instant) -> None:
    result = instant.run("India", "fixlat", limitBySolarResource={"min": 8.9})
    empty = result.cumulative
    assert [getattr(empty, total) for total in TOTALS] == [0.0, 0.0, 0.0]
    assert all(isinstance(getattr(empty, total), float) for total in TOTALS)
    assert (empty.min, empty.max, empty.classes.height, result.regional) == (None, None, 0, {})
    assert empty.classes.columns == ["min", "max", "nameplate_capacity_mw", "ac_generation_mwh", "land_area_sq_km"]


@st.composite
def looser_and_stricter_filters(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two filter sets where the second keeps a subset of the land the first keeps."""
    slope_low, slope_high = sorted(draw(st.lists(st.floats(0.25, 30), min_size=2, max_size=2)))
    near_km, far_km = sorted(draw(st.lists(st.sampled_from(CORRIDOR_DISTANCES), min_size=2, max_size=2)))
    excluded = draw(st.lists(st.sampled_from(LAND_USE_TYPES), unique=True, max_size=6))
    also_in_looser = draw(st.lists(st.booleans(), min_size=len(excluded), max_size=len(excluded)))
    stricter = {
        "limitBySlope": {"max": slope_low},
        "limitToTransmissionCorridors": {"distance": near_km},
        "limitByLandUse": excluded,
    }
    looser: dict[str, Any] = {"limitByLandUse": [name for name, kept in zip(excluded, also_in_looser) if kept]}
    if draw(st.booleans()):
        looser["limitBySlope"] = {"max": slope_high}
    if draw(st.booleans()):
        looser["limitToTransmissionCorridors"] = {"distance": far_km}
    return looser, stricter


@settings(max_examples=20, deadline=None)
@given(filters=looser_and_stricter_filters(), resource=st.sampled_from(["fixlat", "csp", "wind_t200"]))
def test_stricter_filters_never_increase_capacity(
    instant: Instant, filters: tuple[dict[str, Any], dict[str, Any]], resource: str
) -> None:
    looser, stricter = (instant.run("India", resource, **fields) for fields in filters)
    for total in TOTALS:
        assert getattr(stricter.cumulative, total) <= getattr(looser.cumulative, total), total
    assert set(stricter.regional) <= set(looser.regional)
    for name, stats in stricter.regional.items():
        assert stats.total_nameplate_capacity_mw <= looser.regional[name].total_nameplate_capacity_mw, name


def test_empty_job_id_is_refused_before_sending(service: sf.LocalService) -> None:
    with pytest.raises(sf.ParameterError, match="job_id must not be empty"):
        service.client().technical_potential.job("rede", "").status()
    assert service.hits() == {}


def test_async_client_runs_the_same_workflow() -> None:
    import asyncio

    async def main(service: sf.LocalService) -> tuple[str, float, bool]:
        client = service.async_client()
        config = await client.technical_potential.config("rede", countries="Kenya")
        job = await client.technical_potential.submit("rede", "Kenya", config.region("Kenya").resources[0].key)
        result = await job.wait(timeout=10, poll_interval=0.02)
        deleted = await job.delete()
        return result.status, result.cumulative.total_nameplate_capacity_mw, deleted.map_data_deleted

    with sf.LocalService(jobs=sf.JobSettings(start_delay=0.02, run_time=0.05)) as service:
        status, capacity, deleted = asyncio.run(main(service))
    assert status == "finished" and capacity > 0 and deleted
