"""Reliability of what sunflux reads (issue #20): deep XML, zip entries claiming 64 GiB, zip bombs,
endless responses, devices and pipes, bodies cut short or padded, error bodies with status 200,
and CSV years of the wrong length can neither take the process down, nor grow memory without
bound, nor be read as data. A missing value is never a zero. Each test failed before the fix it
guards; cases that could crash run in a child process."""

from __future__ import annotations

import os
import socket
import struct
import threading
import time

import pytest

import sunflux as sf
from support.loopback import LoopbackServer, reply
from support.reliability import deep_xml, isolated, KEY, raw_server, year_csv


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
