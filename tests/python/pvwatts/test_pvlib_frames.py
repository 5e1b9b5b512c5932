"""pvlib's reader outputs read as sunflux reads the same file, and the one plausibility rule that
keeps a frame in other units (TMY2's tenths, kelvin, Pa as mbar) from being read silently.

Files: pvlib's own bundled ones, read from the installed package (TMY2 ``12839.tm2``, TMY3
``723170TYA.CSV`` and ``703165TY.csv``); pvlib 0.16.1 ships no EPW or NSRDB file, so those come
from the project's ``tests/data/weather_formats`` fixtures.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import pytest

import sunflux as sf
from support.paths import DATA
from sunflux.pvwatts import Weather, read_weather, simulate

pvlib = pytest.importorskip("pvlib")

FIXTURES = DATA / "weather_formats"
SYSTEM = {"system_capacity": 4, "module_type": 0, "losses": 14, "array_type": 1, "tilt": 20, "azimuth": 180}


def pvlib_data(name: str) -> Path:
    return Path(pvlib.__file__).parent / "data" / name


def fixture(name: str, tmp_path: Path) -> Path:
    path = tmp_path / name
    path.write_bytes(gzip.decompress((FIXTURES / f"{name}.gz").read_bytes()))
    return path


def annual_ac(weather: Weather, version: str) -> float:
    return simulate(weather, **SYSTEM, version=version).ac_annual  # type: ignore[arg-type]


def assert_same_answer(from_frame: Weather, from_file: Weather) -> None:
    for version in ("v5", "v8"):
        assert annual_ac(from_frame, version) == pytest.approx(annual_ac(from_file, version), rel=1e-9, abs=0)


READER_FRAMES = [
    pytest.param("read_tmy2", "12839.tm2", {}, id="read_tmy2"),
    pytest.param("read_tmy3", "723170TYA.CSV", {"map_variables": True}, id="read_tmy3-mapped"),
    pytest.param("read_tmy3", "723170TYA.CSV", {"map_variables": False}, id="read_tmy3-unmapped"),
    pytest.param("read_tmy3", "703165TY.csv", {"map_variables": True}, id="read_tmy3-alaska"),
]


@pytest.mark.parametrize("reader, name, options", READER_FRAMES)
def test_a_pvlib_frame_of_a_bundled_file_gives_the_file_answer(reader: str, name: str, options: dict[str, Any]) -> None:
    path = pvlib_data(name)
    frame = getattr(pvlib.iotools, reader)(path, **options)
    from_frame, from_file = read_weather(frame), read_weather(path)
    assert from_frame.to_polars()["year"].to_list() == from_file.to_polars()["year"].to_list()
    assert_same_answer(from_frame, from_file)


def test_the_tmy2_frame_is_read_in_engine_units() -> None:
    """pvlib keeps TMY2's dry bulb and wind in tenths and its two-digit year: read as SI units
    they gave 339 °C air and year 62, and annual AC −98 % (v5) with no error."""
    data, metadata = pvlib.iotools.read_tmy2(pvlib_data("12839.tm2"))
    assert data["DryBulb"].max() > 300 and data["year"].iloc[0] == 62
    frame = read_weather((data, metadata)).to_polars()
    assert frame["tdry"].max() == pytest.approx(data["DryBulb"].max() / 10, rel=1e-6)
    assert frame["wspd"].max() == pytest.approx(data["Wspd"].max() / 10, rel=1e-6)
    assert frame["year"][0] == 1962


@pytest.mark.parametrize(
    "reader, name, options",
    [
        ("read_epw", "greensboro.epw", {}),
        ("read_pvgis_tmy", "greensboro.epw", {"map_variables": True}),
        ("read_nsrdb_psm4", "greensboro_10min_psm3.csv", {"map_variables": True}),
        ("read_nsrdb_psm4", "greensboro_10min_psm3.csv", {"map_variables": False}),
    ],
    ids=["read_epw", "read_pvgis_tmy-epw", "read_nsrdb_psm4-mapped", "read_nsrdb_psm4-unmapped"],
)
def test_a_pvlib_frame_of_a_project_file_gives_the_file_answer(
    reader: str, name: str, options: dict[str, Any], tmp_path: Path
) -> None:
    path = fixture(name, tmp_path)
    from_frame = read_weather(getattr(pvlib.iotools, reader)(path, **options))
    assert_same_answer(from_frame, read_weather(path))


def plausible_table() -> dict[str, Any]:
    weather = read_weather(pvlib_data("723170TYA.CSV")).to_polars()
    return {name: weather[name].to_numpy() for name in ("year", "month", "day", "hour", "gh", "dn", "df", "tdry", "wspd", "pressure")}


@pytest.mark.parametrize(
    "column, scale, offset, message",
    [
        ("tdry", 10.0, 0.0, r"column 'tdry': expected an air temperature from -100 to 70 C, got"),
        ("tdry", 1.0, 273.15, r"column 'tdry': expected an air temperature from -100 to 70 C, got"),
        ("wspd", 30.0, 0.0, r"column 'wspd': expected a wind speed from 0 to 75 m/s, got"),
        ("pressure", 0.001, 0.0, r"column 'pressure': expected an air pressure from 300 to 1100 mbar or empty, got"),
        ("gh", 1.0, 2000.0, r"column 'gh': expected a value between 0 and 1500 W/m2 or empty, got"),
    ],
    ids=["tenths-of-a-degree", "kelvin", "wind-in-tenths-ish", "pressure-in-bar", "ghi-too-high"],
)
def test_implausible_values_are_refused_on_every_route(column: str, scale: float, offset: float, message: str) -> None:
    table = plausible_table()
    table[column] = table[column] * scale + offset
    with pytest.raises(sf.ParameterError, match=message):
        read_weather(table, lat=36.1, lon=-79.95, tz=-5.0)
    lines = ["Latitude,Longitude,Time Zone", "36.1,-79.95,-5", ",".join(table)]
    lines += [",".join(str(values[row]) for values in table.values()) for row in range(len(table["year"]))]
    with pytest.raises(sf.ParameterError, match=message):
        read_weather("\n".join(lines).encode())
