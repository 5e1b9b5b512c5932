"""How the conformance tests give SSC (PySAM) the weather sunflux simulates: the file itself when
sunflux reads it as it is (SSC reads every such file), otherwise the records sunflux read from it
with a site given, handed over as ``solar_resource_data`` (raw NSRDB downloads carry no site, so
SSC refuses the file; an extract shorter than a year is refused by both)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sunflux as sf
from sunflux.pvwatts import Weather, read_weather

#: The site given to files that carry none (the raw NSRDB downloads of pvlib's tests, Golden CO).
SITE = {"lat": 39.74, "lon": -105.18, "tz": -7.0, "elevation": 1829.0}
#: SSC's names for the weather columns, and sunflux's.
_DATA_COLUMNS = {"year": "year", "month": "month", "day": "day", "hour": "hour", "minute": "minute", "dn": "dn",
                 "df": "df", "gh": "gh", "tdry": "tdry", "wspd": "wspd", "pres": "pressure", "alb": "albedo"}


def read_for_ssc(path: Path) -> tuple[Weather, dict[str, Any]]:
    """The weather sunflux reads from ``path`` and the ``SolarResource`` inputs that give SSC the
    same records. Raises `sunflux.ParameterError` when the file is not a year of records."""
    try:
        return read_weather(path), {"solar_resource_file": str(path)}
    except sf.ParameterError:
        weather = read_weather(path, lat=SITE["lat"], lon=SITE["lon"], tz=SITE["tz"], elevation=SITE["elevation"])
    frame = weather.to_polars()
    data: dict[str, Any] = {"lat": SITE["lat"], "lon": SITE["lon"], "tz": SITE["tz"], "elev": SITE["elevation"]}
    data.update({ssc: frame[ours].cast(float).to_list() for ssc, ours in _DATA_COLUMNS.items() if ours in frame.columns})
    return weather, {"solar_resource_data": data}


def read_year_for_ssc(path: Path) -> tuple[Weather, dict[str, Any]] | None:
    """`read_for_ssc`, or None for an extract shorter than a year, which both sunflux and SSC
    refuse (any other refusal fails the test)."""
    try:
        return read_for_ssc(path)
    except sf.ParameterError as error:
        assert "expected one year of records" in str(error), error
        return None
