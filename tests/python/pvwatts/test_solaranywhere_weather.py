"""SolarAnywhere TMY3-format weather read from a path, from bytes and from pvlib's
``read_solaranywhere`` frames, giving the answer of the same values read as a plain table; a file
whose header leaves the time zone out is refused with how to give it, and read once it is given.

The files are made here: the Greensboro TMY3 year of pvlib's bundled ``723170TYA.CSV`` written in
SolarAnywhere's layout, stamped at the start of each hour in local standard time.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import sunflux as sf
from sunflux.pvwatts import Weather, read_weather

from support.greensboro_year import SITE, annual_ac, as_table, greensboro_columns

pvlib = pytest.importorskip("pvlib")

COLUMNS = ["ObservationTime(LST)", "Global Horizontal Irradiance (GHI) W/m2", "Direct Normal Irradiance (DNI) W/m2",
           "Diffuse Horizontal Irradiance (DIF) W/m2", "AmbientTemperature (deg C)", "WindSpeed (m/s)",
           "Relative Humidity (%)", "Albedo"]


@pytest.fixture(scope="module")
def year() -> dict[str, np.ndarray]:
    return greensboro_columns(pvlib)


def solaranywhere_text(year: dict[str, np.ndarray], tz: str) -> str:
    facts = '"Data Version: 3.4 / Type: Typical Year / LatLon Resolution: 0.01 / Weather Source: SolarAnywhere"'
    lines = [f'723170,"GREENSBORO",NC,{tz},{SITE["lat"]},{SITE["lon"]},{SITE["elevation"]},{facts}', ",".join(COLUMNS)]
    for i in range(len(year["month"])):
        stamp = f"{year['month'][i]:02d}/{year['day'][i]:02d}/{year['year'][i]:04d} {year['hour'][i]:02d}:00"
        values = (year["gh"][i], year["dn"][i], year["df"][i], year["tdry"][i], year["wspd"][i], 70.0, 0.2)
        lines.append(",".join([stamp, *(repr(float(value)) for value in values)]))
    return "\r\n".join(lines) + "\r\n"


@pytest.fixture(scope="module")
def files(year: dict[str, np.ndarray], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("solaranywhere")
    with_zone, without_zone = folder / "solaranywhere_tmy3.csv", folder / "solaranywhere_no_zone.csv"
    with_zone.write_text(solaranywhere_text(year, "-5.0"), encoding="iso-8859-1")
    without_zone.write_text(solaranywhere_text(year, ""), encoding="iso-8859-1")
    return {"with zone": with_zone, "without zone": without_zone}


@pytest.fixture(scope="module")
def from_table(year: dict[str, np.ndarray]) -> Weather:
    return as_table(year, -5.0, albedo=np.full(len(year["month"]), 0.2))


def assert_same_answer(weather: Weather, from_table: Weather) -> None:
    assert (weather.lat, weather.lon, weather.tz, weather.elevation) == (36.1, -79.95, -5.0, 273.0)
    assert len(weather) == 8760 and not weather.instantaneous
    for version in ("v5", "v8"):
        assert annual_ac(weather, version) == pytest.approx(annual_ac(from_table, version), rel=1e-9, abs=0)


@pytest.mark.parametrize("route", ["path", "bytes", "pvlib mapped", "pvlib unmapped"])
def test_a_solaranywhere_file_gives_the_answer_of_its_values_as_a_table(
    files: dict[str, Path], from_table: Weather, route: str
) -> None:
    path = files["with zone"]
    if route == "path":
        weather = read_weather(path)
    elif route == "bytes":
        weather = read_weather(path.read_bytes())
    else:
        weather = read_weather(pvlib.iotools.read_solaranywhere(path, map_variables=route == "pvlib mapped"))
    assert_same_answer(weather, from_table)


def test_a_solaranywhere_file_without_a_time_zone_needs_tz(files: dict[str, Path], from_table: Weather) -> None:
    path = files["without zone"]
    for source in (path, path.read_bytes()):
        with pytest.raises(sf.ParameterError, match=r"the SolarAnywhere header has no time zone \(field 4 of line 1\): give tz="):
            read_weather(source)
    assert_same_answer(read_weather(path, tz=-5.0), from_table)
    with pytest.raises(sf.ParameterError, match=r"tz=-6.0 was given, but the metadata says -5.0"):
        read_weather(files["with zone"], tz=-6.0)
