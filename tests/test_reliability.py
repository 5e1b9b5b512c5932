"""Reliability: an answer from any server, a file or a table can neither take the process down,
nor grow memory without bound, nor be read as data when it is garbage (issue #20). Each test
here failed before the fix it guards. Cases that could crash run in a child process, so that a
crash is a reported failure instead of the end of the test run."""

from __future__ import annotations

import asyncio
import os
import resource
import socket
import struct
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from typing import Any, Callable

import pytest
from conftest import LoopbackServer, reply, requires_fork

import sunflux as sf

KEY = "r" * 40


#: Address space of a child process: a regression that reads without bound fails there, not the
#: machine.
CHILD_MEMORY = 8 << 30


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (CHILD_MEMORY, CHILD_MEMORY))


def isolated(code: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Runs `code` in a fresh interpreter with bounded memory; the test fails on a crash (a
    signal), an error or a timeout, with the child's output."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout, preexec_fn=_limit_memory
    )
    assert done.returncode >= 0, f"killed by signal {-done.returncode}:\n{done.stdout}\n{done.stderr}"
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def deep_xml(levels: int) -> bytes:
    return b'<?xml version="1.0"?>' + b"<a>" * levels + b"</a>" * levels


# ---------------------------------------------------------------------------------------------
# Process killers


def test_deep_xml_is_an_error_not_a_stack_overflow() -> None:
    done = isolated(
        """
        import sunflux as sf
        body = b"<a>" * 200_000 + b"</a>" * 200_000
        for parse in (
            lambda: sf.solar.parse_data_query(body, 39.74, -105.18, version="v2", format="xml"),
            lambda: sf.pv.parse_estimate(body, "xml"),
        ):
            try:
                parse()
            except sf.ApiError as error:
                assert "nested more than 64 levels" in str(error), error
                print("refused")
        """
    )
    assert done.stdout.split() == ["refused", "refused"]


@pytest.mark.parametrize("where", ["main", "thread", "asyncio"])
def test_deep_xml_through_the_client_is_an_error(loopback: LoopbackServer, where: str) -> None:
    body = deep_xml(50_000)
    loopback.handler = lambda request: reply(request, 200, body, {"content-type": "application/xml"})
    done = isolated(
        f"""
        import asyncio, threading, sunflux as sf
        url, key, where = {loopback.url!r}, {KEY!r}, {where!r}
        outcome = []
        def call():
            try:
                sf.Client(key, url, retries=0).solar.data_query(39.7, -105.2, format="xml")
            except sf.ApiError as error:
                outcome.append(str(error))
        async def call_async():
            try:
                await sf.AsyncClient(key, url, retries=0).pv.estimate(4, 0, 14, 1, 20, 180, lat=40, lon=-105, format="xml")
            except sf.ApiError as error:
                outcome.append(str(error))
        if where == "main":
            call()
        elif where == "thread":
            worker = threading.Thread(target=call)
            worker.start()
            worker.join()
        else:
            asyncio.run(call_async())
        assert outcome and "nested more than" in outcome[0], outcome
        print("refused")
        """
    )
    assert done.stdout.strip() == "refused"


def zip64_claiming(claimed: int) -> bytes:
    """A one-entry zip (zip64) whose entry holds 10 bytes but claims `claimed` bytes inflated."""
    import zlib

    data = b"0123456789"
    packer = zlib.compressobj(6, zlib.DEFLATED, -15)
    deflated = packer.compress(data) + packer.flush()
    name = b"site_2010.csv"
    extra = struct.pack("<HHQQ", 0x0001, 16, claimed, len(deflated))
    fixed = (45, 0, 8, 0, 0x21, zlib.crc32(data), 0xFFFFFFFF, 0xFFFFFFFF, len(name), len(extra))
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, *fixed) + name + extra
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45, *fixed, 0, 0, 0, 0, 0) + name + extra
    offset = len(local) + len(deflated)
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), offset, 0)
    return local + deflated + central + end


def test_a_zip_entry_claiming_64_gib_is_refused_without_allocating() -> None:
    body = zip64_claiming(64 << 30)
    done = isolated(
        f"""
        import sunflux as sf
        try:
            sf.climate.parse_zip({body!r})
        except sf.ApiError as error:
            print("refused:", error)
        """
    )
    assert done.stdout.startswith("refused:") and "inflates to more than" in done.stdout


def test_a_zip_entry_claiming_64_gib_from_fetch_is_refused(loopback: LoopbackServer) -> None:
    body = zip64_claiming(64 << 30)
    loopback.handler = lambda request: reply(request, 200, body, {"content-type": "application/zip"})
    done = isolated(
        f"""
        import sunflux as sf
        client = sf.Client({KEY!r}, {loopback.url!r}, retries=0)
        try:
            client.climate.fetch({loopback.url + "/files/climate/x.zip"!r})
        except sf.ApiError as error:
            print("refused:", error)
        """
    )
    assert done.stdout.startswith("refused:") and "inflates to more than" in done.stdout


def test_a_zip_bomb_is_refused_with_bounded_memory() -> None:
    # 1 GiB of one CSV line repeated, in 32 entries of 32 MiB: about 1 MB deflated.
    done = isolated(
        """
        import io, resource, zipfile, sunflux as sf
        header = b"Source,Location ID\\nx,1\\nYear,Month,Day,Hour,Minute,GHI\\n"
        row = b"2010,1,1,0,0,1.0\\n"
        entry = header + row * ((32 << 20) // len(row))
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for index in range(32):
                archive.writestr(f"site{index}_2010.csv", entry)
        body = buffer.getvalue()
        del entry
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        try:
            sf.climate.parse_zip(body)
        except sf.ApiError as error:
            grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
            print(f"refused {len(body)} {grown:.0f}", error)
        """,
        timeout=300,
    )
    refused, size, grown_mib, *message = done.stdout.split()
    assert refused == "refused" and int(size) < 10 << 20, done.stdout
    assert float(grown_mib) < 600, done.stdout


def test_an_endless_response_stops_at_its_cap() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    sent = [0]

    def endless() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n")
            chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
            try:
                while sent[0] < 16 << 30:
                    connection.sendall(chunk)
                    sent[0] += 65536
            except OSError:
                pass

    threading.Thread(target=endless, daemon=True).start()
    started = time.monotonic()
    done = isolated(
        f"""
        import sunflux as sf
        client = sf.Client({KEY!r}, "http://127.0.0.1:{port}", retries=0, max_bytes={{"data_query": 4 << 20}})
        try:
            client.solar.data_query(39.7, -105.2)
        except sf.ApiError as error:
            print(error)
        """
    )
    assert "above the limit of 4194304 bytes for data_query answers" in done.stdout and "max_bytes" in done.stdout
    assert time.monotonic() - started < 30
    assert sent[0] < 64 << 20
    listener.close()


def test_response_caps_default_and_are_named() -> None:
    limits = sf.limits()
    assert limits["max_bytes.climate_zip"] == 2 << 30 and limits["max_bytes.climate_unzipped"] == 4 << 30
    assert limits["xml_depth"] == 64 and limits["csv_columns"] == 1000 and limits["deadline_seconds"] == 600
    with pytest.raises(sf.ParameterError, match=r'max_bytes has no limit "nothing" \(use data_query'):
        sf.Client(KEY, max_bytes={"nothing": 1})


def test_read_weather_refuses_devices_and_named_pipes(tmp_path: os.PathLike[str]) -> None:
    pipe = os.path.join(tmp_path, "weather.csv")
    os.mkfifo(pipe)
    done = isolated(
        f"""
        import sunflux as sf
        for path in ("/dev/zero", {pipe!r}):
            try:
                sf.pvwatts.read_weather(path)
            except sf.ParameterError as error:
                print(error)
        """,
        timeout=20,
    )
    zero, fifo = done.stdout.splitlines()
    assert "/dev/zero" in zero and "not a regular file" in zero
    assert "named pipe" in fifo


# ---------------------------------------------------------------------------------------------
# Wrong answers: a missing value is never a zero


ESTIMATE_OUTPUTS = (
    '"outputs":{"ac_monthly":[1,2,3,4,5,6,7,8,9,10,11,12],"poa_monthly":[1,2,3,4,5,6,7,8,9,10,11,12],'
    '"solrad_monthly":[1,2,3,4,5,6,7,8,9,10,11,12],"dc_monthly":[1,2,3,4,5,6,7,8,9,10,11,12],'
    '"ac_annual":0.0,"solrad_annual":0.0,"capacity_factor":0.0}'
)


def test_an_estimate_without_outputs_is_an_error_naming_them() -> None:
    with pytest.raises(sf.ApiError, match="the answer has no outputs"):
        sf.pv.parse_estimate(b"{}", "json")
    partial = b'{"outputs":{"ac_monthly":[1,2,3,4,5,6,7,8,9,10,11,12],"ac_annual":5}}'
    with pytest.raises(sf.ApiError) as caught:
        sf.pv.parse_estimate(partial, "json")
    for name in ("poa_monthly", "dc_monthly", "solrad_monthly", "solrad_annual", "capacity_factor"):
        assert f"outputs.{name}" in str(caught.value)
    assert "outputs.ac_annual" not in str(caught.value)
    zero = sf.pv.parse_estimate(("{" + ESTIMATE_OUTPUTS + "}").encode(), "json")
    assert zero.ac_annual == 0.0 and zero.hourly is None, "a real zero stays a zero"


def test_an_error_body_with_status_200_raises_its_error() -> None:
    gateway = b'{"error":{"code":"API_KEY_INVALID","message":"An invalid api_key was supplied."}}'
    with pytest.raises(sf.AuthError, match="API_KEY_INVALID"):
        sf.pv.parse_estimate(gateway, "json")
    with pytest.raises(sf.AuthError):
        sf.solar.parse_data_query(gateway, 39.7, -105.2)


def test_an_error_body_with_status_200_raises_through_the_client(loopback: LoopbackServer) -> None:
    gateway = b'{"error":{"code":"API_KEY_INVALID","message":"An invalid api_key was supplied."}}'
    loopback.handler = lambda request: reply(request, 200, gateway)
    client = sf.Client(KEY, loopback.url, retries=0)
    with pytest.raises(sf.AuthError, match="API_KEY_INVALID"):
        client.pv.estimate(4, 0, 14, 1, 20, 180, lat=40, lon=-105)


def test_station_numbers_that_are_absent_read_as_none() -> None:
    body = ("{" + ESTIMATE_OUTPUTS + ',"station_info":{"city":"Golden"}}').encode()
    station = sf.pv.parse_estimate(body, "json").station_info
    assert station is not None and station.lat is None and station.tz is None and station.city == "Golden"


def raw_server(respond: Callable[[socket.socket], None]) -> str:
    """A one-connection-at-a-time server that answers each request with `respond` (raw bytes)."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.recv(65536)
                respond(connection)

    threading.Thread(target=serve, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}"


def test_a_body_cut_short_of_its_content_length_is_a_transport_error() -> None:
    full = ("{" + ESTIMATE_OUTPUTS + "}").encode()

    def cut(connection: socket.socket) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(full))
        connection.sendall(full[: len(full) // 2])

    client = sf.Client(KEY, raw_server(cut), retries=1, backoff=0.01)
    with pytest.raises(sf.TransportError, match="gave up after 2 attempts"):
        client.pv.estimate(4, 0, 14, 1, 20, 180, lat=40, lon=-105)


def test_a_body_padded_beyond_its_content_length_is_read_to_its_length_only() -> None:
    def padded(connection: socket.socket) -> None:
        connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}" + b" " * 500)

    client = sf.Client(KEY, raw_server(padded), retries=0)
    with pytest.raises(sf.ApiError, match="the answer has no outputs"):
        client.pv.estimate(4, 0, 14, 1, 20, 180, lat=40, lon=-105)


def test_a_dataset_query_without_outputs_or_stations_is_an_error() -> None:
    with pytest.raises(sf.ApiError, match="outputs: is missing"):
        sf.solar.parse_data_query(b'{"errors":[],"warnings":[]}', 39.7, -105.2)
    silent = b'{"errors":[],"warnings":[],"outputs":{"tmy2":null,"tmy3":null,"intl":null}}'
    with pytest.raises(sf.ApiError, match="no station, and no warning says why"):
        sf.solar.parse_data_query(silent, 39.7, -105.2)
    warned = b'{"errors":[],"warnings":["No tmy2 data found for lat=1 lon=2"],"outputs":{"tmy2":null}}'
    assert sf.solar.parse_data_query(warned, 39.7, -105.2).closest == {"tmy2": None}


def year_csv(rows: int, year: int = 2010) -> bytes:
    header = "Source,Location ID\nx,1\nYear,Month,Day,Hour,Minute,GHI\n"
    lines = []
    hour = 0
    import datetime as dt

    start = dt.datetime(year, 1, 1)
    for index in range(rows):
        stamp = start + dt.timedelta(hours=index)
        lines.append(f"{stamp.year},{stamp.month},{stamp.day},{stamp.hour},0,{hour}")
    return (header + "\n".join(lines) + ("\n" if lines else "")).encode()


@pytest.mark.parametrize(("rows", "expected"), [(0, "no data rows"), (8759, "expected 8760 rows for 2010"), (8761, "expected 8760 rows for 2010")])
def test_parse_csv_needs_one_whole_year(rows: int, expected: str) -> None:
    with pytest.raises(sf.ApiError, match=expected):
        sf.climate.parse_csv(year_csv(rows))


def test_parse_csv_refuses_more_rows_than_any_year_has() -> None:
    with pytest.raises(sf.ApiError, match="more than 527040 data rows"):
        sf.climate.parse_csv(year_csv(229 * 8760))


def test_parse_csv_reads_a_whole_year_with_or_without_its_leap_day() -> None:
    assert sf.climate.parse_csv(year_csv(8760)).data.height == 8760
    assert sf.climate.parse_csv(year_csv(8784, 2012)).data.height == 8784


def test_a_header_of_100000_columns_is_refused_at_once() -> None:
    body = b"Source\nx\nYear,Month,Day,Hour," + b",".join(b"c%d" % i for i in range(100_000)) + b"\n"
    started = time.monotonic()
    with pytest.raises(sf.ApiError, match="more than 1000 fields"):
        sf.climate.parse_csv(body)
    assert time.monotonic() - started < 1


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
# climate.bulk: Ctrl-C, a damaged cache, the spelling of the base URL

SLUG = "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"
EMAIL = "analyst@example.org"


def test_ctrl_c_stops_bulk_at_once_and_leaves_a_consistent_cache(tmp_path: os.PathLike[str]) -> None:
    cache = os.path.join(tmp_path, "cache")
    script = f"""
        import os, signal, sys, threading, time, sunflux as sf
        with sf.LocalService(climate=sf.ClimateSettings(csv_interval=0)) as service:
            client = service.client(limits={{"climate_csv": sf.ServiceLimits(min_interval=0.5)}})
            points = [(39.0 + 0.05 * i, -105.0) for i in range(40)]
            def interrupt():
                time.sleep(2.0)
                os.kill(os.getpid(), signal.SIGINT)
            threading.Thread(target=interrupt, daemon=True).start()
            try:
                client.climate.bulk({SLUG!r}, points=points, years=[2010], email={EMAIL!r}, attributes="ghi", cache_dir={cache!r}, progress=False)
            except KeyboardInterrupt:
                stopped = time.monotonic()
                print("interrupted", service.hits().get("/api/climate/ncdb/v2/climate/{SLUG}-download.csv", 0), flush=True)
                print("lag", time.monotonic() - stopped)
            started = time.monotonic()
            frame = client.climate.bulk({SLUG!r}, points=points[:3], years=[2010], email={EMAIL!r}, attributes="ghi", cache_dir={cache!r}, progress=False)
            print("resumed", frame.height)
            print("total", service.hits().get("/api/climate/ncdb/v2/climate/{SLUG}-download.csv", 0))
        """
    started = time.monotonic()
    done = isolated(script, timeout=120)
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines())
    assert "interrupted" in lines, done.stdout + done.stderr
    downloaded = int(lines["interrupted"])
    assert 2 <= downloaded <= 8, downloaded
    entries = [name for name in os.listdir(cache) if name.endswith(".arrow")]
    assert not [name for name in os.listdir(cache) if name.endswith(".part")]
    # Every cache entry is a whole download (the resumed run may add the first points).
    assert len(entries) <= int(lines["total"])
    assert lines["resumed"] == str(3 * 8760)
    assert time.monotonic() - started < 60


def test_ctrl_c_returns_from_bulk_within_a_fraction_of_a_second(tmp_path: os.PathLike[str]) -> None:
    done = isolated(
        f"""
        import os, signal, threading, time, sunflux as sf
        with sf.LocalService(climate=sf.ClimateSettings(csv_interval=0)) as service:
            client = service.client(limits={{"climate_csv": sf.ServiceLimits(min_interval=1.0)}})
            sent = []
            def interrupt():
                time.sleep(1.5)
                sent.append(time.monotonic())
                os.kill(os.getpid(), signal.SIGINT)
            threading.Thread(target=interrupt, daemon=True).start()
            try:
                client.climate.bulk({SLUG!r}, points=[(39.0 + 0.05 * i, -105.0) for i in range(40)], years=[2010], email={EMAIL!r}, attributes="ghi", progress=False)
            except KeyboardInterrupt:
                print(time.monotonic() - sent[0])
        """,
        timeout=60,
    )
    assert float(done.stdout) < 0.3, done.stdout


def test_a_damaged_cache_entry_is_downloaded_again(tmp_path: os.PathLike[str]) -> None:
    with sf.LocalService(climate=sf.ClimateSettings(csv_interval=0)) as service:
        client = service.client(limits={"climate_csv": sf.ServiceLimits(min_interval=0.001)})

        def run() -> Any:
            return client.climate.bulk(SLUG, points=[(39.0, -105.0)], years=[2010, 2011], email=EMAIL, attributes="ghi", cache_dir=tmp_path, progress=False)

        first = run()
        entries = sorted(name for name in os.listdir(tmp_path) if name.endswith(".arrow"))
        assert len(entries) == 2
        path = os.path.join(tmp_path, entries[0])
        data = bytearray(open(path, "rb").read())
        data[len(data) // 2] ^= 0x01
        open(path, "wb").write(bytes(data))
        before = sum(service.hits().values())
        again = run()
        assert sum(service.hits().values()) == before + 1, "only the damaged entry is downloaded"
        assert again.equals(first)
        assert len([name for name in os.listdir(tmp_path) if name.endswith(".arrow")]) == 2


def test_the_cache_key_does_not_depend_on_how_the_loopback_host_is_spelled(tmp_path: os.PathLike[str]) -> None:
    with sf.LocalService(climate=sf.ClimateSettings(csv_interval=0)) as service:
        limits = {"climate_csv": sf.ServiceLimits(min_interval=0.001)}
        numeric = service.client(limits=limits)
        named = service.client(limits=limits, base_url=f"http://localhost:{service.port}/")
        arguments: dict[str, Any] = {"points": [(39.0, -105.0)], "years": [2010], "email": EMAIL, "attributes": "ghi", "cache_dir": tmp_path, "progress": False}
        first = numeric.climate.bulk(SLUG, **arguments)
        before = sum(service.hits().values())
        assert named.climate.bulk(SLUG, **arguments).equals(first)
        assert sum(service.hits().values()) == before


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


# ---------------------------------------------------------------------------------------------
# Forked children (issue #33)


@requires_fork
@pytest.mark.parametrize("threads", [1, 0])
def test_simulate_many_in_a_forked_child_gives_the_parents_table(threads: int) -> None:
    """The parent's batch started polars' thread pool, which the child does not have: the child
    hung building its table. The child must finish with the same table; a hang is killed."""
    weather_file = os.path.join(os.path.dirname(__file__), "data", "723170TYA.CSV.gz")
    done = isolated(
        f"""
        import gzip, os, time, signal
        import sunflux as sf
        weather = sf.pvwatts.read_weather(gzip.decompress(open({weather_file!r}, "rb").read()))
        systems = [dict(system_capacity=4 + i, module_type=0, losses=14, array_type=1, tilt=20, azimuth=180) for i in range(50)]
        parent = sf.pvwatts.simulate_many(weather, systems, threads={threads}, progress=False).to_arrow()
        pid = os.fork()
        if pid == 0:
            child = sf.pvwatts.simulate_many(weather, systems, threads={threads}, progress=False).to_arrow()
            os._exit(0 if child.equals(parent) else 3)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            finished, status = os.waitpid(pid, os.WNOHANG)
            if finished:
                print("child exit", os.waitstatus_to_exitcode(status))
                break
            time.sleep(0.05)
        else:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            print("child hung")
        """,
        timeout=30,
    )
    assert done.stdout.strip() == "child exit 0"


# ---------------------------------------------------------------------------------------------
# Cache entries that are not regular files (issue #33)


@pytest.mark.parametrize("shape", ["fifo", "link_to_device", "link_to_entry", "oversized"])
def test_a_cache_entry_that_is_not_a_regular_file_is_downloaded_again(tmp_path: os.PathLike[str], shape: str) -> None:
    """A named pipe under an entry's name hung `bulk` (its open blocks) and a link to /dev/zero
    was read until memory ran out; neither is read now, nor a link to a good entry, nor a file
    larger than any entry: each is downloaded again, in a child with bounded memory and time."""
    cache = os.path.join(tmp_path, "cache")
    done = isolated(
        f"""
        import os, sunflux as sf
        cache, shape = {cache!r}, {shape!r}
        with sf.LocalService(climate=sf.ClimateSettings(csv_interval=0)) as service:
            client = service.client(limits={{"climate_csv": sf.ServiceLimits(min_interval=0.001)}})
            def run():
                return client.climate.bulk({SLUG!r}, points=[(39.0, -105.0)], years=[2010], email={EMAIL!r}, attributes="ghi", cache_dir=cache, progress=False)
            first = run()
            (name,) = [name for name in os.listdir(cache) if name.endswith(".arrow")]
            entry = os.path.join(cache, name)
            os.rename(entry, os.path.join(cache, "elsewhere"))
            if shape == "fifo":
                os.mkfifo(entry)
            elif shape == "link_to_device":
                os.symlink("/dev/zero", entry)
            elif shape == "link_to_entry":
                os.symlink(os.path.join(cache, "elsewhere"), entry)
            else:
                with open(entry, "wb") as sparse:
                    sparse.truncate(int(sf.limits()["cache_entry_bytes"]) + 1)
            before = sum(service.hits().values())
            again = run()
            print("downloads", sum(service.hits().values()) - before, "equal", again.equals(first))
        """,
        timeout=30,
    )
    assert done.stdout.split() == ["downloads", "1", "equal", "True"]


# ---------------------------------------------------------------------------------------------
# Weather files near the limit (issue #33)

#: A leap year of one-minute records, the most records a weather year has.
MINUTE_YEAR = 366 * 24 * 60
#: The bytes of such a year read as weather: 11 columns (timestamp, calendar, five quantities).
MINUTE_YEAR_WEATHER_BYTES = MINUTE_YEAR * 11 * 8
MINUTE_HEADER = "Year,Month,Day,Hour,Minute,GHI,DNI,DHI,Temperature,Wind Speed"
SITE_ARGUMENTS = "lat=40, lon=-105, tz=-7, elevation=1600"


def test_a_weather_file_of_many_years_is_refused_before_it_is_parsed(tmp_path: os.PathLike[str]) -> None:
    """Twelve one-minute years (215 MB): every row used to be parsed before the row count was
    checked (minutes and gigabytes; an abort under a 1 GiB address space). The line count is
    checked first now, for a path and for bytes alike, within 1 GiB."""
    path = os.path.join(tmp_path, "years.csv")
    with open(path, "wb") as out:
        out.write(MINUTE_HEADER.encode() + b"\n" + b"2020,1,1,0,0,500,600,100,20.5,3.2\n" * (12 * MINUTE_YEAR))
    done = isolated(
        f"""
        import resource, sunflux as sf
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
        for source in ({path!r}, open({path!r}, "rb").read()):
            try:
                sf.pvwatts.read_weather(source, {SITE_ARGUMENTS})
            except sf.ParameterError as error:
                print(str(error).partition(": ")[2])
        """,
        timeout=120,
    )
    refusal = f"has {12 * MINUTE_YEAR + 1} lines, more than a weather year can have (528064: a leap year of one-minute records plus headers)"
    assert done.stdout.splitlines() == [refusal, refusal], done.stdout + done.stderr


def test_weather_bytes_over_the_file_limit_are_refused_at_once() -> None:
    """The 1 GiB limit of weather files holds for bytes too (they were copied and parsed)."""
    done = isolated(
        f"""
        import sunflux as sf
        try:
            sf.pvwatts.read_weather(bytes((1 << 30) + 1), {SITE_ARGUMENTS})
        except sf.ParameterError as error:
            print(error)
        """,
        timeout=60,
    )
    assert done.stdout.strip() == "bytes: is larger than 1073741824 bytes, the limit for a weather file"


def test_a_weather_table_of_more_rows_than_a_year_is_refused() -> None:
    import pyarrow as pa

    rows = MINUTE_YEAR + 1
    table = pa.table({name: pa.array([1.0] * rows) for name in ("year", "month", "day", "hour", "ghi", "dni", "dhi", "temp_air", "wind_speed")})
    with pytest.raises(sf.ParameterError, match=f"has {rows} rows, more than a weather year has"):
        sf.pvwatts.read_weather(table, lat=40, lon=-105, tz=-7, elevation=1600)


def test_the_largest_weather_year_is_read_within_its_size_plus_four_times_the_weather(tmp_path: os.PathLike[str]) -> None:
    """A one-minute leap year with 40 more columns (225 MB): reading it from its path or its
    bytes needs no more address space than the file, the interpreter and 4× the weather read
    (docs/design.md, "Limits")."""
    import datetime

    path = os.path.join(tmp_path, "minutes.csv")
    padding = "".join(f",{column}.123456" for column in range(40))
    start = datetime.datetime(2020, 1, 1)
    with open(path, "w") as out:
        out.write(MINUTE_HEADER + "".join(f",x{column}" for column in range(40)) + "\n")
        for day in range(366):
            stamp = start + datetime.timedelta(days=day)
            out.write("".join(f"2020,{stamp.month},{stamp.day},{minute // 60},{minute % 60},500,600,100,20.5,3.2{padding}\n" for minute in range(1440)))
    done = isolated(
        f"""
        import os, resource, sunflux as sf
        def address_space():
            status = open("/proc/self/status").read()
            return int(status.split("VmSize:")[1].split()[0]) * 1024
        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
        for form in ("path", "bytes"):
            source = {path!r} if form == "path" else open({path!r}, "rb").read()
            file_bytes = os.path.getsize({path!r}) if form == "path" else 0
            cap = address_space() + file_bytes + 4 * {MINUTE_YEAR_WEATHER_BYTES}
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
            print(form, len(sf.pvwatts.read_weather(source, {SITE_ARGUMENTS})))
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
            del source
        """,
        timeout=120,
    )
    assert done.stdout.split() == ["path", str(MINUTE_YEAR), "bytes", str(MINUTE_YEAR)], done.stdout + done.stderr
