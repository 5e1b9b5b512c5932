"""Reliability of files and processes (issues #20 and #33): Ctrl-C during a climate bulk leaves a
consistent cache, damaged or irregular cache entries are downloaded again, simulate_many in a
forked child gives the parent's table, and weather files near the size limit are refused or
read with bounded memory."""

from __future__ import annotations

import os
import time
from typing import Any

import pytest

import sunflux as sf
from support.markers import requires_fork
from support.paths import DATA
from support.reliability import EMAIL, isolated, SLUG


# ---------------------------------------------------------------------------------------------
# climate.bulk: Ctrl-C, a damaged cache, the spelling of the base URL


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
# Forked children (issue #33)


@requires_fork
@pytest.mark.parametrize("threads", [1, 0])
def test_simulate_many_in_a_forked_child_gives_the_parents_table(threads: int) -> None:
    """The parent's batch started polars' thread pool, which the child does not have: the child
    hung building its table. The child must finish with the same table; a hang is killed."""
    weather_file = str(DATA / "723170TYA.CSV.gz")
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
