"""Reliability of calls (issues #20 and #33): no argument makes the core panic, every bad argument
is a ParameterError naming it before anything is sent, one deadline bounds a whole call, and
the interpreter exits cleanly after failed or cancelled async calls."""

from __future__ import annotations

import asyncio
import socket
import time
import warnings
from typing import Any, Callable

import pytest

import sunflux as sf
from support.loopback import LoopbackServer, reply
from support.reliability import EMAIL, isolated, KEY, raw_server, SLUG, year_csv


# ---------------------------------------------------------------------------------------------
# No panic on any argument


@pytest.mark.parametrize(
    "make",
    [
        lambda: sf.Client(KEY, timeout=1e20),
        lambda: sf.Client(KEY, backoff=1e20),
        lambda: sf.Client(KEY, limits={"solar": sf.ServiceLimits(window=1e300)}),
        lambda: sf.LocalService(rate_limits=sf.RateLimits(1, 1e300)),
        lambda: sf.LocalService(faults=sf.Faults(delay=1e300)),
        lambda: sf.LocalService(jobs=sf.JobSettings(run_time=1e300)),
        lambda: sf.LocalService(climate=sf.ClimateSettings(build_delay=float("nan"))),
    ],
    ids=["timeout", "backoff", "limits-window", "rate-window", "fault-delay", "job-run-time", "build-delay"],
)
def test_durations_out_of_range_are_parameter_errors(make: Callable[[], object]) -> None:
    with pytest.raises(sf.ParameterError, match="seconds"):
        make()


def test_fetch_timeout_out_of_range_is_a_parameter_error(client: sf.Client) -> None:
    with pytest.raises(sf.ParameterError, match="timeout must be at most"):
        client.climate.fetch("http://127.0.0.1:1/files/climate/x.zip", timeout=1e300)


def test_client_reports_every_problem_at_once() -> None:
    with pytest.raises(sf.ParameterError) as caught:
        sf.Client("short", "ftp://x", auth="cookie", routes="x", timeout=-1, retries=-1, backoff="soon", throttle="yes")  # type: ignore[arg-type]
    problems = caught.value.errors
    for fragment in ("base_url", "api_key must be 40", "auth must be", "routes must be", "timeout", "retries", "backoff", "throttle"):
        assert any(fragment in problem for problem in problems), (fragment, problems)


@pytest.mark.parametrize(
    "make",
    [
        lambda: sf.LocalService(port=-1),
        lambda: sf.LocalService(port=70_000),
        lambda: sf.LocalService(rate_limits=sf.RateLimits(requests=-5)),
        lambda: sf.LocalService(rate_limits=5),  # type: ignore[arg-type]
        lambda: sf.LocalService(climate=sf.ClimateSettings(queue=-1)),
        lambda: sf.LocalService(faults=sf.Faults(seed=-1)),
        lambda: sf.Client(KEY, retries=2.5),  # type: ignore[arg-type]
        lambda: sf.Client(KEY, limits={"solar": 3}),  # type: ignore[dict-item]
        lambda: sf.Client(12345),  # type: ignore[arg-type]
    ],
)
def test_bad_argument_types_are_parameter_errors(make: Callable[[], object]) -> None:
    with pytest.raises(sf.ParameterError):
        make()


# ---------------------------------------------------------------------------------------------
# Hangs: one deadline for the whole call


def test_a_trickling_server_is_bounded_by_the_deadline() -> None:
    def trickle(connection: socket.socket) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n")
        try:
            for _ in range(60):
                connection.sendall(b" ")
                time.sleep(1)
        except OSError:
            pass

    url = raw_server(trickle)
    client = sf.Client(KEY, url, timeout=1, retries=3, backoff=0.01, deadline=2.5)
    started = time.monotonic()
    with pytest.raises(sf.TransportError, match="deadline of 2.5 s"):
        client.solar.data_query(39.7, -105.2)
    assert time.monotonic() - started < 3.5


def test_timeout_alone_bounds_each_attempt_and_the_deadline_the_call() -> None:
    url = raw_server(lambda connection: time.sleep(3))
    client = sf.Client(KEY, url, timeout=0.5, retries=2, backoff=0.01, deadline=None)
    started = time.monotonic()
    with pytest.raises(sf.TransportError, match="gave up after 3 attempts"):
        client.solar.data_query(39.7, -105.2)
    assert 1.5 <= time.monotonic() - started < 3


def test_a_throttle_wait_longer_than_the_deadline_fails_at_the_deadline(client: sf.Client, service: sf.LocalService) -> None:
    throttled = service.client(limits={"solar": sf.ServiceLimits(min_interval=30)}, deadline=1)
    throttled.solar.data_query(39.7, -105.2)
    started = time.monotonic()
    with pytest.raises(sf.TransportError, match="waiting for the client-side rate limit"):
        throttled.solar.data_query(39.7, -105.2)
    assert time.monotonic() - started < 2


def test_deadline_must_be_positive_seconds() -> None:
    with pytest.raises(sf.ParameterError, match="deadline must be a number of seconds > 0"):
        sf.Client(KEY, deadline=0)


# ---------------------------------------------------------------------------------------------
# The interpreter exits cleanly after async calls


def test_the_interpreter_exits_cleanly_after_failed_async_calls(loopback: LoopbackServer) -> None:
    page = b"<html><head><title>500 Internal Server Error</title></head><body></body></html>"
    loopback.handler = lambda request: reply(request, 500, page, {"content-type": "text/html"})
    for _ in range(8):
        isolated(
            f"""
            import asyncio, sunflux as sf
            async def main():
                client = sf.AsyncClient({KEY!r}, {loopback.url!r}, retries=0)
                calls = [client.pv.estimate(4, 0, 14, 1, 20, 180, lat=40, lon=-105) for _ in range(5)]
                outcomes = await asyncio.gather(*calls, return_exceptions=True)
                assert all(isinstance(outcome, sf.ServerError) for outcome in outcomes), outcomes
            asyncio.run(main())
            """
        )


def test_cancelling_an_async_call_aborts_it(loopback: LoopbackServer) -> None:
    loopback.handler = lambda request: (time.sleep(5), reply(request, 200, b"{}"))

    async def main() -> float:
        client = sf.AsyncClient(KEY, loopback.url, retries=0)
        task = asyncio.ensure_future(client.solar.data_query(39.7, -105.2))
        await asyncio.sleep(0.2)
        task.cancel()
        started = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            await task
        return time.monotonic() - started

    assert asyncio.run(main()) < 0.5


# ---------------------------------------------------------------------------------------------
# Untyped errors: every bad input is a sunflux error


@pytest.mark.parametrize(
    "call",
    [
        lambda c: c.climate.download_csv(SLUG, lat=39.7, lon=-105.2, year=2010.5, email=EMAIL),
        lambda c: c.climate.download_csv(SLUG, lat=39.7, lon=-105.2, year=2010, email=EMAIL, attributes=123),
        lambda c: c.climate.download_csv(SLUG, lat="north", lon=-105.2, year=[2010, "x"], email=EMAIL),
        lambda c: c.climate.request(SLUG, wkt=12, years=2010.5, email=EMAIL, method=5),
        lambda c: c.climate.bulk(SLUG, points=[(1, 2, 3), "ab"], years=2010, email=EMAIL, workers=-1),
        lambda c: c.climate.bulk(SLUG, points=[("a", "b")], years=[2010], email=EMAIL),
        lambda c: c.climate.fetch(123, timeout="soon"),
        lambda c: c.technical_potential.config(123),
        lambda c: c.technical_potential.config("rede", countries=[1, 2]),
        lambda c: c.optimizer.submit(123),
        lambda c: c.optimizer.results(["x"]),
        lambda c: c.request("GET", "data_query", args=5),
        lambda c: sf.climate.parse_csv(12345),
        lambda c: sf.climate.parse_zip("not bytes"),
        lambda c: sf.pvwatts.read_weather({"year": ["x"], "month": [1]}, lat=1, lon=2, tz=0, elevation=0),
        lambda c: sf.pvwatts.read_weather({"year": [2010], "ghi": [object()]}, lat=1, lon=2, tz=0, elevation=0),
        lambda c: sf.pvwatts.read_weather({"year": [2010]}, lat="x", lon=2, tz=0, elevation=0),
    ],
)
def test_bad_inputs_raise_sunflux_errors(client: sf.Client, call: Callable[[sf.Client], object]) -> None:
    with pytest.raises(sf.SunfluxError):
        call(client)


def test_problems_of_one_call_are_reported_together(client: sf.Client) -> None:
    with pytest.raises(sf.ParameterError) as caught:
        client.climate.request(SLUG, wkt="POINT(1 2)", years=2010.5, email="nobody", method="PUT")
    assert len(caught.value.errors) == 3, caught.value.errors
    with pytest.raises(sf.ParameterError) as caught:
        client.climate.fetch("ftp://x/y.zip", wait="yes", timeout=-1)
    assert len(caught.value.errors) == 3, caught.value.errors


def test_weather_of_an_empty_table_is_a_parameter_error() -> None:
    empty = sf.climate.parse_csv(year_csv(0), whole_year=False)
    with pytest.raises(sf.ParameterError, match="no rows"):
        empty.weather()


# ---------------------------------------------------------------------------------------------
# Untyped errors, third round (issue #33): each bad argument is a ParameterError naming it

HUGE = 10**400
SYSTEM: dict[str, Any] = dict(system_capacity=4, module_type=0, losses=14, array_type=1, tilt=20, azimuth=180)
ESTIMATE: dict[str, Any] = dict(SYSTEM, lat=39.74, lon=-105.18)
TABLE = {name: [0.0] for name in ("year", "month", "day", "hour", "ghi", "dni", "dhi", "temp_air", "wind_speed")}
SITE: dict[str, Any] = dict(lat=39.74, lon=-105.18, tz=-7, elevation=1800)
CSV: dict[str, Any] = dict(lat=39.74, lon=-105.18, year=2010, email=EMAIL, attributes="ghi")


def station_weather(client: sf.Client, service: sf.LocalService) -> sf.pvwatts.Weather:
    return service.station_weather(client.solar.data_query(39.74, -105.18, version="v1").closest["tmy3"].file_id)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("argument", "call"),
    [
        ("system_capacity", lambda c, s, w: c.pv.estimate(**{**ESTIMATE, "system_capacity": HUGE}, version="v6")),
        ("losses", lambda c, s, w: c.pv.estimate(**{**ESTIMATE, "losses": -HUGE}, version="v6")),
        ("system_capacity", lambda c, s, w: c.pv.estimate(**{**ESTIMATE, "system_capacity": HUGE}, version="v8")),
        ("albedo", lambda c, s, w: c.pv.estimate(**ESTIMATE, version="v8", albedo=object())),
        ("soiling", lambda c, s, w: c.pv.estimate(**ESTIMATE, version="v8", soiling=object())),
        ("albedo", lambda c, s, w: c.pv.estimate(**ESTIMATE, version="v8", albedo=[HUGE] * 12)),
        ("system_capacity", lambda c, s, w: sf.pvwatts.simulate(w, **{**SYSTEM, "system_capacity": HUGE})),
        ("losses", lambda c, s, w: sf.pvwatts.simulate(w, **{**SYSTEM, "losses": HUGE}, version="v8")),
        ("lat", lambda c, s, w: sf.pvwatts.read_weather(TABLE, **{**SITE, "lat": HUGE})),
        ("lon", lambda c, s, w: sf.pvwatts.read_weather(TABLE, **{**SITE, "lon": -HUGE})),
        ("tz", lambda c, s, w: sf.pvwatts.read_weather(TABLE, **{**SITE, "tz": HUGE})),
        ("elevation", lambda c, s, w: sf.pvwatts.read_weather(TABLE, **{**SITE, "elevation": HUGE})),
        ("endpoint", lambda c, s, w: c.request("GET", 5)),
        ("method", lambda c, s, w: c.request(None, "optimizer_simulated_load")),
        ("endpoint", lambda c, s, w: c.url(b"data_query")),
        ("utc", lambda c, s, w: c.climate.download_csv(SLUG, **CSV, utc="")),
        ("utc", lambda c, s, w: c.climate.download_csv(SLUG, **CSV, utc=None)),
        ("utc", lambda c, s, w: c.climate.download_csv(SLUG, **CSV, utc=0)),
        ("leap_day", lambda c, s, w: c.climate.download_csv(SLUG, **CSV, leap_day="true")),
        ("mailing_list", lambda c, s, w: c.climate.request(SLUG, wkt="POINT(-105 39)", years=[2010], email=EMAIL, mailing_list=1)),
        ("progress", lambda c, s, w: c.climate.bulk(SLUG, points=[(39.74, -105.18)], years=[2010], email=EMAIL, progress=object())),
        ("progress", lambda c, s, w: c.climate.bulk(SLUG, points=[(39.74, -105.18)], years=[2010], email=EMAIL, progress=None)),
        ("job_id", lambda c, s, w: c.technical_potential.job("rede", "j" * 100_000).status()),
        ("callback", lambda c, s, w: c.pv.estimate(**ESTIMATE, callback="f" * 100_000)),
        ("download_url", lambda c, s, w: c.climate.fetch(f"{s.base_url}/files/climate/{'0' * 100_000}.zip", wait=False)),
        ("request URL", lambda c, s, w: c.request("GET", "optimizer_simulated_load", params={"load_type": "x" * 100_000})),
    ],
)
def test_a_bad_argument_is_a_parameter_error_naming_it_before_anything_is_sent(
    client: sf.Client, service: sf.LocalService, argument: str, call: Callable[[sf.Client, sf.LocalService, sf.pvwatts.Weather], object]
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weather = station_weather(client, service)
        before = dict(service.hits())
        with pytest.raises(sf.ParameterError) as caught:
            call(client, service, weather)
    assert any(argument in problem for problem in caught.value.errors), caught.value.errors
    assert all(len(problem) < 2000 for problem in caught.value.errors), caught.value.errors
    assert dict(service.hits()) == before


def test_booleans_of_the_climate_download_are_true_or_false(client: sf.Client) -> None:
    for utc in (True, False):
        table = client.climate.download_csv(SLUG, **CSV, utc=utc, leap_day=False)
        assert table.data.height == 8760
