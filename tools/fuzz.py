"""Fuzzes every parser of sunflux with mutated inputs and reports crashes, panics, untyped errors
and hangs; each such input is saved.

    python tools/fuzz.py --inputs 100000 --out fuzz-out            # the release run
    python tools/fuzz.py --inputs 2000 --seed 7 --targets zip,xml  # a quick look

Targets are the public parsers: dataset query answers (JSON, XML, CSV), estimator answers (JSON,
XML), climate CSV, download zips, technical-potential answers, gateway error bodies through the
client, optimizer results documents served to ``optimizer.results`` (types swapped, keys
dropped) and read whole, weather files (TMY2, TMY3, SAM CSV, climate CSV), weather tables,
optimizer scenario dicts, extreme arguments (numbers beyond a float, NaN, wrong types) to the
engine, the weather reader and the estimator, and `climate.bulk` cache entries (damaged files, links, named pipes, devices, directories,
oversized files under an entry's name). Each input is a mutation of a real sample (made by the embedded service or taken from
``tests/data``): bit flips, interesting bytes, cut, repeated and spliced ranges, extreme numbers,
deep nesting, and for structured inputs mutations of the parsed tree (types swapped, keys
dropped, values made huge or NaN, columns cut or misaligned).

An input may be accepted or refused with a sunflux error (`SunfluxError`); anything else is a
finding: a crash (the process dies by a signal), a panic (`PanicException`), an untyped error
(any other exception) or a hang (longer than ``--hang`` seconds). A supervisor runs the inputs
in a worker process that writes each input to disk before trying it, so a crash is reported with
its input saved under ``<out>/findings`` and the run goes on with the next input. The summary
(JSON on stdout) counts inputs and findings per target; the exit status is 1 when there is any
finding. Same seed, same inputs.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import io
import json
import math
import os
import pickle
import random
import subprocess
import sys
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
SLUG = "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"
KEY = "f" * 40

# ---------------------------------------------------------------------------------------------
# Seeds: real samples


def _service_samples() -> dict[str, list[Any]]:
    """Answers of the embedded service, fetched raw."""
    import sunflux as sf

    samples: dict[str, list[Any]] = {}
    with sf.LocalService(climate=sf.ClimateSettings(csv_interval=0, json_interval=0)) as service:
        client = service.client(throttle=False)

        def raw(endpoint: str, args: dict[str, str], params: dict[str, Any]) -> bytes:
            return client.request("GET", endpoint, args=args, params=params, check_errors=False).content

        samples["data_query_json"] = [raw("data_query", {"version": v, "format": "json"}, {"lat": 39.74, "lon": -105.18, "all": a, "radius": 50}) for v, a in (("v1", 1), ("v2", 0))]
        samples["data_query_xml"] = [raw("data_query", {"version": v, "format": "xml"}, {"lat": 39.74, "lon": -105.18, "all": a, "radius": 50}) for v, a in (("v1", 1), ("v2", 0))]
        samples["data_query_csv"] = [raw("data_query", {"version": "v1", "format": "csv"}, {"lat": 39.74, "lon": -105.18, "all": 1, "radius": 50})]
        estimate = {"system_capacity": 4, "module_type": 0, "losses": 14, "array_type": 1, "tilt": 20, "azimuth": 180, "lat": 39.74, "lon": -105.18}
        samples["estimate_json"] = [raw("pv_estimator", {"format": "json"}, estimate), raw("pv_estimator", {"format": "json"}, {**estimate, "timeframe": "hourly"})]
        samples["estimate_xml"] = [raw("pv_estimator", {"format": "xml"}, estimate)]
        csv_query = {"wkt": "POINT(-105.18 39.74)", "names": 2010, "attributes": "ghi,temperature_2m", "interval": 60, "email": "a@example.org"}
        samples["climate_csv"] = [raw("climate_download", {"dataset": SLUG, "format": "csv"}, csv_query)]
        request = client.climate.request(SLUG, wkt="MULTIPOINT(-105.18 39.74, -104.9 39.8)", years=[2010], email="a@example.org", attributes="ghi")
        client.climate.fetch(request.download_url)
        samples["climate_zip"] = [client.request("GET", "absolute", args={"url": request.download_url}).content]
        samples["technical_potential_config"] = [raw("technical_potential_config", {"explorer": "rede"}, {})]
        daylight = [1.0 if 7 <= hour % 24 < 17 else 0.0 for hour in range(8760)]
        scenario = {
            "Site": {"latitude": 39.74, "longitude": -105.17},
            "ElectricLoad": {"doe_reference_name": "FlatLoad", "annual_kwh": 876_000.0},
            "ElectricTariff": {"blended_annual_energy_rate": 0.15, "blended_annual_demand_rate": 12.0},
            "PV": {"max_kw": 500, "production_factor_series": daylight},
            "ElectricStorage": {"max_kwh": 400, "max_kw": 100},
        }
        solved = client.optimizer.run(scenario, timeout=300).raw
        samples["optimizer_results"] = [json.dumps(solved).encode(), (DATA / "scenarios" / "results_response.json").read_bytes()]
    samples["technical_potential_job"] = [(DATA / name).read_bytes() for name in ("tp_job_finished.json", "tp_job_queued.json")]
    return samples


ERROR_BODIES = [
    b'{"error":{"code":"API_KEY_INVALID","message":"An invalid api_key was supplied."}}',
    b'<?xml version="1.0"?><response><error><code>OVER_RATE_LIMIT</code><message>slow down</message></error></response>',
    b"Error Code,Error Message\nAPI_KEY_MISSING,No api_key was supplied.\n",
    b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>502</h1></body></html>",
    b'{"inputs":{},"errors":["lat must be between -90 and 90"],"warnings":[],"outputs":{}}',
]


def _weather_files() -> list[bytes]:
    files = [gzip.decompress((DATA / name).read_bytes()) for name in ("723170TYA.CSV.gz", "12839.tm2.gz", "703165TY.csv.gz")]
    return files


def _scenarios() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted((DATA / "scenarios").glob("*.json"))]


# ---------------------------------------------------------------------------------------------
# Mutations

INTERESTING_BYTES = b"\x00\xff\x7f\x80<>&\"',\n\r{}[]:;%\\#"
EXTREME_NUMBERS = [b"1e309", b"-1e309", b"NaN", b"nan", b"-0", b"99999999999999999999999", b"-9223372036854775809", b"1e-400", b"0x10", b"", b"inf"]


def mutate_bytes(data: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    """One to four random edits of `data`."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not out:
            out.extend(rng.choice(others)[: rng.randint(0, 64)])
            continue
        kind = rng.randrange(11)
        at = rng.randrange(len(out))
        if kind == 0:
            out[at] ^= 1 << rng.randrange(8)
        elif kind == 1:
            out[at] = rng.choice(INTERESTING_BYTES)
        elif kind == 2:
            del out[at : at + rng.randint(1, 64)]
        elif kind == 3:
            end = min(len(out), at + rng.randint(1, 256))
            out[at:at] = out[at:end] * rng.randint(1, 20)
        elif kind == 4:
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif kind == 5:
            other = rng.choice(others)
            start = rng.randrange(max(1, len(other)))
            out[at:] = other[start : start + rng.randint(1, 4096)]
        elif kind == 6:
            del out[at:]
        elif kind == 7:
            digits = [i for i in range(max(0, at - 200), min(len(out), at + 200)) if 48 <= out[i] <= 57]
            if digits:
                i = rng.choice(digits)
                j = i
                while j < len(out) and (48 <= out[j] <= 57 or out[j] in b".-eE+"):
                    j += 1
                out[i:j] = rng.choice(EXTREME_NUMBERS)
        elif kind == 8:
            opening = rng.choice([b"<a>", b"[", b"{\"a\":"])
            closing = {b"<a>": b"</a>", b"[": b"]", b"{\"a\":": b"}"}[opening]
            depth = rng.choice([10, 100, 1000, 100_000])
            out[at:at] = opening * depth + closing * depth
        elif kind == 9:
            out[at:at] = b"," * rng.choice([1, 10, 2000])
        else:
            newline = out.find(b"\n", at)
            if newline >= 0:
                out[newline:newline] = out[at:newline] * rng.randint(1, 3)
    return bytes(out)


def mutate_tree(value: Any, rng: random.Random) -> Any:
    """`value` (a JSON-like tree) with one node changed."""
    replacements: list[Callable[[], Any]] = [
        lambda: None,
        lambda: "",
        lambda: "x" * rng.choice([1, 1000]),
        lambda: rng.choice([0, -1, 2**63, -(2**70), 1e308, float("nan"), float("inf"), 0.5]),
        lambda: [],
        lambda: {},
        lambda: True,
        lambda: [1] * rng.choice([1, 8760, 100_000]),
        lambda: {"a": {"b": {"c": [None, "d"]}}},
    ]
    if isinstance(value, dict) and value and rng.random() < 0.8:
        key = rng.choice(list(value))
        copy = dict(value)
        roll = rng.random()
        if roll < 0.2:
            del copy[key]
        elif roll < 0.6:
            copy[key] = mutate_tree(copy[key], rng)
        else:
            copy[key] = rng.choice(replacements)()
        return copy
    if isinstance(value, list) and value and rng.random() < 0.8:
        copy = list(value)
        index = rng.randrange(len(copy))
        roll = rng.random()
        if roll < 0.2:
            del copy[index]
        elif roll < 0.3:
            copy.extend(copy[:index] * 2)
        else:
            copy[index] = mutate_tree(copy[index], rng) if rng.random() < 0.6 else rng.choice(replacements)()
        return copy
    return rng.choice(replacements)()


def mutate_zip(data: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    """A zip whose entries are mutated CSVs, renamed or repeated, or the archive's bytes mutated."""
    if rng.random() < 0.4:
        return mutate_bytes(data, rng, others)
    entries: list[tuple[str, bytes]] = []
    with contextlib.suppress(Exception), zipfile.ZipFile(io.BytesIO(data)) as archive:
        entries = [(name, archive.read(name)) for name in archive.namelist()]
    if not entries:
        return mutate_bytes(data, rng, others)
    name, body = rng.choice(entries)
    roll = rng.random()
    if roll < 0.6:
        entries = [(n, mutate_bytes(b, rng, [b]) if n == name else b) for n, b in entries]
    elif roll < 0.8:
        entries = entries * rng.randint(2, 5)
    else:
        entries.append((rng.choice(["../../evil.csv", "x" * 300 + ".csv", "a.CSV", "dir/", ""]), body))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])) as archive:
        for entry_name, entry_body in entries:
            with contextlib.suppress(Exception):
                archive.writestr(entry_name or "empty.csv", entry_body)
    return out.getvalue()


def mutate_json_bytes(data: bytes, rng: random.Random, others: list[bytes]) -> bytes:
    if rng.random() < 0.5:
        return mutate_bytes(data, rng, others)
    try:
        tree = json.loads(data)
    except ValueError:
        return mutate_bytes(data, rng, others)
    for _ in range(rng.randint(1, 3)):
        tree = mutate_tree(tree, rng)
    return json.dumps(tree, allow_nan=True).encode()


def weather_table(rng: random.Random) -> dict[str, Any]:
    """A table of columns for `read_weather`: mostly one good year, with one to three faults."""
    import datetime as dt

    hours = rng.choice([8760, 8760, 8784, 0, 1, 8759, 17520])
    start = dt.datetime(2012 if hours == 8784 else 2010, 1, 1)
    stamps = [start + dt.timedelta(hours=h) for h in range(hours)]
    table: dict[str, Any] = {
        "year": [s.year for s in stamps],
        "month": [s.month for s in stamps],
        "day": [s.day for s in stamps],
        "hour": [s.hour for s in stamps],
        "ghi": [max(0.0, 800 * math.sin(math.pi * (s.hour - 6) / 12)) for s in stamps],
        "dni": [0.0] * hours,
        "dhi": [50.0] * hours,
        "temp_air": [15.0] * hours,
        "wind_speed": [2.0] * hours,
    }
    faults: list[Callable[[], None]] = [
        lambda: table.pop(rng.choice(list(table))),
        lambda: table.__setitem__(rng.choice(list(table)), [rng.choice([None, "x", float("nan"), 1e308, -5, 2**40])] * hours),
        lambda: table.__setitem__(rng.choice(list(table)), table[rng.choice(list(table))][: max(0, hours - rng.randint(1, 10))]),
        lambda: table.__setitem__("minute", [rng.choice([0, 30, 61, -1])] * hours),
        lambda: table.__setitem__("timestamp", stamps),
        lambda: table.__setitem__("pressure", ["high"] * hours),
        lambda: table.__setitem__(rng.choice(list(table)), [[1, 2]] * hours),
        lambda: table.__setitem__(rng.choice(["year", "month", "day", "hour"]), [rng.choice([0, 13, 32, 24, 10**12])] * hours),
        lambda: table.__setitem__("ghi", [str(v) for v in table.get("ghi", [])]),
        lambda: table.__setitem__(rng.choice(list(table)), [True] * hours),
    ]
    for _ in range(rng.randint(0, 3)):
        if table:
            rng.choice(faults)()
    return table


# ---------------------------------------------------------------------------------------------
# Cache entries: what may sit under an entry's name in a `climate.bulk` cache

#: The request every fuzzed cache entry answers.
CACHE_KEY = "fuzz|climate|site-year"
#: What is put under the entry's name: its bytes as a file named by the seed's checksum (the
#: mutated bytes fail it), as a file named by their own checksum (the Arrow reader sees them), a
#: link to them, a named pipe, a link to an endless device, a directory, a sparse file larger
#: than any entry.
CACHE_SHAPES = ("file", "checksummed_file", "link_to_file", "fifo", "link_to_device", "directory", "oversized")


def cache_entry_seeds(climate_csvs: list[bytes]) -> list[tuple[str, bytes]]:
    """Real entries: the climate CSV samples as the cache writes them, with their file names."""
    import tempfile

    import sunflux as sf
    from sunflux._cache import SiteYearCache

    seeds = []
    for body in climate_csvs:
        with tempfile.TemporaryDirectory() as folder:
            SiteYearCache(folder).write(CACHE_KEY, sf.climate.parse_csv(body))
            (name,) = os.listdir(folder)
            seeds.append((name, (Path(folder) / name).read_bytes()))
    return seeds


def mutate_cache_entry(seed: tuple[str, bytes], rng: random.Random, others: list[tuple[str, bytes]]) -> tuple[str, str, bytes]:
    name, data = seed
    return rng.choice(CACHE_SHAPES), name, mutate_bytes(data, rng, [other for _, other in others])


def read_cache_entry(value: tuple[str, str, bytes]) -> None:
    """Puts the entry in a fresh cache and reads it: a damaged file is skipped or refused, and
    nothing but a regular file is ever read."""
    import hashlib
    import tempfile

    from sunflux._cache import MAX_ENTRY_BYTES, SiteYearCache

    shape, name, data = value
    with tempfile.TemporaryDirectory() as folder:
        if shape == "checksummed_file":
            name = f"{name.rpartition('-')[0]}-{hashlib.sha256(data).hexdigest()[:16]}.arrow"
        path = Path(folder) / name
        if shape in ("file", "checksummed_file"):
            path.write_bytes(data)
        elif shape == "link_to_file":
            (Path(folder) / "elsewhere").write_bytes(data)
            path.symlink_to(Path(folder) / "elsewhere")
        elif shape == "fifo":
            os.mkfifo(path)
        elif shape == "link_to_device":
            path.symlink_to("/dev/zero")
        elif shape == "directory":
            path.mkdir()
        else:
            with path.open("wb") as sparse:
                sparse.truncate(MAX_ENTRY_BYTES + 1)
        frame = SiteYearCache(folder).read(CACHE_KEY)
        if frame is not None and shape not in ("file", "checksummed_file"):
            raise AssertionError(f"a cache entry that is a {shape} was read")


# ---------------------------------------------------------------------------------------------
# Targets


@dataclass
class Target:
    name: str
    seeds: list[Any]
    mutate: Callable[[Any, random.Random, list[Any]], Any]
    run: Callable[[Any], Any]


def prepare_seeds(out: Path) -> Path:
    """Makes the samples once per run (the embedded service answers) and keeps them in `out`."""
    path = out / "seeds.pkl"
    seeds = {"samples": _service_samples(), "weather": _weather_files(), "scenarios": _scenarios()}
    path.write_bytes(pickle.dumps(seeds))
    return path


def _targets(seeds_path: Path) -> dict[str, Target]:
    import sunflux as sf
    from sunflux import _core
    from sunflux.optimizer import Scenario, validate_scenario_dict

    seeds = pickle.loads(seeds_path.read_bytes())
    samples, weather, scenarios = seeds["samples"], seeds["weather"], seeds["scenarios"]

    def query(fmt: str, version: str = "v2") -> Callable[[bytes], Any]:
        return lambda body: sf.solar.parse_data_query(body, 39.74, -105.18, version=version, format=fmt, all=version == "v1", radius=50)

    def both_versions(fmt: str) -> Callable[[bytes], Any]:
        def run(body: bytes) -> None:
            for version in ("v1", "v2"):
                with contextlib.suppress(sf.SunfluxError):
                    query(fmt, version)(body)

        return run

    def scenario(data: Any) -> None:
        validate_scenario_dict(data)
        built = Scenario.from_dict(data)
        built.validate()
        built.to_dict()
        built.to_dict(include_defaults=True)

    def weather_file(body: bytes) -> None:
        for name in ("bytes", "file.tm2", "file.csv"):
            with contextlib.suppress(sf.SunfluxError):
                sf.pvwatts.read_weather(body) if name == "bytes" else _core.read_weather_bytes(body, name)

    def climate_csv(body: bytes) -> None:
        with contextlib.suppress(sf.SunfluxError):
            sf.climate.parse_csv(body)
        table = sf.climate.parse_csv(body, whole_year=False)
        table.metadata
        with contextlib.suppress(sf.SunfluxError):
            table.weather()

    answers = ServedAnswers()
    results = ServedResults()
    arguments = ExtremeArguments(weather[0])

    targets = [
        Target("data_query_json", samples["data_query_json"], mutate_json_bytes, both_versions("json")),
        Target("data_query_xml", samples["data_query_xml"], mutate_bytes, both_versions("xml")),
        Target("data_query_csv", samples["data_query_csv"], mutate_bytes, both_versions("csv")),
        Target("estimate_json", samples["estimate_json"], mutate_json_bytes, lambda body: sf.pv.parse_estimate(body, "json")),
        Target("estimate_xml", samples["estimate_xml"], mutate_bytes, lambda body: sf.pv.parse_estimate(body, "xml")),
        Target("climate_csv", samples["climate_csv"], mutate_bytes, climate_csv),
        Target("climate_zip", samples["climate_zip"], mutate_zip, sf.climate.parse_zip),
        Target("technical_potential_config", samples["technical_potential_config"], mutate_json_bytes, _core.parse_technical_potential_configuration),
        Target("technical_potential_job", samples["technical_potential_job"], mutate_json_bytes, _core.parse_technical_potential_job),
        Target("weather_file", weather, mutate_bytes, weather_file),
        Target("weather_table", [None], lambda _seed, rng, _others: weather_table(rng), lambda table: sf.pvwatts.read_weather(table, lat=40.0, lon=-105.0, tz=-7, elevation=1600)),
        Target("scenario", scenarios, lambda seed, rng, _others: mutate_tree(mutate_tree(seed, rng), rng), scenario),
        Target("http_answers", ERROR_BODIES + samples["data_query_json"][:1], answers.mutate, answers.run),
        Target("cache_entry", cache_entry_seeds(samples["climate_csv"]), mutate_cache_entry, read_cache_entry),
        Target("optimizer_results", samples["optimizer_results"], mutate_json_bytes, results.run),
        Target("arguments", list(ARGUMENT_CALLS), lambda call, rng, _others: extreme_arguments(call, rng), arguments.run),
    ]
    return {target.name: target for target in targets}


class ServedAnswers:
    """Answers served over loopback to a client: a mutated status line, headers and body,
    sent whole, cut, padded or chunked — the transport's own parsing of what servers send."""

    def __init__(self) -> None:
        import socket

        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.current = b""
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            connection, _ = self.listener.accept()
            with connection:
                connection.settimeout(2)
                with contextlib.suppress(OSError):
                    connection.recv(65536)
                    connection.sendall(self.current)

    def mutate(self, body: bytes, rng: random.Random, others: list[bytes]) -> bytes:
        body = mutate_bytes(body, rng, others) if rng.random() < 0.7 else body
        status = rng.choice([b"200 OK", b"200 OK", b"403 Forbidden", b"429 Too Many", b"500 Oops", b"302 Found", b"204 No Content", b"999 X", b"abc"])
        headers = [rng.choice([b"content-type: application/json", b"content-type: text/html", b"content-type: application/xml", b"content-type: \xff"])]
        framing = rng.randrange(5)
        if framing == 0:
            headers.append(b"content-length: %d" % len(body))
        elif framing == 1:
            headers.append(b"content-length: %d" % (len(body) + rng.randint(1, 100)))
        elif framing == 2:
            headers.append(b"content-length: %d" % max(0, len(body) - rng.randint(1, 100)))
        elif framing == 3:
            headers.append(b"transfer-encoding: chunked")
            body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body) if rng.random() < 0.7 else mutate_bytes(b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body), rng, others)
        if rng.random() < 0.2:
            headers.append(rng.choice([b"retry-after: 1e308", b"retry-after: -5", b"location: ftp://x", b"location: http://evil.example/", b"x-ratelimit-remaining: 99999999999999999999999", b"content-encoding: gzip"]))
        return b"HTTP/1.1 " + status + b"\r\n" + b"\r\n".join(headers) + b"\r\nconnection: close\r\n\r\n" + body

    def run(self, answer: bytes) -> None:
        import sunflux as sf

        self.current = answer
        client = sf.Client(KEY, f"http://127.0.0.1:{self.port}", retries=0, timeout=2, deadline=3, throttle=False)
        client.solar.data_query(39.74, -105.18)


class ServedResults(ServedAnswers):
    """An optimizer results document served whole over loopback to ``optimizer.results``, then
    read as a user does: status, messages, summary, series and the outage simulation."""

    def run(self, body: bytes) -> None:  # type: ignore[override]
        import sunflux as sf

        self.current = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
        client = sf.Client(KEY, f"http://127.0.0.1:{self.port}", retries=0, timeout=2, deadline=3, throttle=False)
        result = client.optimizer.results("4b3a05d4-3c3b-4b1e-9d6e-6a1f6d1f0c7e")
        (result.status, result.messages, result.run_uuid)
        for read in (result.summary, result.series, result.simulate_outages):
            with contextlib.suppress(sf.SunfluxError):
                read()


#: Calls that take numbers from users, with one valid set of arguments each.
ARGUMENT_CALLS: dict[str, dict[str, Any]] = {
    "simulate": {"system_capacity": 4, "module_type": 0, "losses": 14, "array_type": 1, "tilt": 20, "azimuth": 180, "dc_ac_ratio": 1.2, "gcr": 0.4, "inv_eff": 96},
    "simulate_v8": {"system_capacity": 4, "module_type": 0, "losses": 14, "array_type": 1, "tilt": 20, "azimuth": 180, "bifaciality": 0.7, "albedo": 0.2, "soiling": [1.0] * 12},
    "read_weather": {"lat": 40.0, "lon": -105.0, "tz": -7, "elevation": 1600},
    "estimate": {"system_capacity": 4, "module_type": 0, "losses": 14, "array_type": 1, "tilt": 20, "azimuth": 180, "lat": 39.74, "lon": -105.18},
}
EXTREME_VALUES: list[Any] = [10**400, -(10**400), 2**63, float("nan"), float("inf"), -float("inf"), 1e308, -0.0, True, "4", "", None, [], {}, [1.0] * 13, object()]


def extreme_arguments(call: str, rng: random.Random) -> tuple[str, dict[str, Any]]:
    """`call` with one to three of its arguments replaced by extreme values."""
    arguments = dict(ARGUMENT_CALLS[call])
    for name in rng.sample(sorted(arguments), rng.randint(1, min(3, len(arguments)))):
        arguments[name] = rng.choice(EXTREME_VALUES)
    if rng.random() < 0.2:
        arguments[rng.choice(["surface_tilt", "x" * 40])] = rng.choice(EXTREME_VALUES)
    return call, arguments


class ExtremeArguments:
    """Runs one call of `ARGUMENT_CALLS` with its extreme arguments; the estimator's client points
    at a closed port, so an argument it does not refuse ends in a `TransportError`."""

    def __init__(self, weather_file: bytes) -> None:
        import sunflux as sf

        self.weather = sf.pvwatts.read_weather(weather_file)
        self.table = self.weather.to_polars()
        self.client = sf.Client(KEY, "http://127.0.0.1:9", retries=0, timeout=1, deadline=2, throttle=False)

    def run(self, value: tuple[str, dict[str, Any]]) -> None:
        import sunflux as sf

        call, arguments = value
        if call == "simulate":
            sf.pvwatts.simulate(self.weather, **arguments, timeframe="monthly")
        elif call == "simulate_v8":
            sf.pvwatts.simulate(self.weather, **arguments, version="v8", timeframe="monthly", threads=1)
        elif call == "read_weather":
            sf.pvwatts.read_weather(self.table, **arguments)
        else:
            self.client.pv.estimate(**arguments)


# ---------------------------------------------------------------------------------------------
# Worker and supervisor

ALLOWED = "SunfluxError"


def _inputs(target: Target, seed: int, start: int) -> Iterator[tuple[int, Any]]:
    index = start
    while True:
        rng = random.Random(f"{seed}:{target.name}:{index}")
        chosen = rng.choice(target.seeds)
        try:
            value = target.mutate(chosen, rng, target.seeds)
        except Exception:  # noqa: BLE001 - a mutation that cannot apply leaves the sample as it is
            value = chosen
        yield index, value
        index += 1


def worker(name: str, seed: int, start: int, count: int, out: Path, hang: float) -> None:
    """Runs inputs `start`..`start+count` of one target; one JSON line per finding, then `done`."""
    import sunflux as sf

    target = _targets(out / "seeds.pkl")[name]
    current = out / f"current-{name}.pkl"
    report = sys.stdout
    deadline = [math.inf]

    def watchdog() -> None:
        while True:
            time.sleep(0.05)
            if time.monotonic() > deadline[0]:
                report.write(json.dumps({"hang": True}) + "\n")
                report.flush()
                os._exit(3)

    threading.Thread(target=watchdog, daemon=True).start()
    for index, value in _inputs(target, seed, start):
        if index >= start + count:
            break
        current.write_bytes(pickle.dumps((name, index, value)))
        report.write(json.dumps({"at": index}) + "\n")
        report.flush()
        deadline[0] = time.monotonic() + hang
        outcome = None
        with warnings_ignored():
            try:
                target.run(value)
            except sf.SunfluxError:
                pass
            except BaseException as error:  # noqa: BLE001 - every other exception is a finding
                kind = "panic" if type(error).__name__ == "PanicException" else "untyped"
                if isinstance(error, KeyboardInterrupt):
                    raise
                outcome = {"finding": kind, "index": index, "error": f"{type(error).__name__}: {str(error)[:300]}"}
        deadline[0] = math.inf
        if outcome is not None:
            report.write(json.dumps(outcome) + "\n")
            report.flush()
    report.write(json.dumps({"done": True}) + "\n")
    report.flush()


@contextlib.contextmanager
def warnings_ignored() -> Iterator[None]:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def supervise(names: list[str], inputs: int, seed: int, out: Path, hang: float) -> dict[str, Any]:
    """Runs every target's share of `inputs` in worker processes, restarting after a crash or a
    hang; findings are saved under ``out/findings``."""
    findings_dir = out / "findings"
    findings_dir.mkdir(parents=True, exist_ok=True)
    prepare_seeds(out)
    summary: dict[str, Any] = {"inputs": 0, "crashes": 0, "panics": 0, "untyped": 0, "hangs": 0, "seconds": 0.0, "targets": {}, "findings": []}
    started = time.monotonic()
    share = max(1, inputs // len(names))
    for name in names:
        counts = {"inputs": 0, "crashes": 0, "panics": 0, "untyped": 0, "hangs": 0}
        position = 0
        while position < share:
            command = [sys.executable, __file__, "--worker", name, "--seed", str(seed), "--start", str(position), "--inputs", str(share - position), "--out", str(out), "--hang", str(hang)]
            errors = out / f"worker-{name}.err"
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors.open("w"), text=True)
            last = position - 1
            finished = hung = False
            assert process.stdout is not None
            for line in process.stdout:
                event = json.loads(line)
                if "at" in event:
                    last = event["at"]
                elif "finding" in event:
                    counts["panics" if event["finding"] == "panic" else "untyped"] += 1
                    saved = _save(out, findings_dir, name, event["index"], event["finding"])
                    summary["findings"].append({**event, "target": name, "input": str(saved)})
                elif event.get("hang"):
                    hung = True
                elif event.get("done"):
                    finished = True
            code = process.wait()
            if finished:
                counts["inputs"] += share - position
                break
            # The input that ended the worker is the last one it announced (or, when it ended
            # before announcing one, the one it was making).
            last = max(last, position)
            # A signal is a crash; any other early end (an exception the worker did not catch,
            # such as MemoryError while building an input) is reported with its stderr.
            kind = "hang" if hung else "crash" if code < 0 else "untyped"
            counts[{"hang": "hangs", "crash": "crashes", "untyped": "untyped"}[kind]] += 1
            saved = _save(out, findings_dir, name, last, kind)
            tail = errors.read_text()[-500:] if kind == "untyped" else ""
            summary["findings"].append({"finding": kind, "target": name, "index": last, "exit": code, "input": str(saved), "error": tail})
            counts["inputs"] += last + 1 - position
            position = last + 1
        summary["targets"][name] = counts
        for key in ("inputs", "crashes", "panics", "untyped", "hangs"):
            summary[key] += counts[key]
    summary["seconds"] = round(time.monotonic() - started, 1)
    return summary


def _save(out: Path, findings: Path, name: str, index: int, kind: str) -> Path:
    """Keeps the input of a finding (the worker wrote it before trying it)."""
    current = out / f"current-{name}.pkl"
    target = findings / f"{kind}-{name}-{index}.pkl"
    if current.exists():
        target.write_bytes(current.read_bytes())
    return target


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=2000, help="inputs in all, shared by the targets")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--targets", default="", help="comma-separated target names (default: all)")
    parser.add_argument("--out", default="fuzz-out", help="where inputs of findings are saved")
    parser.add_argument("--hang", type=float, default=20.0, help="seconds after which an input is a hang")
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    options = parser.parse_args()
    out = Path(options.out)
    out.mkdir(parents=True, exist_ok=True)
    if options.worker:
        worker(options.worker, options.seed, options.start, options.inputs, out, options.hang)
        return 0
    names = [n for n in options.targets.split(",") if n] or list(TARGET_NAMES)
    unknown = sorted(set(names) - set(TARGET_NAMES))
    if unknown:
        parser.error(f"unknown targets {unknown}; known: {', '.join(TARGET_NAMES)}")
    summary = supervise(names, options.inputs, options.seed, out, options.hang)
    print(json.dumps(summary, indent=2))
    return 1 if any(summary[k] for k in ("crashes", "panics", "untyped", "hangs")) else 0


TARGET_NAMES = (
    "data_query_json", "data_query_xml", "data_query_csv", "estimate_json", "estimate_xml", "climate_csv", "climate_zip",
    "technical_potential_config", "technical_potential_job", "weather_file", "weather_table", "scenario", "http_answers", "cache_entry", "optimizer_results", "arguments",
)

if __name__ == "__main__":
    sys.exit(main())
