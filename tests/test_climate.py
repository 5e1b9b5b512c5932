"""Climate download: ``client.climate.download_csv / request / fetch / bulk`` against the embedded
service and against loopback servers that capture what is sent or play the service and the file
host. Covers the csv and json paths, GET and POST bodies and where the key goes, row counts for
utc and leap_day and the local-time shift, client-side validation of every parameter (nothing
sent), the service's 400s and error bodies on csv, the queue, the 404-until-ready file host and
the e-mail, fetch never sending the key, row-count checks, bulk resume and its cache, the
throttle and the in-flight caps, the plausibility of the generated weather, dataset slugs, the
pandas view, parsing bodies from elsewhere and the async client."""

from __future__ import annotations

import asyncio
import calendar
import datetime as dt
import http.server
import io
import json
import math
import re
import threading
import time
import urllib.request
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import parse_qs, urlsplit

import polars as pl
import pyarrow as pa
import pytest

import sunflux as sf
import sunflux.climate
from sunflux.climate import ATTRIBUTES, ClimateDownload, ClimateTable, parse_csv, parse_zip

from conftest import LoopbackServer, reply

SLUG = "ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5"
EMAIL = "analyst@example.org"
KEY = "0123456789abcdefghijKLMNOPQRSTuvwxyz0123"
OTHER_KEY = "ZYXWVUTSRQponmlkjihg9876543210abcdefGHIJ"
DENVER = (39.74, -105.18)
SYDNEY = (-33.87, 151.21)
NEW_DELHI = (28.6, 77.2)
MIAMI = (25.77, -80.19)
TWO_POINTS = [(39.7, -105.0), (39.8, -104.9)]
#: The service's cap on sites × attributes × years × hours (peers-and-service-facts §0.3).
WEIGHT_CAP = 175_000_100
#: Half the 0.04° grid spacing: a site is never further than this from the point asked, per axis.
HALF_GRID_STEP = 0.02
TIME_COLUMNS = ("Year", "Month", "Day", "Hour", "Minute", "timestamp")
#: A service without request spacing, so that tests never wait and are never refused (the clients
#: keep their own short spacing from `quick_limits`).
QUICK = sf.ClimateSettings(csv_interval=0, json_interval=0)
#: Sites no data set covers (Sydney, New Delhi) try the time-zone rules of the whole world.
WORLD = sf.ClimateSettings(csv_interval=0, json_interval=0, anywhere=True)


def quick_limits(csv_in_flight: int | None = None) -> dict[str, sf.ServiceLimits]:
    """Client limits a thousand times shorter than the spec's spacing (and no daily quota)."""
    return {
        "climate_csv": sf.ServiceLimits(min_interval=0.001, in_flight=csv_in_flight),
        "climate_other": sf.ServiceLimits(min_interval=0.001),
    }


def hours_in(year: int, leap_day: bool) -> int:
    return (366 if leap_day and calendar.isleap(year) else 365) * 24


def download_path(fmt: str, slug: str = SLUG) -> str:
    root = "/api/nsrdb/v2/solar" if slug.startswith("nsrdb-") else "/api/climate/ncdb/v2/climate"
    return f"{root}/{slug}-download.{fmt}"


def hits(service: sf.LocalService, fmt: str, slug: str = SLUG) -> int:
    return service.hits().get(download_path(fmt, slug), 0)


def file_hits(service: sf.LocalService) -> int:
    return sum(count for path, count in service.hits().items() if path.startswith("/files/climate/"))


def point_wkt(points: list[tuple[float, float]]) -> str:
    """A MULTIPOINT of ``(lat, lon)`` points (WKT puts longitude first)."""
    return "MULTIPOINT(" + ", ".join(f"({lon} {lat})" for lat, lon in points) + ")"


def csv_params(lat: float, lon: float, year: int) -> dict[str, Any]:
    """The query of a hand-sent csv request for one site-year with every attribute."""
    return {"wkt": f"POINT({lon} {lat})", "names": year, "interval": 60, "email": EMAIL}


@dataclass(frozen=True)
class Captured:
    """One request a loopback server saw: ``target`` is the path with its query, header names are
    lower case."""

    method: str
    target: str
    headers: dict[str, str]
    body: bytes

    @property
    def path(self) -> str:
        return urlsplit(self.target).path

    @property
    def query(self) -> dict[str, list[str]]:
        return parse_qs(urlsplit(self.target).query)

    def form(self) -> dict[str, list[str]]:
        return parse_qs(self.body.decode(), strict_parsing=True)


def captured(server: LoopbackServer) -> list[Captured]:
    requests = []
    for seen in server.seen:
        method, target, headers, body = seen["method"], seen["path"], seen["headers"], seen["body"]
        assert isinstance(method, str) and isinstance(target, str) and isinstance(headers, dict) and isinstance(body, bytes)
        requests.append(Captured(method, target, {str(name).lower(): str(value) for name, value in headers.items()}, body))
    return requests


def assert_no_key_sent(request: Captured) -> None:
    assert "x-api-key" not in request.headers and "authorization" not in request.headers, request.headers
    assert "api_key" not in request.query and KEY not in request.target
    assert KEY not in " ".join(request.headers.values()) and KEY.encode() not in request.body


def serve(server: LoopbackServer, status: int, body: bytes, content_type: str) -> None:
    server.handler = lambda request: reply(request, status, body, {"content-type": content_type})


def download_answer(download_url: str) -> bytes:
    """The spec's json answer to a download request."""
    return json.dumps(
        {
            "inputs": {"body": {}, "params": {}, "query": {}},
            "metadata": {"version": "2.0.0", "resultset": {"count": 2}},
            "status": 200,
            "outputs": {"message": f"File generation in progress. An email will be sent to {EMAIL} when the download is ready.", "downloadUrl": download_url},
            "errors": [],
        }
    ).encode()


@pytest.fixture
def climate_service() -> Iterator[sf.LocalService]:
    """An embedded service whose climate limits never make a test wait."""
    with sf.LocalService(climate=QUICK) as service:
        yield service


@pytest.fixture
def climate_client(climate_service: sf.LocalService) -> sf.Client:
    return climate_service.client(limits=quick_limits(), backoff=0.01)


@pytest.fixture(scope="module")
def world_client() -> Iterator[sf.Client]:
    """A client of an embedded service whose data sets serve every point (`WORLD`)."""
    with sf.LocalService(climate=WORLD) as service:
        yield service.client(limits=quick_limits(), backoff=0.01)


@dataclass(frozen=True)
class Samples:
    """Bodies and results fetched once from an embedded service."""

    csv_body: bytes  # Denver 2010, every attribute, UTC, as the service streams it
    table: ClimateTable  # the same site-year through download_csv
    zip_body: bytes  # TWO_POINTS × 2010, 2011 with ghi and temperature_2m
    download: ClimateDownload  # the same zip through request + fetch
    point_tables: dict[tuple[float, float, int], ClimateTable]  # each point-year of the zip as csv


@pytest.fixture(scope="module")
def samples() -> Samples:
    with sf.LocalService(climate=QUICK) as service:
        client = service.client(limits=quick_limits())
        csv_body = client.request(
            "GET", "climate_download", args={"dataset": SLUG, "format": "csv"}, params=csv_params(*DENVER, 2010)
        ).content
        table = client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=2010, email=EMAIL)
        attributes = ["ghi", "temperature_2m"]
        answer = client.climate.request(SLUG, wkt=point_wkt(TWO_POINTS), years=[2011, 2010], email=EMAIL, attributes=attributes)
        download = client.climate.fetch(answer.download_url, timeout=30)
        with urllib.request.urlopen(answer.download_url) as response:
            zip_body = response.read()
        point_tables = {
            (lat, lon, year): client.climate.download_csv(SLUG, lat=lat, lon=lon, year=year, email=EMAIL, attributes=attributes)
            for lat, lon in TWO_POINTS
            for year in (2010, 2011)
        }
    return Samples(csv_body, table, zip_body, download, point_tables)


# ---------------------------------------------------------------------------------------------
# CSV path: one site-year


def test_download_csv_is_one_site_year_with_typed_metadata(samples: Samples) -> None:
    table = samples.table
    assert table.data.height == hours_in(2010, leap_day=False)
    assert table.data.columns == [*TIME_COLUMNS, *ATTRIBUTES]
    assert all(table.data[name].dtype == pl.Float64 for name in ATTRIBUTES)
    meta = table.metadata
    assert meta.latitude is not None and meta.longitude is not None
    assert abs(meta.latitude - DENVER[0]) <= HALF_GRID_STEP and abs(meta.longitude - DENVER[1]) <= HALF_GRID_STEP
    assert meta.time_zone == 0 and meta.local_time_zone not in (None, 0)
    assert meta.state == "Colorado" and SLUG in meta.source
    assert list(meta.columns) == list(ATTRIBUTES) and meta.columns["ghi"] == "GHI"
    assert table.data["timestamp"].dtype == pl.Datetime("us", "UTC")
    lines = samples.csv_body.decode().splitlines()
    assert len(lines) == 3 + table.data.height
    assert lines[0].split(",")[0] == "Source" and lines[2].startswith("Year,Month,Day,Hour,Minute,")
    assert parse_csv(samples.csv_body).data.equals(table.data)


def test_stack_sites_gives_a_utc_download_its_local_time(samples: Samples) -> None:
    """A ``utc=True`` table's ``local_time`` is its metadata's standard time, the clock its
    weather year is simulated on; its timestamps stay in UTC."""
    table = samples.table
    stacked = sf.stack_sites({"denver": table})
    assert stacked.columns == ["site", *TIME_COLUMNS, "local_time", *ATTRIBUTES]
    assert stacked["timestamp"].equals(table.data["timestamp"])
    local = table.weather().to_polars()["timestamp"].dt.replace_time_zone(None)
    assert stacked["local_time"].equals(local.alias("local_time"))
    assert table.metadata.local_time_zone == -7 and stacked["local_time"][0].month == 12, "UTC midnight is the evening before"


@pytest.mark.parametrize("utc", [True, False])
@pytest.mark.parametrize(("year", "leap_day"), [(2010, False), (2010, True), (2012, False), (2012, True)])
def test_row_counts_follow_the_year_and_leap_day(climate_client: sf.Client, year: int, leap_day: bool, utc: bool) -> None:
    table = climate_client.climate.download_csv(
        SLUG, lat=DENVER[0], lon=DENVER[1], year=year, email=EMAIL, attributes="ghi", utc=utc, leap_day=leap_day
    )
    data = table.data
    assert data.height == hours_in(year, leap_day)
    leap_rows = data.filter((pl.col("Month") == 2) & (pl.col("Day") == 29)).height
    assert leap_rows == (24 if leap_day and calendar.isleap(year) else 0)
    first, last = data.row(0, named=True), data.row(-1, named=True)
    assert (first["Year"], first["Month"], first["Day"], first["Hour"]) == (year, 1, 1, 0)
    assert (last["Year"], last["Month"], last["Day"], last["Hour"]) == (year, 12, 31, 23)
    assert data["Minute"].unique().to_list() == [0]


def stamps(data: pl.DataFrame) -> pl.Series:
    return data.select(pl.datetime("Year", "Month", "Day", "Hour", "Minute")).to_series()


def instants(data: pl.DataFrame) -> pl.Series:
    return data["timestamp"].dt.convert_time_zone("UTC").dt.replace_time_zone(None)


@pytest.mark.parametrize("site", [DENVER, SYDNEY, NEW_DELHI], ids=["denver", "sydney", "new_delhi"])
def test_local_stamps_are_the_instants_shifted_by_the_site_offset(world_client: sf.Client, site: tuple[float, float]) -> None:
    download = world_client.climate.download_csv
    utc = download(SLUG, lat=site[0], lon=site[1], year=2010, email=EMAIL, attributes="ghi")
    local = download(SLUG, lat=site[0], lon=site[1], year=2010, email=EMAIL, attributes="ghi", utc=False)
    offset = local.metadata.local_time_zone
    assert offset is not None and offset != 0 and local.metadata.time_zone == offset and utc.metadata.local_time_zone == offset
    shift = dt.timedelta(hours=offset)
    assert (stamps(utc.data) == instants(utc.data)).all()
    assert (stamps(local.data) - instants(local.data) == shift).all()
    assert local.data["timestamp"].to_list()[0].utcoffset() == shift


@pytest.mark.parametrize("site", [DENVER, SYDNEY], ids=["denver", "sydney"])
def test_local_time_table_holds_the_utc_series_shifted(world_client: sf.Client, site: tuple[float, float]) -> None:
    download = world_client.climate.download_csv
    utc = download(SLUG, lat=site[0], lon=site[1], year=2010, email=EMAIL, utc=True)
    local = download(SLUG, lat=site[0], lon=site[1], year=2010, email=EMAIL, utc=False)
    offset = local.metadata.local_time_zone
    assert offset is not None and offset == int(offset) != 0
    offset_hours = int(offset)
    both = utc.data.with_columns(instant=instants(utc.data)).join(
        local.data.with_columns(instant=instants(local.data)), on="instant", suffix="_local"
    )
    assert both.height == utc.data.height - abs(offset_hours)
    for name in ATTRIBUTES:
        assert both[name].equals(both[f"{name}_local"]), name
    assert (both["Hour"] - both["Hour_local"]).abs().is_in([abs(offset_hours), 24 - abs(offset_hours)]).all()


# ---------------------------------------------------------------------------------------------
# Client-side validation: ParameterError naming the parameter, nothing sent

CSV_OK: dict[str, Any] = {"lat": DENVER[0], "lon": DENVER[1], "year": 2010, "email": EMAIL}
REQUEST_OK: dict[str, Any] = {"wkt": point_wkt(TWO_POINTS), "years": [2010, 2011], "email": EMAIL}
BIG_POLYGON = "POLYGON((-110 30, -90 30, -90 45, -110 45, -110 30))"

INVALID_CSV = [
    ("slug_space", {"dataset": "ncdb 4km"}, ["dataset", "letters, digits and '-'"]),
    ("slug_slash", {"dataset": "ncdb/../4km"}, ["dataset"]),
    ("slug_underscore", {"dataset": "ncdb_4km"}, ["dataset"]),
    ("slug_empty", {"dataset": ""}, ["dataset is required"]),
    ("slug_with_suffix", {"dataset": f"{SLUG}-download"}, ["dataset", "without it"]),
    ("lat_above_90", {"lat": 91.0}, ["lat must be a number between -90 and 90 (got 91)"]),
    ("lon_below_180", {"lon": -181.0}, ["lon must be a number between -180 and 180 (got -181)"]),
    ("year_before_2000", {"year": 1999}, ["year: 1999", "2000", "2014", "e.g. year=2010"]),
    ("year_after_2014", {"year": 2015}, ["year: 2015"]),
    ("unknown_attribute", {"attributes": "ghi,sunshine"}, ["attributes", "sunshine", "windspeed_200m"]),
    ("attribute_of_another_height", {"attributes": ["ghi", "windspeed_80m"]}, ["attributes", "windspeed_80m"]),
    ("email_missing", {"email": None}, ["email is required"]),
    ("email_empty", {"email": " "}, ["email is required"]),
    ("email_without_domain", {"email": "analyst@example"}, ["email", "not an e-mail address"]),
    ("email_with_space", {"email": "an alyst@example.org"}, ["email", "not an e-mail address"]),
    ("csv_two_years_as_text", {"year": "2010,2011"}, ["csv streams a single year: year must hold one year", "client.climate.request", "client.climate.bulk"]),
    ("csv_two_years_as_list", {"year": [2010, 2011]}, ["csv streams a single year", "client.climate.request", "client.climate.bulk"]),
]

INVALID_REQUEST = [
    ("slug", {"dataset": "ncdb.4km"}, ["dataset"]),
    ("wkt_unclosed", {"wkt": "POINT(-105 39.7"}, ["wkt", "')'"]),
    ("wkt_empty", {"wkt": ""}, ["wkt", "empty"]),
    ("wkt_linestring", {"wkt": "LINESTRING(-105 39, -104 40)"}, ["wkt", "LINESTRING", "POINT, MULTIPOINT or POLYGON"]),
    ("wkt_open_ring", {"wkt": "POLYGON((-105 39, -104 39, -104 40))"}, ["wkt", "ring"]),
    ("wkt_latitude", {"wkt": "POINT(-105 97)"}, ["wkt", "latitude 97"]),
    ("wkt_longitude", {"wkt": "MULTIPOINT((200 10), (1 2))"}, ["wkt", "longitude 200"]),
    ("years_missing", {"years": []}, ["years is required", "e.g. years=[2010, 2011]"]),
    ("years_outside", {"years": [2000, 2014, 2016]}, ["years: 2016 is outside"]),
    ("attributes", {"attributes": "all"}, ["attributes", '"all"']),
    ("email", {"email": "analyst.example.org"}, ["email", "not an e-mail address"]),
    ("weight_over_cap", {"wkt": BIG_POLYGON, "years": range(2000, 2015)}, ["too large", "12 attribute(s) × 15 year(s)", str(WEIGHT_CAP)]),
    ("method", {"method": "PUT"}, ["method", "POST", "GET"]),
]


@pytest.mark.parametrize(("changes", "expected"), [case[1:] for case in INVALID_CSV], ids=[case[0] for case in INVALID_CSV])
def test_invalid_csv_parameter_is_refused_before_sending(
    climate_service: sf.LocalService, climate_client: sf.Client, changes: dict[str, Any], expected: list[str]
) -> None:
    arguments = {"dataset": SLUG, **CSV_OK, **changes}
    with pytest.raises(sf.ParameterError) as caught:
        climate_client.climate.download_csv(arguments.pop("dataset"), **arguments)
    assert len(caught.value.errors) == 1
    for fragment in expected:
        assert fragment in str(caught.value), (fragment, str(caught.value))
    assert climate_service.hits() == {}


@pytest.mark.parametrize(("changes", "expected"), [case[1:] for case in INVALID_REQUEST], ids=[case[0] for case in INVALID_REQUEST])
def test_invalid_request_parameter_is_refused_before_sending(
    climate_service: sf.LocalService, climate_client: sf.Client, changes: dict[str, Any], expected: list[str]
) -> None:
    arguments = {"dataset": SLUG, **REQUEST_OK, **changes}
    with pytest.raises(sf.ParameterError) as caught:
        climate_client.climate.request(arguments.pop("dataset"), **arguments)
    assert len(caught.value.errors) == 1
    for fragment in expected:
        assert fragment in str(caught.value), (fragment, str(caught.value))
    assert climate_service.hits() == {}


def test_every_problem_is_reported_at_once(climate_service: sf.LocalService, climate_client: sf.Client) -> None:
    with pytest.raises(sf.ParameterError) as caught:
        climate_client.climate.download_csv("bad slug", lat=100.0, lon=0.0, year=1990, email="nobody", attributes="fog")
    starts = [str(problem).split(" ")[0] for problem in caught.value.errors]
    assert starts == ["lat", "dataset", "year:", "attributes:", "email"]
    assert climate_service.hits() == {}


def test_weight_cap_is_sites_times_attributes_times_years_times_hours(loopback: LoopbackServer) -> None:
    serve(loopback, 200, download_answer(f"{loopback.url}/files/x.zip"), "application/json")
    client = sf.Client(api_key=KEY, base_url=loopback.url, throttle=False)
    years = list(range(2000, 2015))
    hours = sum(hours_in(year, leap_day=False) for year in years)
    most_points = WEIGHT_CAP // (len(ATTRIBUTES) * hours)
    grid = [(30.0 + 0.1 * (i // 20), -100.0 + 0.1 * (i % 20)) for i in range(most_points + 1)]
    client.climate.request(SLUG, wkt=point_wkt(grid[:most_points]), years=years, email=EMAIL)
    assert len(loopback.seen) == 1
    with pytest.raises(sf.ParameterError, match=f"{most_points + 1} site\\(s\\) × 12 attribute\\(s\\) × 15 year\\(s\\)"):
        client.climate.request(SLUG, wkt=point_wkt(grid), years=years, email=EMAIL)
    client.climate.request(SLUG, wkt=point_wkt(grid), years=years, email=EMAIL, attributes=ATTRIBUTES[:-1])
    assert len(loopback.seen) == 2


# ---------------------------------------------------------------------------------------------
# What is sent: POST form body, GET query, where the key goes


def test_post_sends_a_form_body_without_the_key(loopback: LoopbackServer) -> None:
    file_url = f"{loopback.url}/files/ready.zip"
    serve(loopback, 200, download_answer(file_url), "application/json")
    client = sf.Client(api_key=KEY, base_url=loopback.url, throttle=False)
    answer = client.climate.request(
        SLUG, wkt=point_wkt(TWO_POINTS), years=[2011, 2010, 2011], email=EMAIL, attributes=["temperature_2m", "ghi"],
        leap_day=True, full_name="Ada Lovelace", method="POST",
    )
    assert answer.download_url == file_url and EMAIL in answer.message
    (sent,) = captured(loopback)
    assert sent.method == "POST" and sent.path == download_path("json")
    assert sent.headers["content-type"] == "application/x-www-form-urlencoded"
    assert sent.headers["x-api-key"] == KEY and sent.query == {}
    form = sent.form()
    assert set(form) == {"wkt", "names", "attributes", "utc", "leap_day", "interval", "email", "full_name", "mailing_list"}
    assert form["names"] == ["2010,2011"] and form["attributes"] == ["temperature_2m,ghi"]
    assert (form["utc"], form["leap_day"], form["interval"], form["email"]) == (["true"], ["true"], ["60"], [EMAIL])
    sent_points = [float(n) for n in re.findall(r"-?\d+(?:\.\d+)?", form["wkt"][0])]
    assert form["wkt"][0].startswith("MULTIPOINT") and sent_points == [c for lat, lon in TWO_POINTS for c in (lon, lat)]
    assert KEY.encode() not in sent.body


def test_post_with_query_auth_puts_the_key_in_the_query_string_only(loopback: LoopbackServer) -> None:
    serve(loopback, 200, download_answer(f"{loopback.url}/files/ready.zip"), "application/json")
    client = sf.Client(api_key=KEY, base_url=loopback.url, auth="query", throttle=False)
    client.climate.request(SLUG, wkt="POINT(-105 39.7)", years=2010, email=EMAIL, method="POST")
    (sent,) = captured(loopback)
    assert sent.method == "POST" and sent.query == {"api_key": [KEY]}
    assert "x-api-key" not in sent.headers and "authorization" not in sent.headers
    form = sent.form()
    assert "api_key" not in form and form["wkt"] == ["POINT(-105 39.7)"] and KEY.encode() not in sent.body


@pytest.mark.parametrize("auth", ["header", "query"])
def test_get_sends_every_parameter_in_the_query(loopback: LoopbackServer, samples: Samples, auth: str) -> None:
    client = sf.Client(api_key=KEY, base_url=loopback.url, auth=auth, throttle=False)
    serve(loopback, 200, download_answer(f"{loopback.url}/files/ready.zip"), "application/json")
    client.climate.request(SLUG, wkt="POINT(-105 39.7)", years=[2012], email=EMAIL, utc=False, method="GET")
    serve(loopback, 200, samples.csv_body, "text/csv")
    client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=2010, email=EMAIL, reason="siting study")
    requests = captured(loopback)
    for sent, fmt in zip(requests, ["json", "csv"], strict=True):
        assert sent.method == "GET" and sent.body == b"" and sent.path == download_path(fmt)
        assert {"wkt", "names", "attributes", "utc", "leap_day", "interval", "email", "mailing_list"} <= set(sent.query)
        assert sent.query["interval"] == ["60"] and sent.query["email"] == [EMAIL]
        assert sent.query.get("api_key") == ([KEY] if auth == "query" else None)
        assert ("x-api-key" in sent.headers) == (auth == "header")
    first, second = (sent.query for sent in requests)
    assert (first["names"], first["utc"]) == (["2012"], ["false"])
    assert second["wkt"] == [f"POINT({DENVER[1]} {DENVER[0]})"] and second["reason"] == ["siting study"]
    assert second["attributes"] == [",".join(ATTRIBUTES)]


@pytest.mark.parametrize("auth", ["header", "query", "basic"])
def test_csv_redirect_to_another_host_does_not_take_the_key(samples: Samples, auth: str) -> None:
    service, file_host = LoopbackServer(), LoopbackServer(host="127.0.0.2")
    try:
        location = f"{file_host.url}/mapfiles/denver.csv?api_key={KEY}&signature=abc"
        service.handler = lambda request: reply(request, 302, b"", {"location": location})
        serve(file_host, 200, samples.csv_body, "text/csv")
        client = sf.Client(api_key=KEY, base_url=service.url, auth=auth, throttle=False)
        table = client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=2010, email=EMAIL)
        assert table.data.equals(samples.table.data)
        assert len(service.seen) == 1
        (fetched,) = captured(file_host)
        assert fetched.query == {"signature": ["abc"]}
        assert_no_key_sent(fetched)
    finally:
        service.close()
        file_host.close()


# ---------------------------------------------------------------------------------------------
# Errors from the service


HAND_SENT = [
    ("csv_multipoint", "GET", "csv", {"wkt": "MULTIPOINT((-105 39.7), (-104 39))", "names": 2010, "interval": 60, "email": EMAIL},
     ["csv streams a single site", "client.climate.request", "client.climate.bulk"]),
    ("csv_two_years_posted", "POST", "csv", {"wkt": "POINT(-105 39.7)", "names": "2010,2011", "interval": 60, "email": EMAIL},
     ["csv streams a single year"]),
    ("csv_missing_interval", "GET", "csv", {"wkt": "POINT(-105 39.7)", "names": 2010, "email": EMAIL}, ["interval is required"]),
    ("json_interval_30", "POST", "json", {"wkt": "POINT(-105 39.7)", "names": 2010, "interval": 30, "email": EMAIL},
     ["interval must be 60"]),
    ("json_years_and_attributes", "GET", "json", {"wkt": "POINT(-105 39.7)", "names": "1999", "interval": 60, "email": EMAIL, "attributes": "fog"},
     ["1999 is outside", '"fog" not offered']),
    ("json_nothing", "POST", "json", {}, ["wkt is required", "names (the years) is required", "interval is required", "email is required"]),
]


@pytest.mark.parametrize(("method", "fmt", "fields", "expected"), [case[1:] for case in HAND_SENT], ids=[case[0] for case in HAND_SENT])
def test_hand_sent_bad_requests_get_400_with_json_errors(
    climate_service: sf.LocalService, method: str, fmt: str, fields: dict[str, Any], expected: list[str]
) -> None:
    client = climate_service.client(auth="query", limits=quick_limits())
    params, form = (fields, None) if method == "GET" else (None, fields)
    with pytest.raises(sf.ValidationError) as caught:
        client.request(method, "climate_download", args={"dataset": SLUG, "format": fmt}, params=params, form=form)
    error = caught.value
    assert error.status == 400
    body = json.loads(error.body)
    assert body["status"] == 400 and body["errors"] == error.errors and "version" in body["metadata"]
    assert "api_key" not in body["inputs"]["query"]
    echoed = body["inputs"]["query" if method == "GET" else "body"]
    assert echoed == {name: str(value) for name, value in fields.items()}
    for fragment in expected:
        assert any(fragment in message for message in error.errors), (fragment, error.errors)
    assert hits(climate_service, fmt) == 1


SERVICE_DATA_FAILURE = {"inputs": {"body": {}, "params": {}, "query": {}}, "metadata": {"version": "2.0.0"}, "status": 400, "errors": ["Data processing failure."]}
SERVICE_BAD_WKT = {"inputs": {}, "metadata": {"version": "2.0.0"}, "status": 400, "errors": ["wkt could not be parsed", "email is required"]}
ERROR_BODIES = [
    ("data_failure_with_200", 200, json.dumps(SERVICE_DATA_FAILURE).encode(), "application/json", sf.ServerError, SERVICE_DATA_FAILURE["errors"]),
    ("json_400", 400, json.dumps(SERVICE_BAD_WKT).encode(), "application/json", sf.ValidationError, SERVICE_BAD_WKT["errors"]),
    ("json_labelled_csv", 200, json.dumps(SERVICE_BAD_WKT).encode(), "text/csv", sf.ValidationError, SERVICE_BAD_WKT["errors"]),
    ("gateway_csv_429", 429, b"Error Code,Error Message\nOVER_RATE_LIMIT,You have exceeded your rate limit.\n", "text/csv",
     sf.RateLimitError, ["You have exceeded your rate limit."]),
    ("html_page", 200, b"<html><body>Request rejected. Your support ID is 42</body></html>", "text/html", sf.ServerError, None),
]


@pytest.mark.parametrize(("status", "body", "content_type", "error_class", "messages"), [case[1:] for case in ERROR_BODIES],
                         ids=[case[0] for case in ERROR_BODIES])
def test_error_bodies_on_a_csv_request_raise_typed_errors_not_csv(
    loopback: LoopbackServer, status: int, body: bytes, content_type: str, error_class: type[sf.ApiError], messages: list[str] | None
) -> None:
    serve(loopback, status, body, content_type)
    client = sf.Client(api_key=KEY, base_url=loopback.url, retries=0, throttle=False)
    with pytest.raises(error_class) as caught:
        client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=2010, email=EMAIL)
    if messages is not None:
        assert caught.value.errors == messages
    assert len(loopback.seen) == 1


@pytest.mark.parametrize(("cut_rows", "year", "leap_day"), [(24, 2010, False), (0, 2012, True)], ids=["truncated", "leap_year_expected"])
def test_row_count_mismatch_raises(loopback: LoopbackServer, samples: Samples, cut_rows: int, year: int, leap_day: bool) -> None:
    lines = samples.csv_body.decode().splitlines(keepends=True)
    body = "".join(lines[: len(lines) - cut_rows]).encode()
    serve(loopback, 200, body, "text/csv")
    client = sf.Client(api_key=KEY, base_url=loopback.url, throttle=False)
    served_rows = samples.table.data.height - cut_rows
    with pytest.raises(sf.ApiError, match=f"expected {hours_in(year, leap_day)} rows for {year}.*found {served_rows}"):
        client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=year, email=EMAIL, leap_day=leap_day)
    assert parse_csv(body, whole_year=False).data.height == served_rows
    if served_rows != hours_in(2010, leap_day=False):
        with pytest.raises(sf.ApiError, match=f"expected {hours_in(2010, False)} rows for 2010.*found {served_rows}"):
            parse_csv(body)


# ---------------------------------------------------------------------------------------------
# JSON path: request, the file host, fetch, the e-mail


def test_request_then_fetch_gives_every_site_year_as_the_csv_path_does(samples: Samples) -> None:
    download = samples.download
    assert download.sites.height == len(TWO_POINTS) and len(download.files) == len(TWO_POINTS) * 2
    assert download.data.height == len(download.files) * hours_in(2010, leap_day=False)
    assert download.data.columns[:2] == ["site", "year"] and download.data.columns[-2:] == ["ghi", "temperature_2m"]
    for (lat, lon, year), table in samples.point_tables.items():
        site = table.metadata.location_id
        part = download.data.filter((pl.col("site") == site) & (pl.col("year") == year)).drop("site", "year")
        assert part.equals(table.data), (lat, lon, year)
        assert any(name.startswith(f"{site}_") and name.endswith(f"_{year}.csv") for name in download.files)


def test_download_is_404_until_ready_then_fetched_and_emailed() -> None:
    with sf.LocalService(climate=sf.ClimateSettings(json_interval=0, build_delay=1.0)) as service:
        client = service.client(limits=quick_limits())
        answer = client.climate.request(SLUG, wkt="POINT(-105 39.7)", years=2010, email=EMAIL, attributes="ghi")
        assert EMAIL in answer.message and json.loads(answer.raw)["metadata"]["resultset"]["count"] == 1
        with pytest.raises(sf.NotFoundError) as not_ready:
            client.climate.fetch(answer.download_url, wait=False)
        assert not_ready.value.status == 404 and "not ready" in str(not_ready.value)
        with pytest.raises(sf.JobTimeout) as timed_out:
            client.climate.fetch(answer.download_url, timeout=0.2)
        assert timed_out.value.job_id == answer.download_url
        assert service.outbox() == []
        started = time.monotonic()
        download = client.climate.fetch(answer.download_url, timeout=20)
        assert time.monotonic() - started > 0.1
        assert download.data.height == hours_in(2010, leap_day=False)
        assert file_hits(service) >= 4
        (mail,) = service.outbox()
        assert mail["to"] == EMAIL and answer.download_url in mail["body"] and "ready" in mail["subject"]


def test_full_queue_refuses_with_queue_full_error() -> None:
    with sf.LocalService(climate=sf.ClimateSettings(json_interval=0, queue=1, build_delay=1.0)) as service:
        client = service.client(limits=quick_limits(), backoff=0.01)
        client.climate.request(SLUG, wkt="POINT(-105 39.7)", years=2010, email=EMAIL, attributes="ghi")
        for method in ("POST", "GET"):
            with pytest.raises(sf.QueueFullError) as caught:
                client.climate.request(SLUG, wkt="POINT(-104 39.7)", years=2011, email=EMAIL, method=method)
            assert caught.value.status == 503 and "queue is full" in str(caught.value)
        assert hits(service, "json") == 3


@pytest.mark.parametrize("auth", ["header", "query", "basic"])
def test_fetch_never_sends_the_key_to_another_host_or_the_same_one(samples: Samples, auth: str) -> None:
    other_host, same_host = LoopbackServer(host="127.0.0.2"), LoopbackServer()
    try:
        for server in (other_host, same_host):
            serve(server, 200, samples.zip_body, "application/zip")
        client = sf.Client(api_key=KEY, base_url=same_host.url, auth=auth, throttle=False)
        for server in (other_host, same_host):
            download = client.climate.fetch(f"{server.url}/files/climate/{'0' * 32}.zip", wait=False)
            assert download.data.equals(samples.download.data)
            (fetched,) = captured(server)
            assert_no_key_sent(fetched)
    finally:
        other_host.close()
        same_host.close()


def test_fetch_polls_a_file_host_until_the_file_appears(loopback: LoopbackServer, samples: Samples) -> None:
    not_ready = json.dumps({"status": 404, "errors": ["The file is not ready yet"]}).encode()

    def file_host(request: http.server.BaseHTTPRequestHandler) -> None:
        if len(loopback.seen) < 3:
            reply(request, 404, not_ready, {"content-type": "application/json"})
        else:
            reply(request, 200, samples.zip_body, {"content-type": "application/zip"})

    loopback.handler = file_host
    client = sf.Client(api_key=KEY, throttle=False)
    download = client.climate.fetch(f"{loopback.url}/d/file.zip", timeout=10)
    assert len(loopback.seen) == 3 and download.data.equals(samples.download.data)
    for polled in captured(loopback):
        assert polled.method == "GET"
        assert_no_key_sent(polled)


# ---------------------------------------------------------------------------------------------
# Limits: throttle spacing, daily quota, in-flight caps


def csv_burst(client: sf.Client, count: int, workers: int) -> list[BaseException | None]:
    """``count`` single-attribute csv downloads at once from ``workers`` threads; the error of each or None."""

    def one(index: int) -> BaseException | None:
        try:
            client.climate.download_csv(SLUG, lat=30.0 + 0.1 * index, lon=-100.0, year=2010, email=EMAIL, attributes="ghi")
        except sf.SunfluxError as error:
            return error
        return None

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(one, range(count)))


def test_throttle_spaces_csv_requests_as_the_service_sees_them(loopback: LoopbackServer, samples: Samples) -> None:
    interval, count = 0.05, 30
    body = samples.csv_body
    arrivals: list[float] = []

    def service(request: http.server.BaseHTTPRequestHandler) -> None:
        arrivals.append(time.monotonic())
        reply(request, 200, body, {"content-type": "text/csv"})

    loopback.handler = service
    client = sf.Client(api_key=KEY, base_url=loopback.url, limits={"climate_csv": sf.ServiceLimits(min_interval=interval)})
    started = time.monotonic()
    assert csv_burst(client, count, workers=count) == [None] * count
    assert time.monotonic() - started >= (count - 1) * interval
    assert len(arrivals) == count
    timer_slack = 0.02
    assert arrivals[-1] - arrivals[0] >= (count - 1) * interval - timer_slack


# The bursts space requests 0.2 s apart: the service's tolerance is a tenth of its interval, and
# 20 ms covers the scheduling jitter of a loaded 2-core machine where 5 ms (at 0.05 s) did not.
def test_throttled_burst_is_never_refused_by_a_service_with_a_shorter_interval() -> None:
    client_interval, count = 0.2, 15
    with sf.LocalService(climate=sf.ClimateSettings(csv_interval=client_interval * 0.4)) as service:
        client = service.client(limits={"climate_csv": sf.ServiceLimits(min_interval=client_interval)}, retries=0)
        started = time.monotonic()
        assert csv_burst(client, count, workers=count) == [None] * count
        assert time.monotonic() - started >= (count - 1) * client_interval
        assert hits(service, "csv") == count


def test_throttled_burst_is_never_refused_when_client_and_service_intervals_match() -> None:
    # The service forgives a tenth of its interval; at 0.5 s that is 50 ms, more than the delay
    # between the client's send and the service's check on a loaded 2-core machine (at 0.2 s the
    # 20 ms tolerance was exceeded there about one full-suite run in two).
    interval, count = 0.5, 8
    with sf.LocalService(climate=sf.ClimateSettings(csv_interval=interval)) as service:
        client = service.client(limits={"climate_csv": sf.ServiceLimits(min_interval=interval)}, retries=0)
        refused = [error for error in csv_burst(client, count, workers=count) if error is not None]
        assert refused == []


def test_daily_csv_quota_refuses_without_waiting_a_day() -> None:
    with sf.LocalService(climate=sf.ClimateSettings(csv_interval=0, csv_per_day=2)) as service:
        client = service.client(limits=quick_limits())
        for year in (2010, 2011):
            client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=year, email=EMAIL, attributes="ghi")
        started = time.monotonic()
        with pytest.raises(sf.RateLimitError) as caught:
            client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=2012, email=EMAIL, attributes="ghi")
        assert time.monotonic() - started < 5
        assert caught.value.status == 429 and "2 csv requests per 24 hours" in str(caught.value)
        assert caught.value.retry_after is not None and caught.value.retry_after > 86_000
        assert hits(service, "csv") == 3


def test_service_caps_requests_in_flight_at_twenty_per_user() -> None:
    with sf.LocalService(climate=sf.ClimateSettings(csv_interval=0, json_interval=0, build_delay=1.5)) as service:
        client = service.client(limits=quick_limits(), retry_rate_limited=False)
        in_flight_cap = sf.ClimateSettings().in_flight
        for index in range(in_flight_cap):
            client.climate.request(SLUG, wkt=f"POINT(-105 {30 + index * 0.1})", years=2010, email=EMAIL, attributes="ghi")
        with pytest.raises(sf.RateLimitError, match=f"{in_flight_cap} climate download requests in flight"):
            client.climate.request(SLUG, wkt="POINT(-100 30)", years=2010, email=EMAIL, attributes="ghi")
        with pytest.raises(sf.RateLimitError, match="in flight"):
            client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=2010, email=EMAIL, attributes="ghi")
        assert hits(service, "json") == in_flight_cap + 1 and hits(service, "csv") == 1


class ConcurrencyProbe:
    """A loopback handler that holds each request ``hold`` seconds, counts how many it holds at
    once, then answers with ``body``."""

    def __init__(self, body: bytes, hold: float) -> None:
        self.body, self.hold = body, hold
        self.lock = threading.Lock()
        self.current = self.peak = self.total = 0

    def __call__(self, request: http.server.BaseHTTPRequestHandler) -> None:
        with self.lock:
            self.current += 1
            self.total += 1
            self.peak = max(self.peak, self.current)
        time.sleep(self.hold)
        with self.lock:
            self.current -= 1
        reply(request, 200, self.body, {"content-type": "text/csv"})


@pytest.fixture
def deep_backlog(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback servers created after this accept a burst of 40 connections without dropping SYNs."""
    monkeypatch.setattr(http.server.ThreadingHTTPServer, "request_queue_size", 64)


def test_client_throttle_caps_csv_requests_in_flight(deep_backlog: None, samples: Samples) -> None:
    server = LoopbackServer()
    try:
        probe = ConcurrencyProbe(samples.csv_body, hold=0.3)
        server.handler = probe
        cap = 20
        client = sf.Client(api_key=KEY, base_url=server.url, limits=quick_limits(csv_in_flight=cap))
        assert csv_burst(client, 2 * cap, workers=2 * cap) == [None] * (2 * cap)
        assert (probe.total, probe.peak) == (2 * cap, cap)
    finally:
        server.close()


def test_bulk_keeps_at_most_twenty_requests_in_flight(deep_backlog: None, samples: Samples) -> None:
    server = LoopbackServer()
    try:
        probe = ConcurrencyProbe(samples.csv_body, hold=0.3)
        server.handler = probe
        client = sf.Client(api_key=KEY, base_url=server.url, limits=quick_limits())
        points = [(30.0 + 0.1 * i, -100.0) for i in range(40)]
        frame = client.climate.bulk(SLUG, points=points, years=[2010], email=EMAIL, progress=False, workers=64)
        assert frame.height == len(points) * hours_in(2010, leap_day=False)
        assert (probe.total, probe.peak) == (len(points), sf.ClimateSettings().in_flight)
    finally:
        server.close()


# ---------------------------------------------------------------------------------------------
# bulk: long frame, resume, cache, retries, progress


BULK_POINTS = [(39.0, -105.0), (39.4, -104.6), (40.2, -105.3), (38.8, -104.8)]
BULK_YEARS = [2009, 2010, 2011]


def bulk(client: sf.Client, cache_dir: Path | None, *, email: str = EMAIL, **options: Any) -> pl.DataFrame:
    frame: pl.DataFrame = client.climate.bulk(
        SLUG, points=BULK_POINTS, years=BULK_YEARS, email=email, attributes="ghi,temperature_2m", cache_dir=cache_dir,
        progress=False, **options,
    )
    return frame


def test_bulk_gives_one_long_frame_equal_to_single_downloads(climate_service: sf.LocalService, climate_client: sf.Client) -> None:
    frame = climate_client.climate.bulk(
        SLUG, points=TWO_POINTS, years=[2010, 2012], email=EMAIL, attributes=["ghi", "temperature_2m"], leap_day=True, progress=False
    )
    assert frame.columns[:2] == ["site", "year"]
    assert frame.height == len(TWO_POINTS) * (hours_in(2010, True) + hours_in(2012, True))
    for site, (lat, lon) in enumerate(TWO_POINTS):
        for year in (2010, 2012):
            single = climate_client.climate.download_csv(SLUG, lat=lat, lon=lon, year=year, email=EMAIL, attributes="ghi,temperature_2m", leap_day=True)
            part = frame.filter((pl.col("site") == site) & (pl.col("year") == year)).drop("site", "year")
            assert part.equals(single.data), (site, year)
    assert hits(climate_service, "csv") == 2 * len(TWO_POINTS) * 2


def test_async_bulk_gives_the_blocking_frame_and_shares_its_cache(climate_service: sf.LocalService, tmp_path: Path) -> None:
    options: dict[str, Any] = dict(points=TWO_POINTS, years=[2010, 2012], email=EMAIL, attributes=["ghi"], progress=False)

    async def main() -> pl.DataFrame:
        async with climate_service.async_client(limits=quick_limits(), backoff=0.01) as client:
            return await client.climate.bulk(SLUG, cache_dir=tmp_path, workers=3, **options)

    frame = asyncio.run(main())
    assert hits(climate_service, "csv") == len(TWO_POINTS) * 2
    blocking = climate_service.client(limits=quick_limits()).climate.bulk(SLUG, cache_dir=tmp_path, **options)
    assert blocking.equals(frame)
    assert hits(climate_service, "csv") == len(TWO_POINTS) * 2


def test_bulk_resumes_an_interrupted_run_without_downloading_twice(
    climate_service: sf.LocalService, climate_client: sf.Client, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site_years = len(BULK_POINTS) * len(BULK_YEARS)
    before_interrupt = 5
    real_download = sunflux.climate._core.climate_download_csv
    started = iter(range(site_years))
    lock = threading.Lock()

    def interrupted_download(*args: Any, **kwargs: Any) -> Any:
        with lock:
            number = next(started)
        if number >= before_interrupt:
            raise KeyboardInterrupt
        return real_download(*args, **kwargs)

    monkeypatch.setattr(sunflux.climate._core, "climate_download_csv", interrupted_download)
    with pytest.raises(KeyboardInterrupt):
        bulk(climate_client, tmp_path, workers=3)
    assert hits(climate_service, "csv") == before_interrupt
    assert len(list(tmp_path.glob("*.arrow"))) == before_interrupt
    assert not list(tmp_path.glob("*.part"))

    monkeypatch.setattr(sunflux.climate._core, "climate_download_csv", real_download)
    resumed = bulk(climate_client, tmp_path)
    assert hits(climate_service, "csv") == site_years
    assert resumed.height == site_years * hours_in(2010, leap_day=False)
    assert bulk(climate_client, tmp_path).equals(resumed)
    assert hits(climate_service, "csv") == site_years
    uncached = bulk(climate_client, None)
    assert uncached.equals(resumed)


def test_bulk_in_local_time_across_time_zones(climate_client: sf.Client) -> None:
    """Denver (UTC−7) and New York (UTC−5) in their standard times: their zones cannot share a
    column (this raised SchemaError), so the stamps are in UTC and ``local_time`` keeps each
    site's clock; its local months hold each site's own single download."""
    points = [DENVER, (40.7, -74.0)]
    frame = climate_client.climate.bulk(SLUG, points=points, years=[2010], email=EMAIL, attributes="ghi", utc=False, progress=False)
    assert frame.columns[:2] == ["site", "year"] and frame.schema["timestamp"] == pl.Datetime("us", "UTC")
    assert frame.columns.index("local_time") == frame.columns.index("timestamp") + 1
    for site, (lat, lon) in enumerate(points):
        single = climate_client.climate.download_csv(SLUG, lat=lat, lon=lon, year=2010, email=EMAIL, attributes="ghi", utc=False)
        rows = frame.filter(pl.col("site") == site)
        assert rows["timestamp"].equals(single.data["timestamp"].dt.convert_time_zone("UTC"))
        assert rows["local_time"].equals(single.data["timestamp"].dt.replace_time_zone(None).alias("local_time"))
        by_month = rows.group_by(pl.col("local_time").dt.month().alias("m")).agg(pl.col("ghi").sum()).sort("m")
        own = single.data.group_by(pl.col("timestamp").dt.month().alias("m")).agg(pl.col("ghi").sum()).sort("m")
        assert by_month.equals(own)
    one_zone = climate_client.climate.bulk(SLUG, points=TWO_POINTS, years=[2010], email=EMAIL, attributes="ghi", utc=False, progress=False)
    assert one_zone.schema["timestamp"] == pl.Datetime("us", "Etc/GMT+7"), "one zone: the sites' own"
    assert "local_time" in one_zone.columns


def test_bulk_cache_ignores_the_key_and_email_but_not_what_changes_the_data(tmp_path: Path) -> None:
    with sf.LocalService(climate=QUICK, extra_keys=[OTHER_KEY]) as service:
        first = bulk(service.client(limits=quick_limits()), tmp_path)
        site_years = len(BULK_POINTS) * len(BULK_YEARS)
        assert hits(service, "csv") == site_years
        other_user = service.client(api_key=OTHER_KEY, limits=quick_limits())
        assert bulk(other_user, tmp_path, email="someone.else@example.net").equals(first)
        assert hits(service, "csv") == site_years
        local_time = bulk(other_user, tmp_path, utc=False)
        assert hits(service, "csv") == 2 * site_years
        assert not local_time.equals(first)


def test_corrupted_or_mismatched_cache_files_are_misses(climate_service: sf.LocalService, climate_client: sf.Client, tmp_path: Path) -> None:
    first = bulk(climate_client, tmp_path)
    files = sorted(tmp_path.glob("*.arrow"))
    files[0].write_bytes(b"this is not an arrow file")
    files[1].write_bytes(files[1].read_bytes()[:200])
    files[2].write_bytes(files[3].read_bytes())
    downloads = hits(climate_service, "csv")
    assert bulk(climate_client, tmp_path).equals(first)
    assert hits(climate_service, "csv") == downloads + 3


def test_bulk_retries_transient_faults(tmp_path: Path) -> None:
    faults = sf.Faults(rate=0.3, seed=7, kinds=("500", "503", "truncate", "drop"))
    with sf.LocalService(climate=QUICK, faults=faults) as service:
        flaky = bulk(service.client(limits=quick_limits(), backoff=0.01, retries=8), None)
        site_years = len(BULK_POINTS) * len(BULK_YEARS)
        assert hits(service, "csv") > site_years
    with sf.LocalService(climate=QUICK) as service:
        assert bulk(service.client(limits=quick_limits()), None).equals(flaky)


def test_bulk_shows_progress(climate_client: sf.Client, capsys: pytest.CaptureFixture[str]) -> None:
    climate_client.climate.bulk(SLUG, points=TWO_POINTS, years=[2010], email=EMAIL, attributes="ghi", progress=True)
    shown = capsys.readouterr().err
    assert f"climate {SLUG}" in shown and f"{len(TWO_POINTS)}/{len(TWO_POINTS)}" in shown and "site-year" in shown


def test_bulk_without_work_is_a_parameter_error(climate_client: sf.Client) -> None:
    with pytest.raises(sf.ParameterError, match="at least one point and one year"):
        climate_client.climate.bulk(SLUG, points=[], years=[2010], email=EMAIL, progress=False)


# ---------------------------------------------------------------------------------------------
# The generated weather


@pytest.fixture(scope="module")
def weather_tables() -> dict[str, ClimateTable]:
    with sf.LocalService(climate=WORLD) as service:
        client = service.client(limits=quick_limits())
        sites = {"denver": (DENVER, False), "sydney": (SYDNEY, False), "miami": (MIAMI, True)}
        return {
            name: client.climate.download_csv(SLUG, lat=lat, lon=lon, year=2010, email=EMAIL, utc=utc)
            for name, ((lat, lon), utc) in sites.items()
        }


def isa_pressure_mbar(elevation_m: float) -> float:
    """The International Standard Atmosphere's pressure at an elevation."""
    return float(1013.25 * (1 - 2.25577e-5 * elevation_m) ** 5.25588)


def monthly_mean(table: ClimateTable, column: str, month: int) -> float:
    mean = table.data.filter(pl.col("Month") == month)[column].mean()
    assert isinstance(mean, float)
    return mean


def test_generated_weather_is_physically_plausible(weather_tables: dict[str, ClimateTable]) -> None:
    extraterrestrial_max = 1361 * 1.035
    for name, table in weather_tables.items():
        data = table.data
        assert data.select((pl.col("dhi") <= pl.col("ghi")).all()).item(), name
        assert data.select((pl.col("dni") >= 0) & (pl.col("dhi") >= 0)).to_series().all(), name
        assert data["ghi"].max() < extraterrestrial_max and data["dni"].max() < extraterrestrial_max, name
        assert data["relativehumidity_2m"].min() >= 0 and data["relativehumidity_2m"].max() <= 100, name
        for height in ("10m", "100m", "200m"):
            assert data[f"winddirection_{height}"].is_between(0, 360, closed="left").all(), name
        means = [float(data[f"windspeed_{height}"].mean()) for height in ("10m", "100m", "200m")]
        assert means[0] < means[1] < means[2], (name, means)
        isa = isa_pressure_mbar(table.metadata.elevation or 0.0)
        assert abs(float(data["pressure_0m"].mean()) - isa) < 0.03 * isa, name
    denver, miami, sydney = weather_tables["denver"], weather_tables["miami"], weather_tables["sydney"]
    assert denver.metadata.elevation is not None and miami.metadata.elevation is not None
    assert denver.metadata.elevation > miami.metadata.elevation + 1000
    assert denver.data["pressure_0m"].mean() < miami.data["pressure_0m"].mean() - 100
    assert monthly_mean(denver, "temperature_2m", 7) > monthly_mean(denver, "temperature_2m", 1) + 10
    assert monthly_mean(sydney, "temperature_2m", 1) > monthly_mean(sydney, "temperature_2m", 7) + 5


@pytest.mark.parametrize("site", ["denver", "sydney"])
def test_sun_is_down_at_local_night_and_up_at_local_noon(weather_tables: dict[str, ClimateTable], site: str) -> None:
    data = weather_tables[site].data
    assert weather_tables[site].metadata.time_zone == weather_tables[site].metadata.local_time_zone
    night = data.filter(pl.col("Hour").is_in([21, 22, 23, 0, 1, 2, 3]))
    assert night.height == 7 * 365
    assert night.select(pl.col("ghi", "dni", "dhi").abs().max()).row(0) == (0, 0, 0)
    noon = data.filter(pl.col("Hour") == 12)
    assert (noon["ghi"] > 0).all()


SLUGS = ["ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5", "ncdb-4km-Hourly-CONUS-v1-0-0-RCP8-5", "nsrdb-GOES-aggregated-v4-0-0"]


def test_every_dataset_slug_works_and_seeds_different_data(climate_service: sf.LocalService, climate_client: sf.Client) -> None:
    def wind(slug: str) -> str:
        return "windspeed" if slug.startswith("nsrdb-") else "windspeed_10m"

    def download(slug: str) -> ClimateTable:
        attributes = "ghi,wind_speed" if slug.startswith("nsrdb-") else "ghi,windspeed_10m"
        return climate_client.climate.download_csv(slug, lat=DENVER[0], lon=DENVER[1], year=2010, email=EMAIL, attributes=attributes)

    tables = {slug: download(slug) for slug in SLUGS}
    for slug, table in tables.items():
        assert slug in table.metadata.source and hits(climate_service, "csv", slug) == 1
        assert table.data.height == hours_in(2010, leap_day=False)
    for index, slug in enumerate(SLUGS):
        for other in SLUGS[index + 1:]:
            assert not tables[slug].data["ghi"].equals(tables[other].data["ghi"]), (slug, other)
            assert not tables[slug].data[wind(slug)].equals(tables[other].data[wind(other)]), (slug, other)
    assert download(SLUGS[0]).data.equals(tables[SLUGS[0]].data)


# ---------------------------------------------------------------------------------------------
# Views and parsing bodies from elsewhere


def test_pandas_view_holds_the_same_values_and_instants(samples: Samples) -> None:
    table = samples.table
    frame = table.to_pandas()
    assert list(frame.columns) == table.data.columns
    assert str(frame["timestamp"].dt.tz) == "UTC"
    assert frame["timestamp"].iloc[1] - frame["timestamp"].iloc[0] == dt.timedelta(hours=1)
    for name in ATTRIBUTES:
        assert frame[name].tolist() == table.data[name].to_list(), name
    assert pl.DataFrame(pa.table(table)).equals(table.data)


METADATA_ROW = (
    "Source,Location ID,City,County,State,Country,Offshore,EEZ,Latitude,Longitude,Time Zone,Elevation,Local Time Zone,"
    "GHI Units,DNI Units,DHI Units,Temperature Units,Wind Speed Units,Relative Humidity Units,Wind Direction Units,Version\n"
)


def test_parse_csv_of_a_body_from_elsewhere() -> None:
    values = 'other tool,42,"Golden, CO",Jefferson,Colorado,United States,False,-,39.74,-105.18,-7,1829,-7,w/m2,w/m2,w/m2,c,m/s,%,Degrees,3.0\n'
    header = "Year,Month,Day,Hour,Minute,GHI,DNI,DHI,air temperature at 2m (Celsius)\n"
    rows = "2012,2,28,23,0,0,0,0,-3.5\n2012,2,29,0,0,,0,0,-4.0\n2012,2,29,1,0,0,0,0,-4.25\n"
    text = METADATA_ROW + values + header + rows
    table = parse_csv(text, whole_year=False)
    assert parse_csv(text.encode(), whole_year=False).data.equals(table.data)
    meta = table.metadata
    assert (meta.city, meta.county, meta.location_id, meta.elevation, meta.time_zone) == ("Golden, CO", "Jefferson", "42", 1829, -7)
    assert meta.columns == {"ghi": "GHI", "dni": "DNI", "dhi": "DHI", "temperature_2m": "air temperature at 2m (Celsius)"}
    assert table.data.height == 3 and math.isnan(table.data["ghi"][1])
    assert table.data["temperature_2m"].to_list() == [-3.5, -4.0, -4.25]
    assert instants(table.data)[1] == dt.datetime(2012, 2, 29, 7)


def test_parse_csv_of_the_ncdb_example_with_its_short_site_header() -> None:
    body = (
        "SiteID,Site Timezone,Data Timezone,Longitude,Latitude,Country\n80,-9,-9,-130.756,48.75498,b'Canada'\n"
        "Year,Month,Day,Hour,Minute,wind direction at 180m (deg)\n2017,1,1,0,0,347.18\n2017,1,1,1,0,340.1\n"
    )
    table = parse_csv(body, whole_year=False)
    assert (table.metadata.location_id, table.metadata.country, table.metadata.time_zone) == ("80", "Canada", -9)
    assert (table.metadata.latitude, table.metadata.longitude) == (48.75498, -130.756)
    assert table.data.columns[-1] == "winddirection_180m" and table.data["winddirection_180m"].to_list() == [347.18, 340.1]


def test_parse_csv_of_an_error_body_raises_the_error() -> None:
    with pytest.raises(sf.ValidationError) as caught:
        parse_csv(json.dumps(SERVICE_BAD_WKT))
    assert caught.value.errors == SERVICE_BAD_WKT["errors"]


def test_parse_zip_of_bytes_from_elsewhere(samples: Samples) -> None:
    parsed = parse_zip(samples.zip_body)
    assert parsed.data.equals(samples.download.data) and parsed.sites.equals(samples.download.sites)
    assert parsed.files == samples.download.files
    repacked = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(samples.zip_body)) as source, zipfile.ZipFile(repacked, "w", zipfile.ZIP_STORED) as target:
        target.writestr("README.txt", "not a csv: skipped")
        for name in source.namelist()[:2]:
            target.writestr(f"data/{name}", source.read(name))
    partial = parse_zip(repacked.getvalue())
    assert len(partial.files) == 2 and partial.data.height == 2 * hours_in(2010, leap_day=False)
    with pytest.raises(sf.ApiError, match="not a zip"):
        parse_zip(b"<html>Request rejected</html>")
    only_readme = io.BytesIO()
    with zipfile.ZipFile(only_readme, "w") as target:
        target.writestr("README.txt", "no data")
    for no_csv in (only_readme.getvalue(), _empty_zip()):
        with pytest.raises(sf.ApiError, match="holds no CSV file"):
            parse_zip(no_csv)


def _empty_zip() -> bytes:
    empty = io.BytesIO()
    zipfile.ZipFile(empty, "w").close()
    return empty.getvalue()


# ---------------------------------------------------------------------------------------------
# AsyncClient


def test_async_client_downloads_requests_and_fetches(climate_service: sf.LocalService, samples: Samples) -> None:
    async def main() -> tuple[list[ClimateTable], ClimateDownload]:
        client = climate_service.async_client(limits=quick_limits())
        tables = await asyncio.gather(
            *(client.climate.download_csv(SLUG, lat=lat, lon=lon, year=2010, email=EMAIL, attributes=["ghi", "temperature_2m"]) for lat, lon in TWO_POINTS)
        )
        with pytest.raises(sf.ParameterError, match="year: 2020"):
            await client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=2020, email=EMAIL)
        answer = await client.climate.request(SLUG, wkt=point_wkt(TWO_POINTS), years=[2010, 2011], email=EMAIL, attributes="ghi,temperature_2m")
        return list(tables), await client.climate.fetch(answer.download_url, timeout=30)

    tables, download = asyncio.run(main())
    for (lat, lon), table in zip(TWO_POINTS, tables):
        assert table.data.equals(samples.point_tables[(lat, lon, 2010)].data)
    assert download.data.equals(samples.download.data)
    assert hits(climate_service, "csv") == len(TWO_POINTS) and hits(climate_service, "json") == 1


# ---------------------------------------------------------------------------------------------
# LocalService limit profiles: the service and its clients agree on what is enforced


def test_local_service_enforces_no_spec_limits_by_default_and_its_clients_do_not_wait() -> None:
    with sf.LocalService() as service:
        client = service.client(retries=0)
        started = time.monotonic()
        for year in (2010, 2011, 2012, 2013, 2014):
            client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=year, email=EMAIL, attributes="ghi")
        assert time.monotonic() - started < 2.5
        assert client.rate_limit == sf.RateLimit(None, None)
        assert hits(service, "csv") == 5


def test_spec_limits_when_asked_service_refuses_and_clients_throttle() -> None:
    with sf.LocalService(limits="spec") as service:
        unthrottled = service.client(throttle=False, retries=0)
        unthrottled.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=2010, email=EMAIL, attributes="ghi")
        with pytest.raises(sf.RateLimitError, match="at most one every 1 s"):
            unthrottled.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=2011, email=EMAIL, attributes="ghi")
        assert unthrottled.rate_limit.limit == 1000
    with sf.LocalService(limits="spec") as service:
        client = service.client(retries=0)
        started = time.monotonic()
        for year in (2012, 2013):
            client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=year, email=EMAIL, attributes="ghi")
        assert time.monotonic() - started >= 1.0


def test_limit_profile_is_checked() -> None:
    with pytest.raises(sf.ParameterError, match="limits must be one of 'none', 'spec'"):
        sf.LocalService(limits="live")


# ---------------------------------------------------------------------------------------------
# metadata: a short repr, units keyed like the frame, the place kept in a weather year


def test_metadata_repr_is_short_and_units_match_the_columns(climate_client: sf.Client) -> None:
    table = climate_client.climate.download_csv(SLUG, lat=36.1, lon=-115.1, year=2010, email=EMAIL)
    metadata = table.metadata
    shown = repr(metadata)
    assert len(shown) < 250, shown
    assert shown.startswith("ClimateMetadata('LAS VEGAS, Nevada, United States', lat=36.1, lon=-115.1")
    data_columns = [c for c in table.data.columns if c not in ("Year", "Month", "Day", "Hour", "Minute", "timestamp")]
    assert list(metadata.units) == data_columns
    assert metadata.units["temperature_2m"] == "c" and metadata.units["windspeed_100m"] == "m/s" and metadata.units["pressure_0m"] == "mbar"
    only = climate_client.climate.download_csv(SLUG, lat=36.1, lon=-115.1, year=2011, email=EMAIL, attributes=["ghi", "windspeed_10m"])
    assert only.metadata.units == {"ghi": "w/m2", "windspeed_10m": "m/s"}


@pytest.mark.parametrize("local_time", [True, False])
def test_a_weather_year_made_from_climate_data_keeps_its_place(climate_client: sf.Client, local_time: bool) -> None:
    table = climate_client.climate.download_csv(SLUG, lat=36.1, lon=-115.1, year=2010, email=EMAIL)
    weather = table.weather(local_time=local_time)
    assert (weather.city, weather.state, weather.country) == ("LAS VEGAS", "Nevada", "United States")
    assert weather.location_id == table.metadata.location_id and weather.source == table.metadata.source
    assert repr(weather).startswith("Weather(LAS VEGAS, Nevada, United States: lat=36.1")


# ---------------------------------------------------------------------------------------------
# NSRDB downloads: routed by data set family, served (synthetic) and refused like the live service

NSRDB = "nsrdb-GOES-aggregated-v4-0-0"
NSRDB_CONUS = "nsrdb-GOES-conus-v4-0-0"
MID_PACIFIC = (0.0, -150.0)


def test_nsrdb_downloads_take_the_nsrdb_path_and_parse(climate_service: sf.LocalService, climate_client: sf.Client) -> None:
    assert climate_client.url("climate_download", dataset=NSRDB, format="csv").endswith(f"/api/nsrdb/v2/solar/{NSRDB}-download.csv")
    table = climate_client.climate.download_csv(NSRDB, lat=DENVER[0], lon=DENVER[1], year=2020, email=EMAIL, attributes=["ghi", "dni", "dhi", "air_temperature", "wind_speed"])
    assert table.data.height == hours_in(2020, leap_day=False)
    assert table.data.columns[6:] == ["ghi", "dni", "dhi", "temperature", "windspeed"]
    assert table.weather().city == "DENVER"
    assert NSRDB in table.metadata.source and "synthetic" in table.metadata.source
    assert climate_service.hits() == {f"/api/nsrdb/v2/solar/{NSRDB}-download.csv": 1}
    raw = climate_client.request(
        "GET", "climate_download", args={"dataset": "nsrdb-GOES-tmy-v4-0-0", "format": "csv"},
        params={"wkt": "POINT(-105.18 39.74)", "names": 2020, "interval": 60, "email": EMAIL, "attributes": "ghi"},
    )
    assert sf.climate.parse_csv(raw.content).data.height == hours_in(2020, leap_day=False)


def test_nsrdb_request_fetch_and_bulk(climate_client: sf.Client) -> None:
    answer = climate_client.climate.request(NSRDB_CONUS, wkt=point_wkt(TWO_POINTS), years=[2021, 2022], email=EMAIL, attributes="ghi")
    assert "/files/climate/" in answer.download_url
    download = climate_client.climate.fetch(answer.download_url, timeout=30)
    assert len(download.files) == 4
    frame = climate_client.climate.bulk(NSRDB, points=TWO_POINTS, years=[2019], email=EMAIL, attributes="ghi", progress=False)
    assert frame.height == 2 * hours_in(2019, leap_day=False)


def test_unknown_nsrdb_data_set_is_refused(climate_client: sf.Client) -> None:
    with pytest.raises(sf.NotFoundError, match="no NSRDB data set named \"nsrdb-GOES-nowhere-v4-0-0\".*nsrdb-GOES-conus-v4-0-0"):
        climate_client.climate.download_csv("nsrdb-GOES-nowhere-v4-0-0", lat=DENVER[0], lon=DENVER[1], year=2020, email=EMAIL)


@pytest.mark.parametrize("slug", ["ncdb-nonexistent-set", "ncdb-4km-hourly-conus"])
def test_unknown_climate_data_set_is_refused_as_nsrdb_ones_are(climate_client: sf.Client, slug: str) -> None:
    with pytest.raises(sf.NotFoundError, match=f"no climate data set named \"{slug}\".*{SLUG}"):
        climate_client.climate.download_csv(slug, lat=DENVER[0], lon=DENVER[1], year=2010, email=EMAIL, attributes="ghi")
    with pytest.raises(sf.NotFoundError, match="no climate data set"):
        climate_client.climate.request(slug, wkt=point_wkt(TWO_POINTS), years=[2010], email=EMAIL, attributes="ghi")


def test_points_outside_a_climate_sets_coverage_are_refused(climate_client: sf.Client) -> None:
    with pytest.raises(sf.ValidationError, match=f"outside the coverage of {SLUG}"):
        climate_client.climate.download_csv(SLUG, lat=MID_PACIFIC[0], lon=MID_PACIFIC[1], year=2010, email=EMAIL, attributes="ghi")
    with pytest.raises(sf.ValidationError, match=r"\(lat 28.62, lon 77.18\) outside the coverage"):
        climate_client.climate.request(SLUG, wkt=f"MULTIPOINT(({DENVER[1]} {DENVER[0]}), (77.18 28.62))", years=[2010], email=EMAIL, attributes="ghi")


def test_points_outside_a_data_sets_coverage_are_refused(climate_client: sf.Client) -> None:
    with pytest.raises(sf.ValidationError, match=f"outside the coverage of {NSRDB_CONUS}"):
        climate_client.climate.download_csv(NSRDB_CONUS, lat=MID_PACIFIC[0], lon=MID_PACIFIC[1], year=2021, email=EMAIL, attributes="ghi")
    with pytest.raises(sf.ValidationError, match=r"\(lat -?0(\.0\d)?, lon -150(\.0\d)?\) outside the coverage"):
        climate_client.climate.request(NSRDB_CONUS, wkt=f"MULTIPOINT(({DENVER[1]} {DENVER[0]}), (-150 0))", years=[2021], email=EMAIL, attributes="ghi")
    wide = climate_client.climate.download_csv(NSRDB, lat=MID_PACIFIC[0], lon=MID_PACIFIC[1], year=2021, email=EMAIL, attributes="ghi")
    assert wide.data.height == hours_in(2021, leap_day=False)


def test_a_service_told_to_serve_anywhere_lifts_the_regions_but_not_the_names(world_client: sf.Client) -> None:
    table = world_client.climate.download_csv(SLUG, lat=SYDNEY[0], lon=SYDNEY[1], year=2010, email=EMAIL, attributes="ghi")
    assert table.metadata.local_time_zone == 10
    with pytest.raises(sf.NotFoundError, match="no climate data set"):
        world_client.climate.download_csv("ncdb-nonexistent-set", lat=DENVER[0], lon=DENVER[1], year=2010, email=EMAIL)
    assert sf.LocalService.DATASETS[:2] == (SLUG, "ncdb-4km-Hourly-CONUS-v1-0-0-RCP8-5") and NSRDB_CONUS in sf.LocalService.DATASETS


def test_nsrdb_years_are_checked_against_its_span_before_sending(climate_service: sf.LocalService, climate_client: sf.Client) -> None:
    with pytest.raises(sf.ParameterError, match="year: 1997 is outside the available years 1998–2024"):
        climate_client.climate.download_csv(NSRDB, lat=DENVER[0], lon=DENVER[1], year=1997, email=EMAIL)
    assert climate_service.hits() == {}


def test_nsrdb_sets_take_the_nsrdb_attribute_names(climate_service: sf.LocalService, climate_client: sf.Client) -> None:
    raw = climate_client.request(
        "GET", "climate_download", args={"dataset": NSRDB, "format": "csv"},
        params={"wkt": "POINT(-105.18 39.74)", "names": 2020, "interval": 60, "email": EMAIL, "attributes": "air_temperature,wind_speed,surface_pressure"},
    )
    assert raw.text.splitlines()[2] == "Year,Month,Day,Hour,Minute,Temperature,Wind Speed,Pressure"
    with pytest.raises(sf.ParameterError, match=r'attributes: "temperature_2m" not offered; choose from .*air_temperature.*wind_speed'):
        climate_client.climate.download_csv(NSRDB, lat=DENVER[0], lon=DENVER[1], year=2020, email=EMAIL, attributes="ghi,temperature_2m")
    with pytest.raises(sf.ParameterError, match='"air_temperature" not offered'):
        climate_client.climate.download_csv(SLUG, lat=DENVER[0], lon=DENVER[1], year=2010, email=EMAIL, attributes="air_temperature")
    before = dict(climate_service.hits())
    table = climate_client.climate.download_csv(NSRDB, lat=DENVER[0], lon=DENVER[1], year=2020, email=EMAIL)
    assert table.data.columns[6:] == ["pressure_0m", "dhi", "dni", "ghi", "relativehumidity", "temperature", "winddirection", "windspeed"]
    assert climate_service.hits()[download_path("csv", NSRDB)] == before.get(download_path("csv", NSRDB), 0) + 1
