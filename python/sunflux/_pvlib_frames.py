"""Tables users bring to `read_weather`: any Arrow-exportable table (polars, pandas, pyarrow)
as an Arrow table, its calendar columns read from a time index, and pvlib's reader frames
recognised and put in the units and stored precision of the file readers, so a frame and its
file give the same year."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from sunflux import _core
from sunflux._errors import ParameterError

#: What `read_weather` reads, as its errors name it.
WEATHER_SOURCES = (
    "a Weather, a path to a weather file (TMY2, TMY3, EPW, SAM CSV, NSRDB, climate CSV, PVGIS TMY CSV or JSON, "
    "SolarAnywhere CSV), its bytes, "
    "a ClimateTable, a table (polars, pandas, pyarrow, a mapping of arrays) or pvlib's (data, metadata)"
)

if TYPE_CHECKING:
    import pyarrow as pa


TIME_COLUMNS = ("timestamp", "time", "datetime", "date", "index")


_PVLIB_TMY3_DATE, _PVLIB_TMY3_TIME = "Date (MM/DD/YYYY)", "Time (HH:MM)"


#: EPW's missing-value markers under pvlib's column names (pvlib keeps them in its frames).
_PVLIB_EPW_MISSING = {"ghi": 9999.0, "dni": 9999.0, "dhi": 9999.0, "temp_air": 99.9, "wind_speed": 999.0,
                      "atmospheric_pressure": 999999.0, "snow_depth": 999.0}


#: Columns only pvlib's ``read_tmy2`` frame has: the file's raw fields under the manual's names.
_PVLIB_TMY2_SIGNATURE = frozenset({"ETRN", "GHillum", "DryBulb", "Wspd"})


#: TMY2's fields in tenths of their unit (0.1 °C, 0.1 m/s), which pvlib leaves unscaled.
_PVLIB_TMY2_TENTHS = {"DryBulb": "temp_air", "Wspd": "wind_speed"}


#: TMY2's fields pvlib gives in the engine's units (Wh/m², mbar, cm).
_PVLIB_TMY2_AS_IS = {"GHI": "ghi", "DNI": "dni", "DHI": "dhi", "Pressure": "pressure", "SnowDepth": "snow_depth"}


#: The pvlib readers of formats whose header numbers sunflux's file reader stores as float32 (SSC
#: does; TMY2's site is computed from degrees and minutes in float64).
READERS_OF_FLOAT32_HEADERS = frozenset({"read_tmy3", "read_epw", "read_nsrdb_psm4"})


#: The weather fields a file reader stores as float32, as SSC does.
_FLOAT32_FIELDS = frozenset({"gh", "dn", "df", "tdry", "wspd", "pressure", "albedo", "snow_depth"})


def arrow_table(source: Any) -> Any:
    """A pyarrow table of a polars/pandas/pyarrow frame or a mapping of arrays (a pandas
    DatetimeIndex becomes a ``timestamp`` column)."""
    import pyarrow as pa

    if isinstance(source, Mapping):
        return pa.table({str(name): pa.array(values) for name, values in source.items()})
    if hasattr(source, "index") and hasattr(source, "reset_index") and type(source).__module__.startswith("pandas"):
        if "datetime" in str(source.index.dtype):
            named = source.index.name if str(source.index.name).lower() in TIME_COLUMNS else "timestamp"
            return pa.table(source.rename_axis(named).reset_index())
        return pa.table(source.reset_index() if source.index.name else source)
    try:
        return pa.table(source)
    except (TypeError, ValueError, pa.ArrowException) as error:
        raise ParameterError(f"weather must be {WEATHER_SOURCES}; got {type(source).__name__}") from error


def with_calendar(table: Any, tz: float | None) -> Any:
    """The table with year/month/day/hour (and minute for instants) columns, derived when it has
    none: from pvlib's TMY3 date and time columns, or from its timestamps (converted to the
    site's standard time). Hour-ending stamps (from 01:00 on 1 January to 00:00 on the next
    1 January, as pvlib labels TMY3 data) are moved to the start of their hour. Hourly stamps on
    the hour are hour averages; other stamps are instants at their minute."""
    import pyarrow as pa
    import pyarrow.compute as pc

    fields = {_core.weather_column_field(name) for name in table.column_names}
    if {"month", "day", "hour"} <= fields:
        return table
    if _PVLIB_TMY3_DATE in table.column_names and _PVLIB_TMY3_TIME in table.column_names:
        date = pc.split_pattern(pc.cast(table.column(_PVLIB_TMY3_DATE), pa.string()), "/")
        hour = pc.list_element(pc.split_pattern(pc.cast(table.column(_PVLIB_TMY3_TIME), pa.string()), ":"), 0)
        for name, part in (("month", pc.list_element(date, 0)), ("day", pc.list_element(date, 1)),
                           ("year", pc.list_element(date, 2)), ("hour", hour)):
            table = table.append_column(name, pc.cast(part, pa.int64()))
        return table
    by_lower = {name.lower(): name for name in table.column_names}
    time_name = next((by_lower[t] for t in TIME_COLUMNS if t in by_lower), None)
    if time_name is None:
        time_name = next((name for name in table.column_names if pa.types.is_timestamp(table.column(name).type)), None)
    if time_name is None or not pa.types.is_timestamp(table.column(time_name).type):
        raise ParameterError(
            "the table needs year, month, day and hour columns or a timestamp column "
            f"(it has {', '.join(table.column_names)})"
        )
    stamps = table.column(time_name)
    if stamps.type.tz is not None:
        if tz is None:
            raise ParameterError("tz is required to read time-zone-aware timestamps in the site's standard time")
        stamps = pc.cast(pc.cast(stamps, pa.timestamp("us", "UTC")), pa.timestamp("us", utc_offset(tz)))
    local = pc.local_timestamp(stamps) if stamps.type.tz is not None else pc.cast(stamps, pa.timestamp("us"))
    local = local.combine_chunks() if hasattr(local, "combine_chunks") else local
    count = len(local)
    if count >= 2:
        first, last = local[0].as_py(), local[count - 1].as_py()
        if (first.month, first.day, first.hour, first.minute) == (1, 1, 1, 0) and (last.month, last.day, last.hour, last.minute) == (1, 1, 0, 0):
            local = pc.subtract(local, pa.scalar(3_600_000_000, pa.duration("us")))
    minutes = pc.add(pc.minute(local), pc.divide(pc.cast(pc.second(local), pa.float64()), 60.0))
    step_us = (local[1].value - local[0].value) if count >= 2 else 0
    hourly_on_the_hour = step_us == 3_600_000_000 and pc.all(pc.equal(minutes, 0.0)).as_py()
    for name, function in (("year", pc.year), ("month", pc.month), ("day", pc.day), ("hour", pc.hour)):
        table = table.append_column(name, function(local))
    if not hourly_on_the_hour:
        table = table.append_column("minute", minutes)
    return table


def pvlib_file_reader(table: Any, metadata: Mapping[str, Any] | None) -> str | None:
    """The pvlib reader of a weather file format sunflux also reads whose frame this is, by the
    columns and metadata only that reader gives: ``read_tmy2``, ``read_tmy3``, ``read_epw``
    (also ``read_pvgis_tmy`` on an EPW) or ``read_nsrdb_psm4``; None for any other table."""
    names = set(table.column_names)
    if _PVLIB_TMY2_SIGNATURE <= names:
        return "read_tmy2"
    if {_PVLIB_TMY3_DATE, _PVLIB_TMY3_TIME} <= names:
        return "read_tmy3"
    if "data_source_unct" in names:
        return "read_epw"
    if metadata is not None and metadata.get("Source") == "NSRDB" and "Local Time Zone" in metadata:
        return "read_nsrdb_psm4"
    return None


def _tmy2_in_engine_units(table: Any) -> Any:
    """pvlib's TMY2 frame with the TMY2 reader's units and calendar: dry bulb and wind speed from
    tenths to °C and m/s, and the two-digit year (62) as 1962."""
    import pyarrow as pa
    import pyarrow.compute as pc

    year = pc.cast(table.column("year"), pa.int64())
    columns = {
        "year": pc.if_else(pc.less(year, 100), pc.add(year, 1900), year),
        **{name: table.column(name) for name in ("month", "day", "hour")},
        **{engine: pc.cast(table.column(name), pa.float64()) for name, engine in _PVLIB_TMY2_AS_IS.items()},
        **{engine: pc.divide(pc.cast(table.column(name), pa.float64()), 10.0) for name, engine in _PVLIB_TMY2_TENTHS.items()},
    }
    return pa.table(columns)


def as_the_file_reader_reads(table: Any, reader: str) -> Any:
    """A frame of pvlib's ``reader`` as sunflux's reader of the same file reads it, so that both
    routes give one answer: TMY2's units (see `_tmy2_in_engine_units`); for EPW, its missing-value
    markers as nulls (then filled as SSC fills EPW files) and its albedo field left out (SSC's EPW
    reader does not read it); and the weather values rounded to float32 as the file readers (and
    SSC) store them."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if reader == "read_tmy2":
        table = _tmy2_in_engine_units(table)
    if reader == "read_epw":
        if "albedo" in table.column_names:
            table = table.drop_columns(["albedo"])
        for name, marker in _PVLIB_EPW_MISSING.items():
            if name in table.column_names:
                column = pc.cast(table.column(name), pa.float64())
                missing = pc.less_equal(pc.abs(pc.subtract(column, marker)), 0.01)
                table = table.set_column(table.column_names.index(name), name, pc.if_else(missing, None, column))
    for index, name in enumerate(table.column_names):
        if _core.weather_column_field(name) in _FLOAT32_FIELDS and pa.types.is_floating(table.column(name).type):
            stored = pc.cast(pc.cast(table.column(name), pa.float32()), pa.float64())
            table = table.set_column(index, name, stored)
    return table


def utc_offset(tz: float) -> str:
    """The fixed offset of a standard time zone, e.g. -5 → "-05:00", 5.5 → "+05:30"."""
    minutes = round(abs(tz) * 60)
    return f"{'-' if tz < 0 else '+'}{minutes // 60:02d}:{minutes % 60:02d}"
