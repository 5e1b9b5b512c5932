"""PVGIS TMY weather (the CSV and JSON outputs of PVGIS's ``tmy`` tool) read from a path, from
bytes and from pvlib's ``read_pvgis_tmy`` frames, all giving the answer of the same values read as
a plain table; and refusals that name the missing PVGIS field.

The files are made here: the Greensboro TMY3 year of pvlib's bundled ``723170TYA.CSV`` written in
PVGIS's layouts, its stamps read as UTC and each month labelled with a different year (a TMY's
months come from different years).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import sunflux as sf
from sunflux.pvwatts import Weather, read_weather

from support.greensboro_year import SITE, annual_ac, as_table, greensboro_columns

pvlib = pytest.importorskip("pvlib")

MONTH_YEARS = [2007, 2012, 2010, 2015, 2009, 2011, 2013, 2008, 2016, 2014, 2006, 2005]
FIELDS = ["T2m", "RH", "G(h)", "Gb(n)", "Gd(h)", "IR(h)", "WS10m", "WD10m", "SP"]


@pytest.fixture(scope="module")
def year() -> dict[str, np.ndarray]:
    values = greensboro_columns(pvlib)
    values["year"] = np.array([MONTH_YEARS[month - 1] for month in values["month"]])
    values["pascals"] = values.pop("pressure") * 100.0
    return values


def records(year: dict[str, np.ndarray]) -> list[dict[str, Any]]:
    return [
        {"time(UTC)": f"{year['year'][i]:04d}{year['month'][i]:02d}{year['day'][i]:02d}:{year['hour'][i]:02d}00",
         "T2m": float(year["tdry"][i]), "RH": 80.0, "G(h)": float(year["gh"][i]), "Gb(n)": float(year["dn"][i]),
         "Gd(h)": float(year["df"][i]), "IR(h)": 300.0, "WS10m": float(year["wspd"][i]), "WD10m": 180.0,
         "SP": float(year["pascals"][i])}
        for i in range(len(year["month"]))
    ]


def pvgis_csv(year: dict[str, np.ndarray], leave_out_line: str | None = None) -> str:
    head = [f"Latitude (decimal degrees): {SITE['lat']}", f"Longitude (decimal degrees): {SITE['lon']}",
            f"Elevation (m): {SITE['elevation']}", "Irradiance Time Offset (h): 0.1761", "month,year"]
    head += [f"{month},{MONTH_YEARS[month - 1]}" for month in range(1, 13)]
    head = [line for line in head if leave_out_line is None or not line.startswith(leave_out_line)]
    rows = [",".join(["time(UTC)", *FIELDS])]
    rows += [",".join([record["time(UTC)"], *(repr(record[field]) for field in FIELDS)]) for record in records(year)]
    tail = ["T2m: 2-m air temperature (degree Celsius)", "G(h): Global irradiance on the horizontal plane (W/m2)",
            "PVGIS (c) European Union, 2001-2024"]
    return "\r\n".join([*head, *rows, *tail]) + "\r\n"


def pvgis_json(year: dict[str, np.ndarray]) -> dict[str, Any]:
    return {
        "inputs": {"location": {"latitude": SITE["lat"], "longitude": SITE["lon"], "elevation": SITE["elevation"]},
                   "meteo_data": {"radiation_db": "PVGIS-SARAH3", "year_min": 2005, "year_max": 2016}},
        "outputs": {"months_selected": [{"month": m, "year": y} for m, y in enumerate(MONTH_YEARS, start=1)],
                    "tmy_hourly": records(year)},
        "meta": {"inputs": {}, "outputs": {}},
    }


@pytest.fixture(scope="module")
def files(year: dict[str, np.ndarray], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pvgis")
    csv, document = folder / "tmy_36.100_-79.950.csv", folder / "tmy_36.100_-79.950.json"
    csv.write_bytes(pvgis_csv(year).encode())
    document.write_text(json.dumps(pvgis_json(year)))
    return {"csv": csv, "json": document}


@pytest.fixture(scope="module")
def from_table(year: dict[str, np.ndarray]) -> Weather:
    return as_table(year, 0.0, pressure=year["pascals"])


@pytest.mark.parametrize("kind", ["csv", "json"])
@pytest.mark.parametrize("route", ["path", "bytes", "pvlib mapped", "pvlib unmapped"])
def test_a_pvgis_tmy_gives_the_answer_of_its_values_as_a_table(
    files: dict[str, Path], from_table: Weather, kind: str, route: str
) -> None:
    path = files[kind]
    if route == "path":
        weather = read_weather(path)
    elif route == "bytes":
        weather = read_weather(path.read_bytes())
    else:
        weather = read_weather(pvlib.iotools.read_pvgis_tmy(path, map_variables=route == "pvlib mapped"))
    assert (weather.lat, weather.lon, weather.elevation, weather.tz) == (36.1, -79.95, 273.0, 0.0)
    assert len(weather) == 8760 and not weather.instantaneous
    first = weather.to_polars()["timestamp"][0]
    assert (first.year, first.month, first.day, first.hour, str(first.tzinfo)) == (2007, 1, 1, 0, "UTC")
    for version in ("v5", "v8"):
        assert annual_ac(weather, version) == pytest.approx(annual_ac(from_table, version), rel=1e-9, abs=0)


def test_a_pvgis_year_may_be_read_in_a_standard_time(files: dict[str, Path], from_table: Weather) -> None:
    local = read_weather(files["csv"], tz=-5.0)
    first = local.to_polars()["timestamp"][0]
    assert local.tz == -5.0 and (first.year, first.month, first.day, first.hour) == (2006, 12, 31, 19)
    assert annual_ac(local, "v5") == pytest.approx(annual_ac(from_table, "v5"), rel=1e-9)


@pytest.mark.parametrize(
    "left_out, message",
    [("Elevation (m)", r"PVGIS field 'Elevation \(m\)' is missing"),
     ("Latitude (decimal degrees)", r"PVGIS field 'Latitude \(decimal degrees\)' is missing")],
)
def test_a_pvgis_csv_without_a_site_line_is_refused_by_name(year: dict[str, np.ndarray], left_out: str, message: str) -> None:
    with pytest.raises(sf.ParameterError, match=message):
        read_weather(pvgis_csv(year, leave_out_line=left_out).encode())


def test_pvgis_json_without_a_needed_field_is_refused_by_name(year: dict[str, np.ndarray]) -> None:
    document = pvgis_json(year)
    del document["inputs"]["location"]["elevation"]
    with pytest.raises(sf.ParameterError, match=r"PVGIS field 'inputs.location.elevation' is missing"):
        read_weather(json.dumps(document).encode())
    document = pvgis_json(year)
    for record in document["outputs"]["tmy_hourly"]:
        del record["Gb(n)"]
    with pytest.raises(sf.ParameterError, match=r"PVGIS field 'Gb\(n\)' is missing \(needed for dni\)"):
        read_weather(json.dumps(document).encode())
    with pytest.raises(sf.ParameterError, match=r"lat=40.0 was given, but the metadata says 36.1"):
        read_weather(json.dumps(pvgis_json(year)).encode(), lat=40.0)
