"""Security (issue #20): the API key never appears in what sunflux gives back, whatever a server
reflects and in whichever encoding; path arguments cannot reach another endpoint; plain http only
for loopback; the embedded service counts only authenticated requests and answers only its own
host names.

The sentinel-key test puts a reflecting proxy between a client and the embedded service: every
answer comes back with the caller's key written into its free-text fields — raw, JSON-escaped,
XML-escaped and percent-encoded — and every kind of output is searched for it: typed results
(their attributes, frames, repr and pickle), raw bodies kept on results, warnings, exceptions
(message, attributes, repr, pickle), log lines and cache files. Raw response bodies of the
low-level `client.request` may keep what the server sent and are not searched.
"""

from __future__ import annotations

import base64
import csv
import http.server
import io
import json
import logging
import pickle
import re
import traceback
import urllib.error
import urllib.parse
import urllib.request
import uuid
import warnings
import zipfile
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from support.paths import SCENARIOS
from support.loopback import LoopbackServer, reply

import sunflux as sf
import sunflux._client

SENTINEL = "SeNtInElKeY0123456789abcdefghijklmnopqrs"
assert len(SENTINEL) == 40
SLUG = "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"
EMAIL = "analyst@example.org"
FAIL_LAT = 13.13


def json_escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def xml_escaped(text: str) -> str:
    return "".join(f"&#{ord(c)};" for c in text)


def percent_encoded(text: str) -> str:
    return "".join(f"%{ord(c):02X}" for c in text)


ENCODINGS = {
    "raw": SENTINEL,
    "json": json_escaped(SENTINEL),
    "json-upper": json_escaped(SENTINEL).upper().replace("\\U", "\\u"),
    "xml": xml_escaped(SENTINEL),
    "percent": percent_encoded(SENTINEL),
    "percent-lower": percent_encoded(SENTINEL).lower(),
    "basic": base64.b64encode(f"{SENTINEL}:".encode()).decode(),
    "hex": SENTINEL.encode().hex(),
    "hex-upper": SENTINEL.encode().hex().upper(),
    "base64": base64.b64encode(SENTINEL.encode()).decode(),
    "base64-unpadded": base64.b64encode(SENTINEL.encode()).decode().rstrip("="),
}


def leaks(text: str) -> list[str]:
    """The encodings of the sentinel found in `text`."""
    return [name for name, form in ENCODINGS.items() if form in text]


def exposed(value: Any, depth: int = 0, seen: set[int] | None = None) -> Iterator[str]:
    """Every text a user can get out of `value`: str, repr, pickle, and the same of its
    attributes, items and frames (recursively)."""
    seen = set() if seen is None else seen
    if id(value) in seen or depth > 6:
        return
    seen.add(id(value))
    yield repr(value)
    yield str(value)
    try:
        yield pickle.dumps(value).decode("latin-1")
    except Exception:
        pass
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        if isinstance(value, bytes):
            yield value.decode("latin-1")
        return
    if isinstance(value, pl.DataFrame):
        yield value.write_csv()
        yield json.dumps(value.schema, default=str)
        return
    if isinstance(value, BaseException):
        yield from exposed(value.args, depth + 1, seen)
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield str(key)
            yield from exposed(item, depth + 1, seen)
        return
    if isinstance(value, (list, tuple, set)):
        for item in value:
            yield from exposed(item, depth + 1, seen)
        return
    for name in dir(value):
        if name.startswith("_") or name in ("to_pandas", "to_arrow"):
            continue
        try:
            attribute = getattr(value, name)
        except Exception:
            continue
        if callable(attribute) and not isinstance(attribute, (pl.DataFrame, Mapping)):
            if name in ("to_polars", "series", "to_dict", "weather"):
                try:
                    attribute = attribute()
                except Exception:
                    continue
            else:
                continue
        yield from exposed(attribute, depth + 1, seen)


# ---------------------------------------------------------------------------------------------
# The reflecting proxy


def _inject_json(value: Any, key: str) -> Any:
    """The answer with the key written into its free-text fields (not ids, paths or statuses)."""
    if isinstance(value, dict):
        out = {}
        for name, item in value.items():
            if name in ("city", "state", "country", "build", "version", "weather_data_source", "message", "solar_resource_file", "note") and isinstance(item, str):
                out[name] = f"{item} {key}"
            else:
                out[name] = _inject_json(item, key)
        if "warnings" in out and isinstance(out["warnings"], list):
            out["warnings"] = [*out["warnings"], key, json.loads(f'"{json_escaped(key)}"')]
        if "inputs" in out and isinstance(out["inputs"], dict):
            out["inputs"]["echo"] = key
        if "metadata" in out and isinstance(out["metadata"], dict):
            out["metadata"]["echo"] = key
        return out
    if isinstance(value, list):
        return [_inject_json(item, key) for item in value]
    return value


def _json_text(value: Any) -> bytes:
    """JSON with the key written JSON-escaped (as a server escaping every character would)."""
    return json.dumps(value).replace(SENTINEL, json_escaped(SENTINEL)).encode()


def _inject_xml(body: bytes) -> bytes:
    text = body.decode()
    text = re.sub(r"<city>([^<]*)</city>", lambda m: f"<city>{m.group(1)} {xml_escaped(SENTINEL)}</city>", text)
    text = re.sub(r"<version>([^<]*)</version>", lambda m: f"<version>{m.group(1)} {SENTINEL}</version>", text)
    text = text.replace('<warnings type="array">', f'<warnings type="array"><warning>{xml_escaped(SENTINEL)}</warning>', 1)
    return text.encode()


def _inject_station_csv(body: bytes) -> bytes:
    rows = list(csv.reader(io.StringIO(body.decode())))
    city = rows[0].index("city")
    for row in rows[1:]:
        row[city] = f"{row[city]} {SENTINEL}"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


def _inject_climate_csv(body: bytes) -> bytes:
    lines = body.decode().split("\n")
    values = next(csv.reader([lines[1]]))
    values[0] = percent_encoded(SENTINEL)
    values[2] = SENTINEL
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow(values)
    lines[1] = out.getvalue()
    return "\n".join(lines).encode()


def _inject_zip(body: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(body)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            target.writestr(f"{SENTINEL}_{name}", _inject_climate_csv(source.read(name)))
    return out.getvalue()


class ReflectingProxy:
    """Forwards each request to the embedded service and writes the caller's key into the answer;
    requests for latitude 13.13 (or the marked optimizer and zip paths) get error answers that
    carry the key instead."""

    def __init__(self, service: sf.LocalService) -> None:
        self.service = service
        self.server = LoopbackServer()
        self.url = self.server.url
        self.server.handler = self.handle

    def close(self) -> None:
        self.server.close()

    def handle(self, request: http.server.BaseHTTPRequestHandler) -> None:
        path = request.path
        failing = f"lat={FAIL_LAT}" in path or f"{FAIL_LAT}" in urllib.parse.unquote(path)
        if failing:
            return self.fail(request)
        if path.startswith("/optimizer-bad/"):
            return reply(request, 200, f"not json, key {SENTINEL}".encode(), {"content-type": "text/plain"})
        if path.startswith("/files/bad.zip"):
            return reply(request, 200, f"Error: file gone for {SENTINEL}".encode(), {"content-type": "text/plain"})
        status, headers, body = self.forward(request)
        content_type = headers.get("content-type", "application/json")
        if status < 300:
            body = self.reflect(path, content_type, body)
        reply(request, status, body, {"content-type": content_type})

    def fail(self, request: http.server.BaseHTTPRequestHandler) -> None:
        path = request.path
        if "/pv-estimator/" in path:
            body = json.dumps({"errors": [SENTINEL, f"bad value for {SENTINEL}"], "inputs": {}, "outputs": {}})
            return reply(request, 422, body.replace(SENTINEL, json_escaped(SENTINEL), 1).encode())
        if "/data_query/" in path:
            message = f"An invalid api_key was supplied: {SENTINEL}"
            return reply(request, 403, json.dumps({"error": {"code": "API_KEY_INVALID", "message": message}}).encode())
        page = f"<html><head><title>500 Internal Server Error</title></head><body><h1>Oops</h1><p>key {SENTINEL}</p></body></html>"
        return reply(request, 500, page.encode(), {"content-type": "text/html"})

    def forward(self, request: http.server.BaseHTTPRequestHandler) -> tuple[int, dict[str, str], bytes]:
        body = getattr(request, "body", b"")
        headers = {name: value for name, value in request.headers.items() if name.lower() not in ("host", "content-length")}
        forwarded = urllib.request.Request(self.service.base_url + request.path, data=body or None, headers=headers, method=request.command)
        try:
            with urllib.request.urlopen(forwarded) as answer:
                return answer.status, dict(answer.headers.items()), answer.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers.items()), error.read()

    def reflect(self, path: str, content_type: str, body: bytes) -> bytes:
        if path.startswith("/files/climate/"):
            return _inject_zip(body)
        if "download.csv" in path:
            return _inject_climate_csv(body)
        if "xml" in content_type:
            return _inject_xml(body)
        if "csv" in content_type:
            return _inject_station_csv(body)
        value = json.loads(body)
        if isinstance(value, dict) and isinstance(value.get("outputs"), dict) and "downloadUrl" in value["outputs"]:
            url = value["outputs"]["downloadUrl"].replace(self.service.base_url, self.url)
            value["outputs"]["downloadUrl"] = f"{url}?note={json_escaped(SENTINEL)}"
        if isinstance(value, dict) and "run_uuid" in value:
            value["echo"] = SENTINEL
            messages = value.get("messages")
            if isinstance(messages, dict):
                messages["info"] = f"run by {SENTINEL}"
        return _json_text(_inject_json(value, SENTINEL))


@pytest.fixture(scope="module")
def proxy() -> Iterator[ReflectingProxy]:
    with sf.LocalService(extra_keys=[SENTINEL], climate=sf.ClimateSettings(csv_interval=0, json_interval=0)) as service:
        proxy = ReflectingProxy(service)
        yield proxy
        proxy.close()


QUICK = {
    "solar": sf.ServiceLimits(),
    "climate_csv": sf.ServiceLimits(),
    "climate_other": sf.ServiceLimits(),
}


def client_for(proxy: ReflectingProxy, auth: str = "header") -> sf.Client:
    return sf.Client(SENTINEL, proxy.url, auth=auth, routes="spec", retries=1, backoff=0.01, limits=QUICK)


class Outputs:
    """Collects every text a call exposes and checks none holds the sentinel."""

    def __init__(self) -> None:
        self.texts: list[tuple[str, str]] = []

    def call(self, label: str, call: Callable[[], Any]) -> Any:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = call()
            except sf.SunfluxError as error:
                self.add(f"{label} error", error)
                result = None
            for warning in caught:
                self.add(f"{label} warning", str(warning.message))
        if result is not None:
            self.add(label, result)
        return result

    def add(self, label: str, value: Any) -> None:
        self.texts.extend((label, text) for text in exposed(value))

    def assert_clean(self) -> None:
        found = {(label, encoding) for label, text in self.texts for encoding in leaks(text)}
        assert not found, sorted(found)


def test_the_key_a_server_reflects_never_reaches_the_user(proxy: ReflectingProxy, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="sunflux")
    outputs = Outputs()
    for auth in ("header", "query", "basic"):
        client = client_for(proxy, auth)
        outputs.add("client", client)
        for version in ("v1", "v2"):
            for fmt in ("json", "xml", "csv"):
                outputs.call(f"data_query {auth} {version} {fmt}", lambda: client.solar.data_query(39.74, -105.18, version=version, format=fmt))
        for fmt in ("json", "xml"):
            outputs.call(f"estimate {fmt}", lambda: client.pv.estimate(4, 0, 14, 1, 20, 180, lat=39.74, lon=-105.18, timeframe="hourly", format=fmt))
    client = client_for(proxy)
    table = outputs.call("download_csv", lambda: client.climate.download_csv(SLUG, lat=39.74, lon=-105.18, year=2010, email=EMAIL, attributes="ghi,dni,dhi,temperature_2m,windspeed_10m"))
    assert table is not None and table.metadata.city.endswith("***"), "the reflected key was masked, not dropped"
    outputs.call("weather of a table", lambda: table.weather())
    request = outputs.call("request", lambda: client.climate.request(SLUG, wkt="MULTIPOINT(-105.18 39.74, -105.2 39.8)", years=[2010], email=EMAIL, attributes="ghi"))
    assert request is not None
    outputs.call("fetch", lambda: client.climate.fetch(request.download_url))
    outputs.call("fetch of a body that is not a zip", lambda: client.climate.fetch(f"{proxy.url}/files/bad.zip"))
    cache = tmp_path / "cache"
    outputs.call("bulk", lambda: client.climate.bulk(SLUG, points=[(39.74, -105.18)], years=[2010, 2011], email=EMAIL, attributes="ghi", cache_dir=cache, progress=False))
    for file in cache.iterdir():
        outputs.add(f"cache file {file.name}", file.read_bytes())
    run_uuid = outputs.call("optimizer submit", lambda: client.optimizer.submit(OPTIMIZER_SCENARIO))
    assert isinstance(run_uuid, str)
    outputs.call("optimizer results", lambda: client.optimizer.results(run_uuid))
    outputs.call("data_query error", lambda: client.solar.data_query(FAIL_LAT, 1.0))
    outputs.call("estimate error", lambda: client.pv.estimate(4, 0, 14, 1, 20, 180, lat=FAIL_LAT, lon=1.0))
    outputs.call("download error", lambda: client.climate.download_csv(SLUG, lat=FAIL_LAT, lon=1.0, year=2010, email=EMAIL))
    outputs.call("technical potential", lambda: client.technical_potential.config("rede"))
    outputs.call("parameter error quoting the key", lambda: client.climate.download_csv(SENTINEL, lat=39.74, lon=-105.18, year=2010, email=SENTINEL))
    outputs.call("swapped arguments", lambda: sf.Client(proxy.url, SENTINEL))
    outputs.texts.extend(("log", record.getMessage()) for record in caplog.records)
    assert len(outputs.texts) > 500
    outputs.assert_clean()


def test_an_optimizer_answer_that_is_not_json_is_an_api_error_without_the_key(proxy: ReflectingProxy) -> None:
    """The job POST goes to the proxy's marked path, which answers 200 with text holding the key."""
    client = sf.Client(SENTINEL, f"{proxy.url}/optimizer-bad", routes="spec", retries=1, backoff=0.01, limits=QUICK)
    with pytest.raises(sf.ApiError, match="is not a JSON object") as caught:
        client.optimizer.submit(OPTIMIZER_SCENARIO)
    assert not any(leaks(text) for text in exposed(caught.value)), caught.value.body


OPTIMIZER_SCENARIO = json.loads((SCENARIOS / "valid_minimal.json").read_text())


def test_redaction_finds_every_encoding_of_the_key() -> None:
    client = sf.Client(SENTINEL, "http://127.0.0.1:1")
    for name, form in ENCODINGS.items():
        assert client._transport.redact(f"<{form}>") == "<***>", name


#: A key whose base64 needs padding and differs between the standard and URL-safe alphabets.
ENCODED_KEY = "SeNtInElKeY0123456789abcdefghijkl~~~???q"
BARE_ENCODINGS = {
    "hex": ENCODED_KEY.encode().hex(),
    "hex-upper": ENCODED_KEY.encode().hex().upper(),
    "base64": base64.b64encode(ENCODED_KEY.encode()).decode(),
    "base64-unpadded": base64.b64encode(ENCODED_KEY.encode()).decode().rstrip("="),
    "base64url": base64.urlsafe_b64encode(ENCODED_KEY.encode()).decode(),
    "base64url-unpadded": base64.urlsafe_b64encode(ENCODED_KEY.encode()).decode().rstrip("="),
}


@pytest.mark.parametrize(("status", "code", "error_type"), [(403, "API_KEY_INVALID", sf.AuthError), (500, "INTERNAL_ERROR", sf.ServerError)])
def test_hex_and_base64_of_the_key_a_server_reflects_never_reach_the_user(
    loopback: LoopbackServer, status: int, code: str, error_type: type[sf.ApiError]
) -> None:
    assert "+" in BARE_ENCODINGS["base64"] and "-" in BARE_ENCODINGS["base64url"] and BARE_ENCODINGS["base64"].endswith("=")

    outputs: dict[str, str] = {}
    for name, form in BARE_ENCODINGS.items():
        loopback.handler = lambda request, form=form, name=name: reply(
            request, status, json.dumps({"error": {"code": code, "message": f"the key was {form}"}, "errors": [f"key ({name}) {form}"], "echo": form}).encode()
        )
        client = sf.Client(ENCODED_KEY, loopback.url, routes="spec", retries=0)
        with pytest.raises(error_type) as caught:
            client.solar.data_query(39.74, -105.18)
        error = caught.value
        assert "***" in error.body, error.body
        outputs[f"{name} message"] = str(error)
        outputs[f"{name} body"] = error.body
        outputs[f"{name} errors"] = repr(error.errors)
        outputs[f"{name} pickle"] = pickle.dumps(error).decode("latin-1")
        outputs[f"{name} unpickled"] = repr(pickle.loads(pickle.dumps(error)).__dict__)
        outputs[f"{name} traceback"] = "".join(traceback.format_exception(error))
    found = sorted((where, name) for where, text in outputs.items() for name, form in BARE_ENCODINGS.items() if form in text)
    assert not found, found


@pytest.mark.parametrize(
    "base_url",
    [
        f"https://{SENTINEL}@developer.nlr.gov",
        f"https://user:{SENTINEL}@developer.nlr.gov/api",
        f"http://127.0.0.1:9/?api_key={SENTINEL}",
        f"http://127.0.0.1:9/prefix?key={SENTINEL}&x=1",
        f"http://{SENTINEL}@127.0.0.1:99999/?api_key={SENTINEL}",
    ],
)
def test_a_key_inside_the_base_url_is_refused_without_showing_it(base_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The client's own key is another one, so redacting it cannot hide the one in the URL."""
    other_key = "o" * 40
    attempts: list[Callable[[], object]] = [
        lambda: sf.Client(other_key, base_url),
        lambda: sf.AsyncClient(other_key, base_url),
        lambda: sf.Client(other_key, "http://127.0.0.1:9", urdb_base_url=base_url),
    ]
    monkeypatch.setenv(sunflux._client.BASE_URL_ENV_VAR, base_url)
    attempts.append(lambda: sf.Client(other_key))
    for attempt in attempts:
        with pytest.raises(sf.ParameterError, match="base_url") as caught:
            attempt()
        texts = [*exposed(caught.value), "".join(traceback.format_exception(caught.value))]
        assert not [leak for text in texts for leak in leaks(text)], caught.value


def test_a_base_url_with_a_path_prefix_joins_the_endpoint_after_it(loopback: LoopbackServer) -> None:
    path = sf.Client(SENTINEL, loopback.url, routes="spec").url("optimizer_simulated_load").removeprefix(loopback.url)
    client = sf.Client(SENTINEL, f"{loopback.url}/prefix/", routes="spec")
    assert client.base_url == f"{loopback.url}/prefix"
    assert client.url("optimizer_simulated_load") == f"{loopback.url}/prefix{path}"
    assert path.startswith("/api/") and SENTINEL not in repr(client)


# ---------------------------------------------------------------------------------------------
# Path arguments, schemes, the embedded service


def test_a_run_uuid_cannot_reach_another_endpoint(loopback: LoopbackServer) -> None:
    client = sf.Client(SENTINEL, loopback.url)
    with pytest.raises(sf.ParameterError, match="run_uuid must be a UUID"):
        client.optimizer.results("../../../../api/solar/data_query/v2.json?lat=1&lon=2#")
    with pytest.raises(sf.ParameterError):
        client.request("GET", "technical_potential_config", args={"explorer": "../../api/x"})
    assert loopback.seen == []
    with pytest.raises(sf.ParameterError, match="explorer"):
        client.technical_potential.config("a/b")
    assert loopback.seen == []


def test_every_url_is_https_or_loopback_http(loopback: LoopbackServer) -> None:
    client = sf.Client(SENTINEL, loopback.url, retries=0)
    with pytest.raises(sf.ParameterError, match="plain http:// is only allowed for loopback"):
        client.climate.fetch("http://files.example.org/x.zip")
    with pytest.raises(sf.ParameterError, match="https"):
        client.climate.fetch("ftp://files.example.org/x.zip")
    loopback.handler = lambda request: reply(request, 302, b"", {"location": "http://files.example.org/x.zip"})
    with pytest.raises(sf.ApiError, match="refused to follow a redirect"):
        client.climate.fetch(f"{loopback.url}/files/climate/x.zip")
    assert len(loopback.seen) == 1


def test_the_embedded_service_counts_only_authenticated_requests() -> None:
    with sf.LocalService() as service:
        for index in range(300):
            request = urllib.request.Request(f"{service.base_url}/api/x/{uuid.uuid4()}/{index}")
            with pytest.raises(urllib.error.HTTPError) as caught:
                urllib.request.urlopen(request)
            assert caught.value.code == 403
        assert service.hits() == {}


def test_the_embedded_service_answers_only_its_own_host_names() -> None:
    with sf.LocalService() as service:
        request = urllib.request.Request(f"{service.base_url}/api/local/v1/status.json", headers={"X-Api-Key": service.api_key, "Host": "attacker.example"})
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request)
        assert caught.value.code == 421
        assert service.hits() == {}
        named = urllib.request.Request(f"http://localhost:{service.port}/api/local/v1/status.json", headers={"X-Api-Key": service.api_key})
        with urllib.request.urlopen(named) as answer:
            assert answer.status == 200


@pytest.mark.slow
def test_the_embedded_service_closes_half_sent_connections() -> None:
    import socket
    import time

    with sf.LocalService() as service:
        connections = []
        for _ in range(200):
            connection = socket.create_connection(("127.0.0.1", service.port))
            connection.sendall(b"GET /api/local/v1/status.json HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            connections.append(connection)
        limit = sf.limits()["service_header_seconds"]
        started = time.monotonic()
        for connection in connections:
            connection.settimeout(limit + 15)
            assert connection.recv(1024) == b"", "closed without an answer"
            connection.close()
        assert time.monotonic() - started < limit + 10
