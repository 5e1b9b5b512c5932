"""SolarAnywhere's TMY3-format files (and pvlib's ``read_solaranywhere`` frames of them) as one
weather table.

Line 1 is TMY3's header (station, name, state, time zone, latitude, longitude, elevation)
followed by ``key: value / key: value`` facts; line 2 names the columns, among them
``ObservationTime(LST)`` (``MM/DD/YYYY HH:MM`` in local standard time) and the irradiance,
temperature, wind and albedo columns. Some files leave the time zone empty: the caller gives it.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sunflux._errors import ParameterError

TIME_FIELD = "ObservationTime(LST)"
#: SolarAnywhere's column names (both of its naming styles) and the engine's names for them.
ENGINE_NAMES = {
    "Global Horizontal Irradiance (GHI) W/m2": "ghi",
    "GlobalHorizontalIrradiance_WattsPerMeterSquared": "ghi",
    "Direct Normal Irradiance (DNI) W/m2": "dni",
    "DirectNormalIrradiance_WattsPerMeterSquared": "dni",
    "Diffuse Horizontal Irradiance (DIF) W/m2": "dhi",
    "DiffuseHorizontalIrradiance_WattsPerMeterSquared": "dhi",
    "AmbientTemperature (deg C)": "temp_air",
    "AmbientTemperature_DegreesC": "temp_air",
    "WindSpeed (m/s)": "wind_speed",
    "WindSpeed_MetersPerSecond": "wind_speed",
    "Albedo": "albedo",
    "Albedo_Unitless": "albedo",
}
#: The engine's columns a SolarAnywhere year must have.
REQUIRED = ("ghi", "dni", "dhi", "temp_air", "wind_speed")
#: Header fields of line 1 (0-based) holding the site.
_HEADER_SITE = (("time zone", 3, "tz"), ("latitude", 4, "lat"), ("longitude", 5, "lon"), ("elevation", 6, "elevation"))
#: SolarAnywhere's marker for a missing value.
_MISSING = -999.0


@dataclass(frozen=True)
class SolarAnywhereYear:
    """A SolarAnywhere year as the engine's table (naive local standard-time ``timestamp`` and
    values under the engine's names) and its site (tz absent when the header has none)."""

    table: Any
    site: dict[str, float]


def looks_like_solaranywhere(head: bytes) -> bool:
    """True when a file's first bytes are a SolarAnywhere TMY3-format header and column names."""
    lines = head.splitlines()
    return len(lines) >= 2 and TIME_FIELD.encode() in lines[1] and lines[0].count(b",") >= 6


def engine_table(stamps: Any, columns: Mapping[str, Any], name: str) -> Any:
    """The engine's table: ``timestamp`` and each quantity found under a SolarAnywhere or engine
    name, with SolarAnywhere's -999 as missing."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table: dict[str, Any] = {"timestamp": stamps}
    for column, values in columns.items():
        engine = ENGINE_NAMES.get(column, column)
        if engine in REQUIRED + ("albedo",) and engine not in table:
            values = pc.cast(values, pa.float64())
            table[engine] = pc.if_else(pc.equal(values, _MISSING), pa.scalar(None, pa.float64()), values)
    missing = [engine for engine in REQUIRED if engine not in table]
    if missing:
        raise ParameterError(f"{name}: SolarAnywhere columns for {', '.join(missing)} are missing")
    return pa.table(table)


def read_solaranywhere(content: bytes, name: str) -> SolarAnywhereYear:
    """A SolarAnywhere TMY3-format file (see the module text); ``name`` names it in errors."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pa_csv

    text = content.decode("iso-8859-1")
    first, _, rest = text.partition("\n")
    header = next(csv.reader([first.strip()]))
    site: dict[str, float] = {}
    for what, position, key in _HEADER_SITE:
        cell = header[position].strip() if position < len(header) else ""
        if not cell and key == "tz":
            continue
        try:
            site[key] = float(cell)
        except ValueError:
            raise ParameterError(f"{name}:1: SolarAnywhere header field {position + 1} ({what}) must be a number, got {cell!r}") from None
    try:
        data = pa_csv.read_csv(io.BytesIO(rest.encode()), convert_options=pa_csv.ConvertOptions(column_types={TIME_FIELD: pa.string()}))
    except pa.ArrowException as error:
        raise ParameterError(f"{name}: SolarAnywhere data cannot be read: {error}") from None
    if TIME_FIELD not in data.column_names:
        raise ParameterError(f"{name}: SolarAnywhere column '{TIME_FIELD}' is missing")
    try:
        stamps = pc.strptime(data.column(TIME_FIELD), format="%m/%d/%Y %H:%M", unit="us")
    except pa.ArrowInvalid as error:
        raise ParameterError(f"{name}: SolarAnywhere '{TIME_FIELD}' must read MM/DD/YYYY HH:MM ({error})") from None
    columns = {column: data.column(column) for column in data.column_names if column != TIME_FIELD}
    return SolarAnywhereYear(engine_table(stamps, columns, name), site)


def is_pvlib_metadata(metadata: Mapping[str, Any]) -> bool:
    """True for the metadata of pvlib's ``read_solaranywhere`` (its ``LatLon Resolution`` fact)."""
    return "LatLon Resolution" in metadata
