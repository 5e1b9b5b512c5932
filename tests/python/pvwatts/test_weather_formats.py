"""Every weather format, time step and calendar form the reference reads, checked against SSC.

The fixtures in ``tests/data/weather_formats`` are the Greensboro TMY3 year written as EPW (hourly
and 30-minute, with gaps SSC fills), SAM CSV at 15 minutes (stamps at minute 7.5), an NSRDB PSM3
download at 10 minutes, a leap year with and without 29 February, and the same data moved to a
half-hour time zone; ``references.json.gz`` holds SSC ``pvwattsv5`` results on each (see the
folder's README and ``make_weather_formats.py``). Also: pvlib's reader outputs as they come, a CSV
without metadata rows, and the time stamps of a climate year and its simulation joining row for
row in UTC and local time.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pytest

import sunflux as sf
from support.paths import DATA
from sunflux.pvwatts import Weather, read_weather, simulate

FOLDER = DATA / "weather_formats"
REFERENCES: dict[str, Any] = json.loads(gzip.decompress((FOLDER / "references.json.gz").read_bytes()))
FILES = list(REFERENCES["files"])
SYSTEMS: dict[str, dict[str, Any]] = REFERENCES["systems"]
COMMON: dict[str, float] = REFERENCES["common"]


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("weather_formats")
    unzipped = {}
    for name in FILES:
        unzipped[name] = folder / name
        unzipped[name].write_bytes(gzip.decompress((FOLDER / f"{name}.gz").read_bytes()))
    return unzipped


def kept_records(records: int) -> list[int]:
    """The records the references keep (the generator's rule): every stride-th and 1 July."""
    per_hour = records // 8760
    july_1 = 181 * 24 * per_hour
    return sorted(set(range(0, records, REFERENCES["stride"])) | set(range(july_1, july_1 + 24 * per_hour)))


def run(weather: Weather, system: dict[str, Any]) -> sf.PvEstimate:
    parameters = {**COMMON, **system}
    return simulate(
        weather, parameters.pop("system_capacity"), parameters.pop("module_type"), parameters.pop("losses"),
        parameters.pop("array_type"), parameters.pop("tilt"), parameters.pop("azimuth"), **parameters,
    )


def assert_matches_ssc(result: sf.PvEstimate, reference: dict[str, Any]) -> None:
    hourly = result.hourly
    assert hourly is not None and hourly.height == reference["records"]
    keep = kept_records(reference["records"])
    ac = hourly["ac"].to_numpy()[keep]
    tcell = hourly["tcell"].to_numpy()[keep]
    assert np.max(np.abs(ac - np.array(reference["ac"]))) <= 1e-6, "hourly AC within 1e-6 W"
    assert np.max(np.abs(tcell - np.array(reference["tcell"]))) <= 1e-6, "cell temperature within 1e-6 K"
    assert result.ac_annual == pytest.approx(reference["ac_annual"], rel=1e-12, abs=0)
    assert result.monthly["ac"].to_list() == pytest.approx(reference["ac_monthly"], rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("system", SYSTEMS)
@pytest.mark.parametrize("name", FILES)
def test_every_format_matches_ssc(paths: dict[str, Path], name: str, system: str) -> None:
    weather = read_weather(paths[name])
    facts = REFERENCES["files"][name]
    if facts.get("ssc_drops_february_29"):
        assert weather.has_leap_day and len(weather) == 8784
        weather = weather.without_leap_day()
    assert_matches_ssc(run(weather, SYSTEMS[system]), facts["ssc"][system])


@pytest.mark.parametrize(
    "name, records, per_hour, instantaneous, first_minute",
    [
        ("greensboro.epw", 8760, 1, True, 30.0),
        ("greensboro_30min.epw", 17520, 2, True, 30.0),
        ("greensboro_15min.csv", 35040, 4, True, 7.5),
        ("greensboro_10min_psm3.csv", 52560, 6, True, 0.0),
        ("greensboro_2020_with_feb29.csv", 8784, 1, False, None),
        ("greensboro_2020_without_feb29.csv", 8760, 1, False, None),
        ("delhi_half_hour_zone.csv", 8760, 1, True, 0.0),
    ],
)
def test_each_file_is_read_with_its_step_and_time_convention(
    paths: dict[str, Path], name: str, records: int, per_hour: int, instantaneous: bool, first_minute: float | None
) -> None:
    weather = read_weather(paths[name])
    assert (len(weather), weather.steps_per_hour, weather.instantaneous) == (records, per_hour, instantaneous)
    frame = weather.to_polars()
    if first_minute is not None:
        assert frame["minute"][0] == first_minute
    assert frame["timestamp"].is_sorted() and frame["timestamp"].n_unique() == records
    step = frame["timestamp"].diff().drop_nulls().mode().to_list()
    assert step == [pd.Timedelta(minutes=60 // per_hour).to_pytimedelta()]


def test_a_csv_without_its_metadata_rows_reads_with_the_site_given(paths: dict[str, Path], tmp_path: Path) -> None:
    with_metadata = paths["greensboro_15min.csv"]
    bare = tmp_path / "bare.csv"
    bare.write_text("".join(with_metadata.read_text().splitlines(keepends=True)[2:]))
    site = {"lat": 36.1, "lon": -79.95, "tz": -5.0, "elevation": 273.0}
    with pytest.raises(sf.ParameterError, match="no metadata rows .* the site must be given: lat, lon, tz"):
        read_weather(bare)
    # The file's own header values are stored as float32, as SSC reads them; given ones as given.
    from_bare = run(read_weather(bare, **site), SYSTEMS["fixed_roof"]).ac_annual
    assert from_bare == pytest.approx(run(read_weather(with_metadata), SYSTEMS["fixed_roof"]).ac_annual, rel=1e-8)
    with pytest.raises(sf.ParameterError, match="tz=-6 was given, but the file says -5"):
        read_weather(with_metadata, tz=-6.0)


def test_a_missing_file_is_also_a_file_not_found_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError) as caught:
        read_weather(tmp_path / "nowhere.epw")
    assert isinstance(caught.value, sf.ParameterError) and "weather file not found" in str(caught.value)


@pytest.mark.parametrize("source", [None, 3, 2.5])
def test_what_weather_may_be_is_said_for_anything_else(source: Any) -> None:
    with pytest.raises(sf.ParameterError, match=r"weather must be a Weather, a path to a weather file .* got "):
        simulate(source, 4, 0, 14, 1, 20, 180)


# --- pvlib's reader outputs ------------------------------------------------------------------------


def test_pvlib_epw_output_reads_as_the_file(paths: dict[str, Path]) -> None:
    pvlib = pytest.importorskip("pvlib")
    data, metadata = pvlib.iotools.read_epw(paths["greensboro.epw"])
    from_pvlib = read_weather((data, metadata))
    from_file = read_weather(paths["greensboro.epw"])
    assert from_pvlib.instantaneous and from_pvlib.to_polars()["minute"][0] == 30.0
    # The frame's site and values are kept as the file reader keeps them (float32, as SSC does).
    assert (from_pvlib.lat, from_pvlib.tz) == (from_file.lat, from_file.tz) and from_file.tz == -5.0
    for system in SYSTEMS.values():
        assert run(from_pvlib, system).ac_annual == pytest.approx(run(from_file, system).ac_annual, rel=1e-9)


def test_an_epw_albedo_field_is_read_on_neither_route(paths: dict[str, Path]) -> None:
    """SSC's EPW reader leaves EPW's albedo field out, so the file route does, and pvlib's frame
    of the same file (which carries it as ``albedo``) gives the same answer."""
    pvlib = pytest.importorskip("pvlib")
    data, metadata = pvlib.iotools.read_epw(paths["greensboro.epw"])
    from_pvlib = read_weather((data.assign(albedo=0.6), metadata))
    from_file = read_weather(paths["greensboro.epw"])
    assert "albedo" not in from_pvlib.to_polars().columns and "albedo" not in from_file.to_polars().columns
    for version in ("v5", "v8"):
        one_axis = {**SYSTEMS["one_axis_horizontal"], "version": version}
        assert run(from_pvlib, one_axis).ac_annual == pytest.approx(run(from_file, one_axis).ac_annual, rel=1e-6)


def test_pvlib_tmy3_output_with_hour_ending_labels_reads_as_the_file(tmp_path: Path) -> None:
    pvlib = pytest.importorskip("pvlib")
    source = tmp_path / "723170TYA.CSV"
    source.write_bytes(gzip.decompress((FOLDER.parent / "723170TYA.CSV.gz").read_bytes()))
    data, metadata = pvlib.iotools.read_tmy3(source)
    assert data.index[0].hour == 1, "pvlib labels TMY3 hours by their end"
    from_pvlib = read_weather(data, metadata)
    from_file = read_weather(source)
    assert not from_pvlib.instantaneous and from_pvlib.to_polars()["hour"][0] == 0
    assert from_pvlib.to_polars()["year"].to_list() == from_file.to_polars()["year"].to_list()
    for system in SYSTEMS.values():
        assert run(from_pvlib, system).ac_annual == pytest.approx(run(from_file, system).ac_annual, rel=1e-6)
    index_only = data[["ghi", "dni", "dhi", "temp_air", "wind_speed"]]
    from_index = read_weather(index_only, metadata)
    assert from_index.to_polars()["hour"][0] == 0 and len(from_index) == 8760
    with pytest.raises(sf.ParameterError, match="tz=-6.0 was given, but the metadata says -5.0"):
        read_weather(data, metadata, tz=-6.0)


def test_pvlib_nsrdb_style_frame_with_a_utc_index_reads_in_its_metadata_zone(paths: dict[str, Path]) -> None:
    weather = read_weather(paths["greensboro_10min_psm3.csv"])
    local = weather.to_polars()
    utc_index = pd.DatetimeIndex(local["timestamp"].dt.convert_time_zone("UTC").to_pandas())
    data = pd.DataFrame({"ghi": local["gh"].to_numpy(), "dni": local["dn"].to_numpy(), "dhi": local["df"].to_numpy(),
                         "temp_air": local["tdry"].to_numpy(), "wind_speed": local["wspd"].to_numpy()}, index=utc_index)
    metadata = {"Latitude": 36.1, "Longitude": -79.95, "Time Zone": -5, "Elevation": 273}
    from_frame = read_weather((data, metadata))
    assert from_frame.steps_per_hour == 6 and from_frame.instantaneous
    assert from_frame.to_polars()["timestamp"].equals(local["timestamp"])


# --- time stamps that join ---------------------------------------------------------------------------


@pytest.mark.parametrize("lat, lon", [(39.74, -105.18), (28.62, 77.18)], ids=["UTC-7", "UTC+5:30"])
@pytest.mark.parametrize("year", [2010, 2012], ids=["2010", "leap 2012"])
def test_a_climate_year_and_its_simulation_join_row_for_row(lat: float, lon: float, year: int) -> None:
    with sf.LocalService(climate=sf.ClimateSettings(anywhere=True)) as service:  # New Delhi is in no data set's region
        table = service.client().climate.download_csv("ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5", lat=lat, lon=lon, year=year, email="me@example.org")
    weather = table.weather()
    assert len(weather) == 8760 and weather.tz == table.metadata.local_time_zone
    simulated = run(weather, SYSTEMS["fixed_roof"]).hourly
    assert simulated is not None
    for zone in ("UTC", simulated.schema["timestamp"].time_zone):  # type: ignore[attr-defined]
        left = table.data.with_columns(pl.col("timestamp").dt.convert_time_zone(zone))
        right = simulated.with_columns(pl.col("timestamp").dt.convert_time_zone(zone))
        assert left.join(right, on="timestamp").height == 8760
        merged = pd.merge(left.to_pandas(), right.to_pandas(), on="timestamp")
        assert len(merged) == 8760
    assert table.weather(local_time=False).tz == 0.0


def test_a_leap_year_downloaded_with_29_february_gives_8784_records(client: sf.Client) -> None:
    table = client.climate.download_csv("ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5", lat=39.74, lon=-105.18, year=2012, leap_day=True,
                                        email="me@example.org")
    weather = table.weather()
    assert len(weather) == 8784 and weather.has_leap_day
    result = run(weather, SYSTEMS["fixed_roof"])
    assert result.monthly["solrad"][1] == pytest.approx(result.monthly["poa"][1] / 29, rel=1e-12)


def test_the_local_year_of_a_utc_download_keeps_real_dates(client: sf.Client) -> None:
    table = client.climate.download_csv("ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5", lat=39.74, lon=-105.18, year=2010, email="me@example.org")
    stamps = table.weather().to_polars()["timestamp"]
    assert stamps[0].year == 2009 and (stamps[0].month, stamps[0].day, stamps[0].hour) == (12, 31, 17)
    assert stamps.is_sorted() and stamps.dt.convert_time_zone("UTC").equals(table.data["timestamp"])
