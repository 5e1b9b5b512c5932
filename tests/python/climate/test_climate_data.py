"""Climate download, the data: the plausibility of the generated weather, the sun by local time,
dataset slugs, the pandas view, and parsing bodies from elsewhere (``parse_csv``,
``parse_zip``)."""

from __future__ import annotations

import asyncio
import datetime as dt
import io
import json
import math
import time
import zipfile

import polars as pl
import pyarrow as pa
import pytest

import sunflux as sf
from sunflux.climate import ATTRIBUTES, ClimateDownload, ClimateTable, parse_csv, parse_zip
from support.climate import instants, SERVICE_BAD_WKT, DENVER, download_path, EMAIL, hits, hours_in, MIAMI, point_wkt, quick_limits, Samples, SLUG, SYDNEY, TWO_POINTS, WORLD


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
