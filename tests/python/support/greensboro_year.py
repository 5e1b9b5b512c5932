"""The Greensboro TMY3 year of pvlib's bundled ``723170TYA.CSV``, which the tests of other weather
formats (PVGIS TMY, SolarAnywhere) write in those formats and read back: its site, its columns as
sunflux reads them, the same values as a plain table, and the annual AC of one system on a year."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sunflux.pvwatts import Weather, read_weather, simulate

SITE = {"lat": 36.1, "lon": -79.95, "elevation": 273.0}
SYSTEM = {"system_capacity": 4, "module_type": 0, "losses": 14, "array_type": 1, "tilt": 20, "azimuth": 180}
COLUMNS = ("year", "month", "day", "hour", "gh", "dn", "df", "tdry", "wspd", "pressure")


def greensboro_columns(pvlib: Any) -> dict[str, np.ndarray]:
    """The year's columns under sunflux's names, read from the installed pvlib's file."""
    weather = read_weather(Path(pvlib.__file__).parent / "data" / "723170TYA.CSV").to_polars()
    return {name: weather[name].to_numpy() for name in COLUMNS}


def as_table(year: dict[str, np.ndarray], tz: float, **extra: np.ndarray) -> Weather:
    """The year's values read as a plain table (pvlib's column names) at the Greensboro site."""
    table = {"year": year["year"], "month": year["month"], "day": year["day"], "hour": year["hour"], "ghi": year["gh"],
             "dni": year["dn"], "dhi": year["df"], "temp_air": year["tdry"], "wind_speed": year["wspd"], **extra}
    return read_weather(table, tz=tz, **SITE)


def annual_ac(weather: Weather, version: str) -> float:
    """The annual AC (kWh) of `SYSTEM` on ``weather``."""
    return simulate(weather, **SYSTEM, version=version).ac_annual  # type: ignore[arg-type]
