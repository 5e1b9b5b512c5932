"""PVGIS TMY weather (the CSV and JSON outputs of PVGIS's ``tmy`` tool, and pvlib's
``read_pvgis_tmy`` frames of them) as one weather table: time stamps in UTC, the site from the
file's own latitude, longitude and elevation. PVGIS's EPW output is an EPW file and is read as one.

CSV layout: ``Latitude (decimal degrees): 45.0``, ``Longitude ...``, ``Elevation (m): ...``,
optionally ``Irradiance Time Offset (h): ...``, then ``month,year`` and 12 rows naming the year
each month comes from, then ``time(UTC),T2m,RH,G(h),Gb(n),Gd(h),IR(h),WS10m,WD10m,SP`` and 8760
rows, then description lines. JSON: ``inputs.location.{latitude, longitude, elevation}`` and
``outputs.tmy_hourly``, a list of records with the same fields. Stamps read ``YYYYMMDD:HHMM``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sunflux._errors import ParameterError

#: The PVGIS fields the engine uses, and the names of the table's columns they become (pvlib's
#: ``read_pvgis_tmy`` gives the second with ``map_variables=True``).
ENGINE_NAMES = {"G(h)": "ghi", "Gb(n)": "dni", "Gd(h)": "dhi", "T2m": "temp_air", "WS10m": "wind_speed", "SP": "pressure"}
TIME_FIELD = "time(UTC)"
_CSV_SITE_LINES = (("Latitude (decimal degrees)", "lat"), ("Longitude (decimal degrees)", "lon"), ("Elevation (m)", "elevation"))
_JSON_SITE_FIELDS = (("latitude", "lat"), ("longitude", "lon"), ("elevation", "elevation"))
#: Pa per mbar: PVGIS gives surface pressure (SP) in Pa.
_PASCALS_PER_MILLIBAR = 100.0


@dataclass(frozen=True)
class PvgisYear:
    """A PVGIS TMY as the engine's table: UTC stamps and values under the engine's names (pressure
    in mbar), and its site (lat, lon in degrees, elevation in m)."""

    table: Any
    site: dict[str, Any]


def looks_like_pvgis_tmy(head: bytes) -> bool:
    """True when a file's first bytes are those of a PVGIS TMY CSV or JSON output."""
    text = head.lstrip(b"\xef\xbb\xbf").lstrip()
    if text.startswith(b"{"):
        return any(key in text for key in (b'"inputs"', b'"outputs"', b'"tmy_hourly"'))
    return any(text.startswith(label.encode() + b":") for label, _ in _CSV_SITE_LINES) or b"\ntime(UTC),T2m" in text


def _number(text: object, what: str, name: str) -> float:
    try:
        return float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ParameterError(f"{name}: PVGIS field '{what}' must be a number, got {text!r}") from None


def _stamps(times: Sequence[str], name: str) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        return pc.assume_timezone(pc.strptime(pa.array(times, pa.string()), format="%Y%m%d:%H%M", unit="us"), "UTC")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise ParameterError(f"{name}: PVGIS field '{TIME_FIELD}' must read YYYYMMDD:HHMM ({error})") from None


def engine_table(stamps: Any, columns: Mapping[str, Any], name: str) -> Any:
    """The engine's table of a PVGIS year: ``timestamp`` (UTC) and each field the engine uses,
    found under its PVGIS or its engine name, pressure converted from Pa to mbar."""
    import pyarrow as pa
    import pyarrow.compute as pc

    table: dict[str, Any] = {"timestamp": stamps}
    for field, engine in ENGINE_NAMES.items():
        values = columns.get(field, columns.get(engine))
        if values is None:
            raise ParameterError(f"{name}: PVGIS field '{field}' is missing (needed for {engine})")
        values = pc.cast(pa.array(values) if not isinstance(values, (pa.Array, pa.ChunkedArray)) else values, pa.float64())
        table[engine] = pc.divide(values, _PASCALS_PER_MILLIBAR) if field == "SP" else values
    return pa.table(table)


def _csv_year(text: str, name: str) -> PvgisYear:
    lines = text.splitlines()
    site: dict[str, float] = {}
    for index, (label, key) in enumerate(_CSV_SITE_LINES):
        line = lines[index] if index < len(lines) else ""
        if not line.startswith(label + ":"):
            raise ParameterError(f"{name}:{index + 1}: PVGIS field '{label}' is missing (found {line[:60]!r})")
        site[key] = _number(line.split(":", 1)[1].strip(), label, name)
    header = next((i for i, line in enumerate(lines) if line.startswith(TIME_FIELD + ",")), None)
    if header is None:
        raise ParameterError(f"{name}: PVGIS field '{TIME_FIELD}' is missing: no row of column names starts with it")
    names = [field.strip() for field in lines[header].split(",")]
    rows = []
    for number, line in enumerate(lines[header + 1:], start=header + 2):
        cells = line.split(",")
        if len(cells) != len(names) or not cells[0][:1].isdigit():
            break
        rows.append((number, cells))
    times = [cells[0] for _, cells in rows]
    columns = {}
    for position, field in enumerate(names[1:], start=1):
        if field in ENGINE_NAMES:
            columns[field] = [_number(cells[position], f"{field} (line {number})", name) for number, cells in rows]
    return PvgisYear(engine_table(_stamps(times, name), columns, name), site)


def _json_year(text: str, name: str) -> PvgisYear:
    try:
        document = json.loads(text)
    except ValueError as error:
        raise ParameterError(f"{name}: not PVGIS TMY JSON: {error}") from None
    location = (document.get("inputs") or {}).get("location") if isinstance(document, dict) else None
    if not isinstance(location, dict):
        raise ParameterError(f"{name}: PVGIS field 'inputs.location' is missing")
    site = {}
    for field, key in _JSON_SITE_FIELDS:
        if location.get(field) is None:
            raise ParameterError(f"{name}: PVGIS field 'inputs.location.{field}' is missing")
        site[key] = _number(location[field], f"inputs.location.{field}", name)
    records = (document.get("outputs") or {}).get("tmy_hourly")
    if not isinstance(records, list) or not records:
        raise ParameterError(f"{name}: PVGIS field 'outputs.tmy_hourly' is missing (only the tmy tool's output is weather)")
    times = [record.get(TIME_FIELD) for record in records]
    if any(not isinstance(stamp, str) for stamp in times):
        raise ParameterError(f"{name}: PVGIS field 'outputs.tmy_hourly[].{TIME_FIELD}' is missing")
    columns = {field: [record.get(field) for record in records] for field in ENGINE_NAMES if field in records[0]}
    return PvgisYear(engine_table(_stamps(times, name), columns, name), site)


def read_pvgis_tmy(content: bytes, name: str) -> PvgisYear:
    """A PVGIS TMY CSV or JSON output (see the module text); ``name`` names it in errors."""
    text = content.decode("utf-8-sig", errors="replace")
    return _json_year(text, name) if text.lstrip().startswith("{") else _csv_year(text, name)


def pvlib_site(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """The site in the metadata of pvlib's ``read_pvgis_tmy`` (``inputs`` with ``latitude``... from
    a CSV, ``inputs.location`` from JSON), as flat keys; None when it is not that metadata."""
    if "months_selected" not in metadata or not isinstance(metadata.get("inputs"), Mapping):
        return None
    inputs = metadata["inputs"]
    location = inputs.get("location") if isinstance(inputs.get("location"), Mapping) else inputs
    return {"latitude": location.get("latitude"), "longitude": location.get("longitude"),
            "elevation": location.get("elevation")}
