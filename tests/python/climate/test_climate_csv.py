"""Climate download, the CSV path: ``client.climate.download_csv`` against the embedded service
and loopback servers: one site-year with typed metadata, row counts for utc and leap_day, the
local-time shift, client-side validation of every parameter (nothing sent), the POST and GET
bodies and where the key goes, redirects, the service's 400s and error bodies, and row-count
checks."""

from __future__ import annotations

import calendar
import datetime as dt
import json
import re
from typing import Any

import polars as pl
import pytest

import sunflux as sf
from sunflux.climate import ATTRIBUTES, parse_csv
from support.climate import instants, SERVICE_BAD_WKT, assert_no_key_sent, captured, DENVER, download_answer, download_path, EMAIL, HALF_GRID_STEP, hits, hours_in, KEY, NEW_DELHI, point_wkt, quick_limits, Samples, serve, SLUG, SYDNEY, TIME_COLUMNS, TWO_POINTS, WEIGHT_CAP
from support.loopback import LoopbackServer, reply


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
