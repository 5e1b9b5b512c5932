"""The local PV engine's Python face, `sunflux.pvwatts`: reading weather (TMY2, TMY3, SAM CSV,
bytes, polars/pandas/pyarrow tables, numpy arrays), errors that locate a bad file's problem, the
leap year, `simulate` (validation shared with ``client.pv.estimate``, results equal to SSC's in
``tests/data/pvref``) and `simulate_many` (equal to `simulate` one by one, output shapes, timestamps,
the GIL released while it runs)."""

from __future__ import annotations

import gzip
import json
import re
import threading
import time
import warnings
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import polars as pl
import pytest

import sunflux as sf
from support.paths import DATA
from sunflux.pvwatts import Weather, read_weather, simulate, simulate_many

PVREF = DATA / "pvref"

BASE = dict(system_capacity=4, module_type=0, losses=14, array_type=1, tilt=20, azimuth=180)
POSITIONAL = ("system_capacity", "module_type", "losses", "array_type", "tilt", "azimuth")
SAM_HEADER = "Source,Location ID,City,State,Country,Latitude,Longitude,Time Zone,Elevation"
SAM_COLUMNS = {"year": "Year", "month": "Month", "day": "Day", "hour": "Hour", "minute": "Minute", "gh": "GHI", "dn": "DNI",
               "df": "DHI", "tdry": "Temperature", "wspd": "Wind Speed", "pressure": "Pressure", "albedo": "Albedo"}


def _readme_number(text: str) -> float:
    return float(text.replace("\u2212", "-"))  # the README writes minus signs


def _readme_sites() -> dict[str, dict[str, Any]]:
    """The weather files and their sites as tests/data/README.md lists them."""
    row = re.compile(r"\| `(?P<file>[^`]+)\.gz` \| (?P<format>\w+) \| (?P<place>[^(]+) \(lat (?P<lat>\S+), lon (?P<lon>\S+), tz (?P<tz>\S+), (?P<elevation>\S+) m\) \|")
    sites = {}
    for match in row.finditer((DATA / "README.md").read_text()):
        sites[match["file"]] = {"format": match["format"], "place": match["place"].strip(),
                                **{key: _readme_number(match[key]) for key in ("lat", "lon", "tz", "elevation")}}
    return sites


SITES = _readme_sites()
GREENSBORO, SAND_POINT, MIAMI = SITES


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The committed weather files, unzipped."""
    folder = tmp_path_factory.mktemp("weather")
    for name in SITES:
        (folder / name).write_bytes(gzip.decompress((DATA / f"{name}.gz").read_bytes()))
    return {name: folder / name for name in SITES}


@pytest.fixture(scope="module")
def weathers(files: dict[str, Path]) -> dict[str, Weather]:
    return {name: read_weather(path) for name, path in files.items()}


def site_of(weather: Weather) -> dict[str, float]:
    return {"lat": weather.lat, "lon": weather.lon, "tz": weather.tz, "elevation": weather.elevation}


def split(system: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """A system's positional parameters (in order) and its keyword ones."""
    return [system[name] for name in POSITIONAL], {name: value for name, value in system.items() if name not in POSITIONAL}


def run(weather: Any, **change: Any) -> sf.PvEstimate:
    positional, keywords = split({**BASE, **change})
    return simulate(weather, *positional, **keywords)


def assert_same_result(left: sf.PvEstimate, right: sf.PvEstimate) -> None:
    assert left.ac_annual == right.ac_annual
    assert left.solrad_annual == right.solrad_annual
    assert left.capacity_factor == right.capacity_factor
    assert left.monthly.equals(right.monthly)
    assert (left.hourly is None and right.hourly is None) or left.hourly.equals(right.hourly)  # type: ignore[union-attr]


def write_sam_csv(path: Path, frame: pl.DataFrame, weather: Weather) -> Path:
    """``frame`` (the columns of `Weather.to_polars`) as a SAM CSV: metadata names and values, then
    the column names and one row per record."""
    values = ["test", weather.location_id, weather.city, weather.state, weather.country, weather.lat, weather.lon, weather.tz, weather.elevation]
    frame = frame.drop("timestamp", strict=False)
    with path.open("w") as out:
        out.write(f"{SAM_HEADER}\n{','.join(str(v).replace(',', ' ') for v in values)}\n")
        frame.rename({name: SAM_COLUMNS[name] for name in frame.columns}).write_csv(out)
    return path


def parameter_errors(call: Callable[[], object]) -> list[str]:
    with pytest.raises(sf.ParameterError) as caught:
        call()
    return [str(problem) for problem in caught.value.errors]


# --- reading weather -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SITES)
def test_files_are_read_with_the_site_of_the_readme(files: dict[str, Path], name: str) -> None:
    weather = read_weather(files[name])
    site = SITES[name]
    assert (weather.lat, weather.lon) == pytest.approx((site["lat"], site["lon"]), abs=1e-3)
    assert (weather.tz, weather.elevation) == (site["tz"], site["elevation"])
    assert weather.city.title().startswith(site["place"].split()[0].title()) and weather.source == site["format"]
    assert len(weather) == 8760 and not weather.has_leap_day and not weather.instantaneous
    frame = weather.to_polars()
    assert frame.columns[:10] == ["timestamp", "year", "month", "day", "hour", "gh", "dn", "df", "tdry", "wspd"]
    assert frame.schema["timestamp"] == pl.Datetime("us", f"Etc/GMT{-int(weather.tz):+d}")
    assert frame["timestamp"].dt.minute().max() == 0, "hour averages are stamped at the start of their hour"
    assert frame["hour"].to_list()[:25] == [*range(24), 0]
    for column in ("dn", "df", "tdry", "wspd"):
        values = frame[column].to_numpy()
        assert np.array_equal(values.astype(np.float32).astype(np.float64), values), f"{column} is rounded through float32 as SSC stores it"
    assert read_weather(str(files[name])).to_polars().equals(frame)


@pytest.mark.parametrize("name", SITES)
def test_bytes_give_the_same_weather_as_the_file(files: dict[str, Path], weathers: dict[str, Weather], name: str) -> None:
    content = files[name].read_bytes()
    for source in (content, bytearray(content), memoryview(content)):
        weather = read_weather(source)
        assert site_of(weather) == site_of(weathers[name])
        assert weather.to_arrow().equals(weathers[name].to_arrow())


def _numpy_columns(frame: pl.DataFrame) -> dict[str, np.ndarray]:
    """Float32 arrays under common alias names and a naive local timestamp column."""
    stamps = frame.select(pl.datetime("year", "month", "day", "hour").alias("t"))["t"].to_numpy()
    aliases = {"gh": "ghi", "dn": "dni", "df": "dhi", "tdry": "temp_air", "wspd": "wind_speed", "pressure": "pressure", "albedo": "albedo"}
    return {"timestamp": stamps, **{alias: frame[name].to_numpy().astype(np.float32) for name, alias in aliases.items()}}


def _pandas_in_utc(frame: pl.DataFrame, tz: float) -> pd.DataFrame:
    """Aliases in capitals and a UTC DatetimeIndex (converted to the site's standard time on reading)."""
    columns = _numpy_columns(frame)
    index = pd.DatetimeIndex(columns.pop("timestamp")).tz_localize(f"Etc/GMT{-int(tz):+d}").tz_convert("UTC")
    return pd.DataFrame({name.upper(): values for name, values in columns.items()}, index=index)


TABLES: dict[str, Callable[[pl.DataFrame, float], Any]] = {
    "polars": lambda frame, tz: frame,
    "pandas": lambda frame, tz: frame.to_pandas(),
    "pyarrow": lambda frame, tz: frame.to_arrow(),
    "numpy float32 with a timestamp": lambda frame, tz: _numpy_columns(frame),
    "pandas with a UTC index": _pandas_in_utc,
}


@pytest.mark.parametrize("kind", TABLES)
def test_tables_give_the_results_of_the_file(weathers: dict[str, Weather], kind: str) -> None:
    weather = weathers[GREENSBORO]
    table = TABLES[kind](weather.to_polars(), weather.tz)
    from_table = read_weather(table, **site_of(weather))
    assert len(from_table) == 8760 and not from_table.instantaneous
    for array_type in (1, 3):
        assert_same_result(run(from_table, array_type=array_type), run(weather, array_type=array_type))


def test_a_weather_reads_back_from_its_own_table(weathers: dict[str, Weather]) -> None:
    weather = weathers[MIAMI]
    again = read_weather(weather.to_polars(), **site_of(weather))
    assert again.to_polars().equals(weather.to_polars())
    assert read_weather(weather) is weather
    assert pl.DataFrame(weather).equals(weather.to_polars())


def test_a_minute_column_makes_the_values_instantaneous(weathers: dict[str, Weather]) -> None:
    weather = weathers[GREENSBORO]
    instants = read_weather(weather.to_polars().with_columns(minute=pl.lit(30)), **site_of(weather))
    assert instants.instantaneous and instants.to_polars()["minute"].unique().to_list() == [30]
    hour_averages, at_half_past = run(weather).hourly, run(instants).hourly
    assert hour_averages is not None and at_half_past is not None
    differs = hour_averages["ac"] != at_half_past["ac"]
    assert 0 < differs.sum() < 0.25 * 8760, "only the sunrise and sunset hours (and the cell temperature after them) differ"


def test_a_table_needs_the_site_and_the_columns(weathers: dict[str, Weather]) -> None:
    weather = weathers[GREENSBORO]
    frame = weather.to_polars()
    site = site_of(weather)
    assert parameter_errors(lambda: read_weather(frame, lat=site["lat"], lon=site["lon"])) == ["table: a table needs its site: give tz"]
    (missing_dni,) = parameter_errors(lambda: read_weather(frame.drop("dn"), **site))
    assert missing_dni.startswith("table: column 'dn' is missing (direct normal irradiance in W/m2: dni, DNI")
    (no_time,) = parameter_errors(lambda: read_weather(frame.drop("hour", "timestamp"), **site))
    assert "year, month, day and hour columns or a timestamp column" in no_time
    (bad_value,) = parameter_errors(lambda: read_weather(frame.with_columns(dn=pl.when(pl.int_range(8760) == 100).then(-5.0).otherwise("dn")), **site))
    assert bad_value.startswith("table:101: column 'dn': expected a value between 0 and 1500")


# --- bad files ------------------------------------------------------------------------------------


def _edit_line(path: Path, target: Path, line: int, edit: Callable[[str], str]) -> Path:
    lines = path.read_text().splitlines(keepends=True)
    lines[line - 1] = edit(lines[line - 1])
    target.write_text("".join(lines))
    return target


def _replace_field(line: str, index: int, value: str) -> str:
    fields = line.split(",")
    fields[index] = value
    return ",".join(fields)


def test_a_corrupted_number_in_tmy3_names_file_line_and_column(files: dict[str, Path], tmp_path: Path) -> None:
    source = files[GREENSBORO]
    dni_label = source.read_text().splitlines()[1].split(",")[7]
    bad = _edit_line(source, tmp_path / "corrupted.csv", 103, lambda text: _replace_field(text, 7, "12x"))
    (message,) = parameter_errors(lambda: read_weather(bad))
    assert message.startswith(f"{bad}:103: column '{dni_label}':") and "'12x'" in message


def test_a_corrupted_number_in_tmy2_names_file_line_and_column(files: dict[str, Path], tmp_path: Path) -> None:
    bad = _edit_line(files[MIAMI], tmp_path / "corrupted.tm2", 201, lambda text: text[:30] + "abcd" + text[34:])
    (message,) = parameter_errors(lambda: read_weather(bad))
    assert message.startswith(f"{bad}:201: column 'DHI':") and "abc" in message


def test_a_corrupted_number_in_sam_csv_names_file_line_and_column(weathers: dict[str, Weather], tmp_path: Path) -> None:
    weather = weathers[GREENSBORO]
    good = write_sam_csv(tmp_path / "good.csv", weather.to_polars(), weather)
    temperature = good.read_text().splitlines()[2].split(",").index("Temperature")
    bad = _edit_line(good, tmp_path / "corrupted.csv", 54, lambda text: _replace_field(text, temperature, "1e9999x"))
    (message,) = parameter_errors(lambda: read_weather(bad))
    assert message.startswith(f"{bad}:54: column 'Temperature':") and "'1e9999x'" in message


def test_a_missing_column_is_named(weathers: dict[str, Weather], tmp_path: Path) -> None:
    weather = weathers[GREENSBORO]
    path = write_sam_csv(tmp_path / "no_dni.csv", weather.to_polars().drop("dn"), weather)
    (message,) = parameter_errors(lambda: read_weather(path))
    assert message.startswith(f"{path}:3:") and "no DNI column" in message


def test_a_file_cut_in_the_middle_of_a_line_names_file_line_and_column(weathers: dict[str, Weather], tmp_path: Path) -> None:
    weather = weathers[GREENSBORO]
    text = write_sam_csv(tmp_path / "whole.csv", weather.to_polars(), weather).read_text()
    cut = tmp_path / "cut.csv"
    cut.write_text(text[: text.index("\n", len(text) // 2) + 12])
    last_line = cut.read_text().count("\n") + 1
    (message,) = parameter_errors(lambda: read_weather(cut))
    assert message.startswith(f"{cut}:{last_line}: column '")


def _truncated_tmy3(source: Path, folder: Path) -> tuple[Path, Path]:
    """The TMY3 file ending after record 5000 (line 5002), and ending 40 characters into line 5003."""
    lines = source.read_text().splitlines(keepends=True)
    short, cut = folder / "short.csv", folder / "cut.csv"
    short.write_text("".join(lines[:5002]))
    cut.write_text("".join(lines[:5002]) + lines[5002][:40])
    return short, cut


def test_a_truncated_tmy3_file_names_the_file_and_what_is_wrong(files: dict[str, Path], tmp_path: Path) -> None:
    short, cut = _truncated_tmy3(files[GREENSBORO], tmp_path)
    (message,) = parameter_errors(lambda: read_weather(short))
    assert message.startswith(f"{short}:") and "found 5000" in message
    (message,) = parameter_errors(lambda: read_weather(cut))
    assert message.startswith(f"{cut}:5003:")


def test_a_truncated_tmy3_file_names_line_and_column(files: dict[str, Path], tmp_path: Path) -> None:
    short, cut = _truncated_tmy3(files[GREENSBORO], tmp_path)
    (message,) = parameter_errors(lambda: read_weather(short))
    assert f"{short}:5002:" in message
    (message,) = parameter_errors(lambda: read_weather(cut))
    assert f"{cut}:5003: column '" in message


def _half_hourly(weather: Weather) -> pl.DataFrame:
    frame = weather.to_polars()
    return pl.concat([frame.with_columns(minute=pl.lit(minute)) for minute in (0, 30)]).sort("month", "day", "hour", "minute").select(
        "year", "month", "day", "hour", "minute", "gh", "dn", "df", "tdry", "wspd"
    )


def test_half_hourly_files_and_tables_are_read_with_two_records_per_hour(weathers: dict[str, Weather], tmp_path: Path) -> None:
    weather = weathers[GREENSBORO]
    half_hourly = _half_hourly(weather)
    from_file = read_weather(write_sam_csv(tmp_path / "half_hourly.csv", half_hourly, weather))
    from_table = read_weather(half_hourly, **site_of(weather))
    for read in (from_file, from_table):
        assert (len(read), read.steps_per_hour, read.instantaneous) == (17520, 2, True)
    result = run(from_table)
    assert result.hourly is not None and result.hourly.height == 17520
    assert result.hourly["timestamp"].dt.minute().head(2).to_list() == [0, 30]
    assert result.ac_annual == pytest.approx(result.hourly["ac"].sum() / 2000, rel=1e-12), "half-hour power counts half an hour"
    assert result.capacity_factor == pytest.approx(result.ac_annual / (BASE["system_capacity"] * 8760) * 100, rel=1e-12)


def test_sub_hourly_hour_averages_are_refused_with_a_clear_message(weathers: dict[str, Weather], tmp_path: Path) -> None:
    weather = weathers[GREENSBORO]
    without_minutes = _half_hourly(weather).drop("minute")
    path = write_sam_csv(tmp_path / "half_hourly.csv", without_minutes, weather)
    (message,) = parameter_errors(lambda: read_weather(path))
    assert message.startswith(f"{path}:5: column 'Hour': 2 records per hour without a minute column")
    (from_table,) = parameter_errors(lambda: read_weather(without_minutes, **site_of(weather)))
    assert from_table.startswith("table:2: column 'hour': 2 records per hour without a minute column")


# --- the leap year --------------------------------------------------------------------------------


def _leap_year(weather: Weather) -> pl.DataFrame:
    """The weather's records in 2020 with 29 February inserted (a copy of 28 February)."""
    frame = weather.to_polars().with_columns(year=pl.lit(2020, dtype=pl.Int64))
    february_28 = frame.filter((pl.col("month") == 2) & (pl.col("day") == 28))
    first_of_march = frame["month"].to_list().index(3)
    return pl.concat([frame[:first_of_march], february_28.with_columns(day=pl.lit(29, dtype=pl.Int64)), frame[first_of_march:]])


def test_a_leap_year_of_8784_hours_is_simulated_with_29_days_in_february(weathers: dict[str, Weather], tmp_path: Path) -> None:
    weather = weathers[GREENSBORO]
    leap = _leap_year(weather)
    from_table = read_weather(leap, **site_of(weather))
    assert len(from_table) == 8784 and from_table.has_leap_day
    result = run(from_table)
    hourly = result.hourly
    assert hourly is not None and hourly.height == 8784
    february = hourly.filter(pl.col("timestamp").dt.month() == 2)
    assert february.height == 29 * 24 and february["timestamp"].dt.day().max() == 29
    assert hourly["timestamp"][-1].month == 12 and hourly["timestamp"][-1].day == 31
    assert result.monthly["ac"][1] == pytest.approx(february["ac"].sum() / 1000, rel=1e-12)
    assert result.monthly["solrad"][1] == pytest.approx(result.monthly["poa"][1] / 29, rel=1e-12)
    assert result.capacity_factor == pytest.approx(result.ac_annual / (BASE["system_capacity"] * 8784) * 100, rel=1e-12)

    from_file = read_weather(write_sam_csv(tmp_path / "leap.csv", leap, weather))
    assert from_file.has_leap_day and not from_file.instantaneous
    assert_same_result(run(from_file), result)


def test_february_29_in_a_365_day_year_is_refused(weathers: dict[str, Weather]) -> None:
    weather = weathers[GREENSBORO]
    leap = _leap_year(weather)
    without_december_31 = leap[:8760]
    (message,) = parameter_errors(lambda: read_weather(without_december_31, **site_of(weather)))
    assert message.startswith("table:8760: column 'month': 8760 records make a 365-day year, which must leave out 29 February")


# --- simulate ------------------------------------------------------------------------------------

BAD_CHANGES = [
    {"system_capacity": 0.04}, {"system_capacity": 500001}, {"module_type": 3}, {"module_type": 1.5}, {"losses": -5.1},
    {"losses": 99.5}, {"array_type": 5}, {"tilt": -1}, {"tilt": 90.5}, {"tilt": "steep"}, {"tilt": None}, {"azimuth": 360},
    {"azimuth": -0.1}, {"dc_ac_ratio": 0}, {"gcr": 3.1}, {"inv_eff": 89.9}, {"inv_eff": 99.6}, {"timeframe": "daily"},
    {"system_capacity": 0, "module_type": 9, "losses": 100, "array_type": 9, "tilt": 100, "azimuth": 400, "gcr": 5, "inv_eff": 50},
]


@pytest.mark.parametrize("change", BAD_CHANGES, ids=lambda change: ",".join(f"{k}={v}" for k, v in change.items()))
def test_invalid_parameters_are_named_as_the_estimator_names_them(weathers: dict[str, Weather], client: sf.Client, change: dict[str, Any]) -> None:
    positional, keywords = split({**BASE, **change})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sf.ServiceWarning)
        warnings.simplefilter("ignore", sf.UnitWarning)
        local = parameter_errors(lambda: run(weathers[GREENSBORO], **change))
        remote = parameter_errors(lambda: client.pv.estimate(*positional, lat=40, lon=-105, **keywords))
    assert local == remote
    assert {problem.split()[0] for problem in local} == set(change)


def test_result_is_the_estimator_result_class(weathers: dict[str, Weather]) -> None:
    weather = weathers[SAND_POINT]
    hourly = run(weather)
    monthly = run(weather, timeframe="monthly")
    assert isinstance(hourly, sf.PvEstimate) and type(hourly) is type(monthly)
    assert hourly.hourly is not None and hourly.hourly.columns == ["timestamp", "ac", "poa", "dn", "dc", "df", "tamb", "tcell", "wspd"]
    assert monthly.hourly is None and monthly.monthly.equals(hourly.monthly) and monthly.ac_annual == hourly.ac_annual
    assert hourly.monthly.columns == ["month", "poa", "dc", "ac", "solrad"] and hourly.monthly.height == 12
    assert hourly.ac_annual == pytest.approx(hourly.hourly["ac"].sum() / 1000, rel=1e-12)
    assert hourly.station_info is not None and (hourly.station_info.lat, hourly.station_info.tz) == (weather.lat, weather.tz)
    assert hourly.to_pandas().shape == (8760, 9)


@pytest.mark.parametrize("name", [SAND_POINT, MIAMI])
def test_hourly_timestamps_use_the_weather_year_and_standard_time(weathers: dict[str, Weather], name: str) -> None:
    weather = weathers[name]
    _assert_timestamps_follow_the_records(weather, year=weather.to_polars()["year"][0])


def test_a_typical_year_whose_first_record_is_in_a_leap_year_is_stamped_in_a_year_without_gaps(weathers: dict[str, Weather]) -> None:
    """Its records skip 29 February, so their own first year (1988 for Greensboro's January) would
    jump from 28 February 23:00 to 1 March 00:00: they are stamped in 1990 instead."""
    weather = weathers[GREENSBORO]
    assert weather.to_polars()["year"][0] % 4 == 0 and not weather.has_leap_day
    _assert_timestamps_follow_the_records(weather, year=1990)


def _assert_timestamps_follow_the_records(weather: Weather, year: int) -> None:
    """The hourly result and the weather frame are stamped at the records' dates and hours in
    `year`, one hour apart throughout."""
    hourly = run(weather).hourly
    assert hourly is not None
    assert hourly.schema["timestamp"] == pl.Datetime("us", f"Etc/GMT{-int(weather.tz):+d}")
    records = weather.to_polars()
    for stamps in (hourly["timestamp"], records["timestamp"]):
        assert (stamps.dt.year() == year).all()
        assert (stamps.dt.month() == records["month"]).all()
        assert (stamps.dt.day() == records["day"]).all()
        assert (stamps.dt.hour() == records["hour"]).all()
        assert (stamps.diff().drop_nulls() == timedelta(hours=1)).all()


def _reference_cases() -> list[Any]:
    results = json.loads((PVREF / "results.json").read_text())["sites"]
    wanted = ("at1_mt0", "at0_mt2", "at2_mt1", "at3_mt0_tilt0", "at4_mt1")
    return [pytest.param(results[site]["file"], results[site]["cases"][case], id=f"{site}-{case}") for site in results for case in wanted]


@pytest.mark.parametrize("name, case", _reference_cases())
def test_simulate_matches_ssc(weathers: dict[str, Weather], name: str, case: dict[str, Any]) -> None:
    positional, keywords = split(case["params"])
    result = simulate(weathers[name], *positional, timeframe="monthly", **keywords)
    assert result.ac_annual == pytest.approx(case["ac_annual"], rel=1e-9)
    assert result.monthly["ac"].to_list() == pytest.approx(case["ac_monthly"], rel=1e-9)


@pytest.mark.parametrize("name", [GREENSBORO, SAND_POINT])
def test_instantaneous_table_matches_ssc_data_route(weathers: dict[str, Weather], name: str) -> None:
    site = json.loads((PVREF / "results.json").read_text())["sites"][Path(name).stem]
    reference = site["base_via_solar_resource_data"]
    weather = weathers[name]
    at_half_past = read_weather(weather.to_polars().with_columns(minute=pl.lit(30)), **site_of(weather))
    assert run(at_half_past).ac_annual == pytest.approx(reference["ac_annual"], rel=1e-9)
    assert run(weather).ac_annual == pytest.approx(reference["ac_annual_file_route"], rel=1e-9)


# --- simulate_many -------------------------------------------------------------------------------

SYSTEMS = [
    dict(BASE),
    dict(BASE, module_type=1, array_type=0, tilt=35, azimuth=200, dc_ac_ratio=1.4),
    dict(BASE, system_capacity=100, array_type=3, tilt=0, gcr=0.3, inv_eff=98),
    dict(BASE, module_type=2, array_type=2, losses=-2, tilt=10),
    dict(BASE, array_type=4, losses=20, dc_ac_ratio=1.05),
]


def test_simulate_many_equals_simulate_one_by_one(weathers: dict[str, Weather]) -> None:
    sites = [weathers[GREENSBORO], weathers[SAND_POINT], weathers[MIAMI], weathers[SAND_POINT], weathers[MIAMI]]
    batch = simulate_many(sites, SYSTEMS, output="results")
    assert isinstance(batch, list) and len(batch) == len(SYSTEMS)
    for weather, system, result in zip(sites, SYSTEMS, batch):
        assert_same_result(result, run(weather, **system))
    one_thread = simulate_many(sites, SYSTEMS, threads=1, output="results")
    for left, right in zip(one_thread, batch):
        assert_same_result(left, right)


def test_simulate_many_table_is_long_with_a_system_column(weathers: dict[str, Weather]) -> None:
    weather = weathers[MIAMI]
    table = simulate_many(weather, SYSTEMS)
    assert table.columns[:2] == ["system", "timestamp"] and table.height == 8760 * len(SYSTEMS)
    assert table.group_by("system").len().sort("system")["len"].to_list() == [8760] * len(SYSTEMS)
    for index, system in enumerate(SYSTEMS):
        rows = table.filter(pl.col("system") == index).drop("system")
        assert rows["local_time"].equals(rows["timestamp"].dt.replace_time_zone(None).alias("local_time"))
        assert rows.drop("local_time").equals(run(weather, **system).hourly)


def test_simulate_many_table_of_sites_in_several_time_zones_is_in_utc(weathers: dict[str, Weather]) -> None:
    sites = [weathers[GREENSBORO], weathers[SAND_POINT]]
    table = simulate_many(sites, SYSTEMS[:2])
    assert table.schema["timestamp"] == pl.Datetime("us", "UTC")
    for index, weather in enumerate(sites):
        hourly = run(weather, **SYSTEMS[index]).hourly
        assert hourly is not None
        rows = table.filter(pl.col("system") == index).drop("system")
        assert rows.drop("local_time").equals(hourly.with_columns(pl.col("timestamp").dt.convert_time_zone("UTC")))
        assert rows["local_time"].equals(hourly["timestamp"].dt.replace_time_zone(None).alias("local_time")), "each site's own clock"


def test_simulate_many_takes_a_frame_or_a_list_of_system(weathers: dict[str, Weather]) -> None:
    """One row per system, a column per parameter (an empty cell takes the default), as
    `sunflux.distributed.simulate` takes it; or `System` objects."""
    weather = weathers[MIAMI]
    expected = simulate_many(weather, SYSTEMS, timeframe="monthly")
    polars_sweep = pl.DataFrame(SYSTEMS)
    assert polars_sweep["gcr"].null_count() > 0, "the sweep has empty cells"
    assert simulate_many(weather, polars_sweep, timeframe="monthly").equals(expected)
    assert simulate_many(weather, pd.DataFrame(SYSTEMS), timeframe="monthly").equals(expected)
    assert simulate_many(weather, [sf.System(**system) for system in SYSTEMS], timeframe="monthly").equals(expected)
    (refused,) = parameter_errors(lambda: simulate_many(weather, "tilt=20"))  # type: ignore[call-overload]
    assert "systems must be a list of System or dicts of simulate's parameters, or a frame" in refused


def test_a_system_goes_where_a_dict_of_parameters_goes(weathers: dict[str, Weather]) -> None:
    import dataclasses
    import inspect

    weather = weathers[SAND_POINT]
    system = sf.System(**SYSTEMS[1])
    assert sf.pvwatts.System is sf.System and sf.pv.System is sf.System
    assert dict(system) == {**SYSTEMS[0], "dc_ac_ratio": 1.2, "gcr": 0.4, "inv_eff": 96, **SYSTEMS[1]}, "no v8 keys unless given"
    assert_same_result(simulate(weather, **system), run(weather, **SYSTEMS[1]))
    defaults = {name: p.default for name, p in inspect.signature(simulate).parameters.items() if p.default is not inspect.Parameter.empty}
    for field in dataclasses.fields(sf.System):
        if field.default is not dataclasses.MISSING:
            assert field.default == defaults[field.name], field.name
    bifacial = sf.System(**BASE, bifaciality=0.7, albedo=[0.2] * 12)
    assert bifacial.albedo == (0.2,) * 12 and hash(bifacial) == hash(sf.System(**BASE, bifaciality=0.7, albedo=(0.2,) * 12))
    assert_same_result(simulate(weather, **bifacial, version="v8"), run(weather, bifaciality=0.7, albedo=[0.2] * 12, version="v8"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        system.tilt = 3  # type: ignore[misc]
    (range_error,) = parameter_errors(lambda: simulate(weather, **sf.System(**dict(BASE, tilt=120))))
    assert range_error == parameter_errors(lambda: run(weather, tilt=120))[0], "checked where every call is"


def test_stack_sites_keeps_each_sites_local_months(weathers: dict[str, Weather]) -> None:
    """Hourly frames of sites in different zones do not concatenate; stacked in UTC with their
    ``local_time``, a monthly sum by local month is each site's own monthly result."""
    sites = {"greensboro": run(weathers[GREENSBORO]), "sand point": run(weathers[SAND_POINT], timeframe="hourly")}
    frames = [estimate.hourly for estimate in sites.values()]
    with pytest.raises(pl.exceptions.SchemaError):
        pl.concat(frames)  # type: ignore[type-var]
    stacked = sf.stack_sites(sites)
    assert stacked.columns[:3] == ["site", "timestamp", "local_time"] and stacked.schema["timestamp"] == pl.Datetime("us", "UTC")
    assert stacked.height == 2 * 8760
    monthly = stacked.group_by("site", pl.col("local_time").dt.month().alias("month")).agg(pl.col("ac").sum() / 1000)
    by_utc_month = stacked.group_by("site", pl.col("timestamp").dt.month().alias("month")).agg(pl.col("ac").sum() / 1000)
    for name, estimate in sites.items():
        own = monthly.filter(pl.col("site") == name).sort("month")["ac"].to_list()
        assert own == pytest.approx(estimate.monthly["ac"].to_list(), rel=1e-12)
        in_utc = by_utc_month.filter(pl.col("site") == name).sort("month")["ac"].to_list()
        assert in_utc != pytest.approx(own, rel=1e-9), "UTC months are not the site's months"
    listed = sf.stack_sites([sites["greensboro"].hourly, sites["sand point"]])
    assert listed["site"].unique().sort().to_list() == [0, 1]
    assert listed.drop("site").equals(stacked.drop("site"))


def test_simulate_many_monthly_has_12_rows_per_system(weathers: dict[str, Weather]) -> None:
    table = simulate_many(weathers[SAND_POINT], SYSTEMS, timeframe="monthly")
    assert table.columns == ["system", "month", "poa", "dc", "ac", "solrad"]
    assert table.height == 12 * len(SYSTEMS) and table["month"].to_list()[:13] == [*range(1, 13), 1]
    results = simulate_many(weathers[SAND_POINT], SYSTEMS, timeframe="monthly", output="results")
    assert all(result.hourly is None for result in results)


def test_simulate_many_names_each_bad_system(weathers: dict[str, Weather]) -> None:
    weather = weathers[GREENSBORO]
    systems = [dict(BASE), dict(BASE, tilt=95), dict(BASE), dict(BASE, module_type=7, gcr=-1)]
    expected = [f"systems[{index}]: {problem}" for index in (1, 3) for problem in parameter_errors(lambda: run(weather, **systems[index]))]
    assert parameter_errors(lambda: simulate_many(weather, systems)) == expected
    (unknown,) = parameter_errors(lambda: simulate_many(weather, [dict(BASE, tlit=20)]))
    assert unknown.startswith("systems[0] has unknown fields ['tlit']")
    (lengths,) = parameter_errors(lambda: simulate_many([weather, weather], SYSTEMS))
    assert "2 weathers for 5 systems" in lengths
    assert parameter_errors(lambda: simulate_many(weather, SYSTEMS, timeframe="daily")) == parameter_errors(lambda: run(weather, timeframe="daily"))
    (output,) = parameter_errors(lambda: simulate_many(weather, SYSTEMS, output="dict"))
    assert output.startswith("output must be")


def test_simulate_many_releases_the_gil(weathers: dict[str, Weather]) -> None:
    weather = weathers[GREENSBORO]
    systems = [dict(BASE)]
    while True:  # a batch long enough to see the main thread run beside it, on any build
        started = time.perf_counter()
        simulate_many(weather, systems, threads=1, timeframe="monthly")
        if time.perf_counter() - started > 0.25:
            break
        systems *= 2
    window: dict[str, float] = {}

    def batch() -> None:
        window["start"] = time.perf_counter()
        simulate_many(weather, systems, threads=1, timeframe="monthly")
        window["end"] = time.perf_counter()

    worker = threading.Thread(target=batch)
    ticks: list[float] = []
    worker.start()
    while worker.is_alive():
        ticks.append(time.perf_counter())
    worker.join()
    inside = [tick for tick in ticks if window["start"] < tick < window["end"]]
    longest_pause = max(later - earlier for earlier, later in zip([window["start"], *inside], [*inside, window["end"]]))
    assert len(inside) > 1000, "the main thread kept counting while the batch ran"
    assert longest_pause < 0.5 * (window["end"] - window["start"]), longest_pause


@pytest.mark.parametrize("library", ["polars", "pyarrow"])
def test_float64_table_columns_are_used_in_place(weathers: dict[str, Weather], library: str) -> None:
    """Zero copy: the weather year keeps the caller's float64 buffers (checked by address)."""
    source = weathers[GREENSBORO]
    arrow = source.to_arrow().combine_chunks()
    table = pl.DataFrame(arrow) if library == "polars" else arrow
    weather = read_weather(table, lat=source.lat, lon=source.lon, tz=source.tz, elevation=source.elevation)
    exported = weather.to_arrow()
    for name in ("gh", "dn", "df", "tdry", "wspd"):
        given = table[name].to_arrow() if library == "polars" else table.column(name).chunks[0]
        assert given.buffers()[1].address == exported.column(name).chunks[0].buffers()[1].address, name
    assert simulate(weather, 4, 0, 14, 1, 20, 180).ac_annual == simulate(source, 4, 0, 14, 1, 20, 180).ac_annual


def test_simulate_many_shows_progress_unless_turned_off(weathers: dict[str, Weather], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def without_tqdm(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("tqdm"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", without_tqdm)
    weather = next(iter(weathers.values()))
    systems = [dict(BASE, tilt=float(t)) for t in range(20)]
    simulate_many(weather, systems, output="results")
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1] == "pvwatts: 20/20 systems" and len(lines) >= 1
    simulate_many(weather, systems, output="results", progress=False)
    assert capsys.readouterr().err == ""


CTRL_C_CHILD = """
import sys, time
import sunflux as sf
from sunflux.pvwatts import read_weather, simulate_many
weather = read_weather(sys.argv[1])
systems = [dict(system_capacity=4, module_type=0, losses=14, array_type=1, tilt=20, azimuth=180)] * 200_000
print("ready", flush=True)
try:
    simulate_many(weather, systems, output="results", progress=False)
    print("finished", flush=True)
except KeyboardInterrupt:
    print("interrupted", time.monotonic(), flush=True)
"""


@pytest.mark.slow
def test_ctrl_c_stops_simulate_many_within_a_fraction_of_a_second(files: dict[str, Path]) -> None:
    import signal
    import subprocess
    import sys
    import time

    child = subprocess.Popen([sys.executable, "-c", CTRL_C_CHILD, str(next(iter(files.values())))], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(1.0)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        rest, _ = child.communicate(timeout=30)
        outcome = rest.split()
        assert outcome[0] == "interrupted"
        assert float(outcome[1]) - sent < 0.5
    finally:
        child.kill()
        child.wait()


# --- unit traps ------------------------------------------------------------------------------------


def test_losses_given_as_a_fraction_warn_naming_the_percent(weathers: dict[str, Weather]) -> None:
    weather = weathers[GREENSBORO]
    with pytest.warns(sf.UnitWarning, match=r"losses is a percent: losses=0.14 means 0.14 % of losses; for 14 % give losses=14") as caught:
        run(weather, losses=0.14)
    assert [w.filename for w in caught if w.category is sf.UnitWarning][0] == __file__
    with pytest.warns(sf.UnitWarning, match=r"systems\[1\]: losses is a percent"):
        simulate_many(weather, [BASE, dict(BASE, losses=0.2)], output="results", progress=False)


def test_a_roof_system_of_thousands_of_kw_warns_that_capacity_is_in_kw(weathers: dict[str, Weather]) -> None:
    with pytest.warns(sf.UnitWarning, match=r"system_capacity is in kW: 4000 is a 4 MW roof-mounted system \(array_type=1\); for 4000 W give system_capacity=4"):
        run(weathers[GREENSBORO], system_capacity=4000)


def test_plausible_systems_do_not_warn(weathers: dict[str, Weather]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", sf.UnitWarning)
        run(weathers[GREENSBORO], losses=14, system_capacity=4)
        run(weathers[GREENSBORO], losses=0, system_capacity=4)
        run(weathers[GREENSBORO], system_capacity=4000, array_type=0)


def test_the_estimator_warns_on_the_same_unit_traps(client: sf.Client) -> None:
    with pytest.warns(sf.UnitWarning, match="losses is a percent") as caught:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sf.ServiceWarning)
            client.pv.estimate(4, 0, 0.14, 1, 20, 180, lat=40, lon=-105)
    assert [w.filename for w in caught if w.category is sf.UnitWarning][0] == __file__


@pytest.mark.parametrize("source", [object(), 42, [1, 2, 3]], ids=["object", "int", "list"])
def test_what_is_no_weather_is_refused_naming_what_read_weather_reads(source: object) -> None:
    with pytest.raises(sf.ParameterError) as caught:
        read_weather(source)  # type: ignore[arg-type]
    message = str(caught.value)
    assert message.startswith("weather must be a Weather, a path to a weather file") and "NameError" not in message
