"""The local PV engine: PVWatts v5 (the v6 estimator's algorithm) and PVWatts v8 (the live
estimator's) in Rust, offline.

    weather = sunflux.pvwatts.read_weather("723170TYA.CSV")
    result = sunflux.pvwatts.simulate(weather, 4, 0, 14, 1, 20, 180)
    bifacial = sunflux.pvwatts.simulate(weather, 4, 0, 14, 0, 20, 180, version="v8", bifaciality=0.7)
    result.ac_annual, result.monthly, result.hourly

`simulate` returns the same `PvEstimate` as ``client.pv.estimate`` and validates with the same
rules (the ranges live in one place in the Rust core). Results match the reference
implementations (SSC ``pvwattsv5`` and ``pvwattsv8``) to floating-point noise; see docs/design.md.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from sunflux import _core
from sunflux._errors import ParameterError
from sunflux._frames import to_polars, to_pyarrow
from sunflux.pv import V8_PARAMETERS, PvEstimate, number_list

__all__ = ["Weather", "read_weather", "simulate", "simulate_many"]

_ALIASES: dict[str, tuple[str, ...]] = {
    "year": ("year",),
    "month": ("month",),
    "day": ("day",),
    "hour": ("hour",),
    "minute": ("minute",),
    "gh": ("gh", "ghi", "global_horizontal", "global horizontal irradiance"),
    "dn": ("dn", "dni", "beam", "direct_normal"),
    "df": ("df", "dhi", "diffuse", "diffuse_horizontal"),
    "tdry": ("tdry", "temp_air", "temperature", "temperature_2m", "air_temperature", "temp", "dry-bulb", "drybulb"),
    "wspd": ("wspd", "wind_speed", "windspeed", "windspeed_10m", "wind_speed_10m", "wind speed"),
    "pressure": ("pressure", "pres", "pressure_0m", "surface_pressure"),
    "albedo": ("albedo", "alb", "surface_albedo"),
    "snow_depth": ("snow_depth", "snow", "snow depth"),
}
_TIME_COLUMNS = ("timestamp", "time", "datetime", "date", "index")
_CALENDAR_COLUMNS = ("year", "month", "day", "hour", "minute")


class Weather:
    """A weather year for the engine, with its site: ``lat``, ``lon`` (degrees), ``tz`` (hours from
    GMT, standard time), ``elevation`` (m), ``city``, ``state``, ``country``, ``location_id``,
    ``source``. ``len(weather)`` is 8760, or 8784 with a leap day. The columns are an Arrow table
    (``to_polars()``, ``to_arrow()``): year, month, day, hour, gh, dn, df, tdry, wspd, and pressure
    / albedo / snow_depth (cm) when the source had them. ``minute`` is there only for ``instantaneous`` data (a
    source with a minute column); hour averages (TMY2, TMY3, SAM CSV without minutes) have none,
    so that ``read_weather(weather.to_polars(), lat=..., ...)`` reads back the same year."""

    def __init__(self, core: _core.CoreWeather) -> None:
        self._core = core
        (self.lat, self.lon, self.tz, self.elevation, self.city, self.state, self.country, self.location_id, self.source) = core.meta()

    @property
    def has_leap_day(self) -> bool:
        return self._core.has_leap_day

    @property
    def instantaneous(self) -> bool:
        """True when the values are instants at the stamped minute, False for hour averages."""
        return self._core.instantaneous

    def __len__(self) -> int:
        return len(self._core)

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.to_arrow().__arrow_c_stream__(requested_schema)

    def to_polars(self) -> Any:
        return to_polars(self.to_arrow())

    def to_arrow(self) -> Any:
        table = to_pyarrow(self._core.to_arrow())
        return table if self.instantaneous else table.drop_columns(["minute"])

    def __repr__(self) -> str:
        where = ", ".join(p for p in (self.city, self.state, self.country) if p) or self.location_id or "site"
        return f"Weather({where}: lat={self.lat}, lon={self.lon}, tz={self.tz}, elevation={self.elevation} m, {len(self)} hours)"


def _canonical_table(source: Any, tz: float) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(source, Mapping):
        table = pa.table({str(name): pa.array(values) for name, values in source.items()})
    elif hasattr(source, "index") and hasattr(source, "reset_index") and type(source).__module__.startswith("pandas"):
        if "datetime" in str(source.index.dtype):
            named = source.index.name if str(source.index.name).lower() in _TIME_COLUMNS else "timestamp"
            frame = source.rename_axis(named).reset_index()
        else:
            frame = source.reset_index() if source.index.name else source
        table = pa.table(frame)
    else:
        table = pa.table(source)
    by_lower = {name.lower(): name for name in table.column_names}
    renamed: dict[str, Any] = {}
    for canonical, aliases in _ALIASES.items():
        found = next((by_lower[a] for a in aliases if a in by_lower), None)
        if found is not None:
            column = table.column(found)
            renamed[canonical] = column if pa.types.is_floating(column.type) or pa.types.is_integer(column.type) else pc.cast(column, pa.float64())
    if not all(part in renamed for part in ("year", "month", "day", "hour")):
        time_name = next((by_lower[t] for t in _TIME_COLUMNS if t in by_lower), None)
        if time_name is None or not pa.types.is_timestamp(table.column(time_name).type):
            raise ParameterError(
                "the table needs year, month, day and hour columns or a timestamp column "
                f"(it has {', '.join(table.column_names)})"
            )
        stamps = table.column(time_name)
        if stamps.type.tz is not None:
            stamps = pc.cast(stamps, pa.timestamp(stamps.type.unit, _utc_offset(tz)))
        for part, function in (("year", pc.year), ("month", pc.month), ("day", pc.day), ("hour", pc.hour)):
            renamed.setdefault(part, function(stamps))
    missing = [name for name in ("gh", "dn", "df", "tdry", "wspd") if name not in renamed]
    if missing:
        raise ParameterError(
            [f"column {name!r} is missing (accepted names: {', '.join(_ALIASES[name])})" for name in missing]
        )
    return pa.table({name: _core_column_type(name, column) for name, column in renamed.items()})


def _utc_offset(tz: float) -> str:
    """The fixed offset of a standard time zone, e.g. -5 → "-05:00", 5.5 → "+05:30"."""
    minutes = round(abs(tz) * 60)
    return f"{'-' if tz < 0 else '+'}{minutes // 60:02d}:{minutes % 60:02d}"


def _core_column_type(name: str, column: Any) -> Any:
    """The column as the core reads it: int64 calendar integers, float64 otherwise (float64
    columns are passed on as they are)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    wanted = pa.int64() if name in _CALENDAR_COLUMNS and pa.types.is_integer(column.type) else pa.float64()
    return column if column.type == wanted else pc.cast(column, wanted)


def read_weather(
    source: Any,
    *,
    lat: float | None = None,
    lon: float | None = None,
    tz: float | None = None,
    elevation: float | None = None,
) -> Weather:
    """Reads a weather year.

    ``source`` is a path to a TMY2 (``.tm2``), TMY3, SAM CSV or climate-download CSV file, the bytes
    of one, a `sunflux` `ClimateTable`, or a table (polars, pandas, pyarrow, or a mapping of numpy
    arrays) with ``year, month, day, hour`` (or a timestamp column) and ``ghi, dni, dhi`` (W/m²),
    ``temperature`` (°C), ``wind_speed`` (m/s) under any of their common names (and optionally
    ``pressure`` in mbar, ``albedo`` and ``snow_depth`` in cm, which PVWatts v8's snow model needs); a table needs
    ``lat``, ``lon``, ``tz`` and ``elevation``. float64 columns are read in place from their Arrow
    buffers; other numeric types are converted. A table without a ``minute`` column holds hour
    averages, like a TMY file (a timestamp only says which hour a record is); with one, its values
    are instants at that minute. Naive timestamps are local standard time; zoned ones are
    converted to the site's standard time ``tz``. A bad file raises `ParameterError` naming the
    file, line and column.

    The year: 8760 consecutive hours from 1 January 00:00 (local standard time), or 8784 when
    29 February is present; sub-hourly data is refused.
    """
    if isinstance(source, Weather):
        return source
    if isinstance(source, (str, os.PathLike)):
        return Weather(_core.read_weather_path(os.fspath(source)))
    if isinstance(source, (bytes, bytearray, memoryview)):
        return Weather(_core.read_weather_bytes(bytes(source), "bytes"))
    if hasattr(source, "data") and hasattr(source, "metadata") and hasattr(source, "weather"):
        return source.weather()  # type: ignore[no-any-return]
    missing = [name for name, value in (("lat", lat), ("lon", lon), ("tz", tz), ("elevation", elevation)) if value is None]
    if missing:
        raise ParameterError([f"{name} is required when reading weather from a table" for name in missing])
    table = _canonical_table(source, float(tz))  # type: ignore[arg-type]
    return Weather(_core.weather_from_table(table, float(lat), float(lon), float(tz), float(elevation), "table"))  # type: ignore[arg-type]


def simulate(
    weather: Weather | Any,
    system_capacity: float,
    module_type: int,
    losses: float,
    array_type: int,
    tilt: float,
    azimuth: float,
    *,
    dc_ac_ratio: float = 1.2,
    gcr: float = 0.4,
    inv_eff: float = 96,
    timeframe: str = "hourly",
    version: str = "v5",
    bifaciality: float | None = None,
    albedo: float | Sequence[float] | None = None,
    use_wf_albedo: bool | None = None,
    soiling: Sequence[float] | None = None,
    en_snowloss: bool | None = None,
    threads: int | None = None,
) -> PvEstimate:
    """Simulates one PV system on one weather year with PVWatts v5 or v8 (GIL released).

    Parameters and ranges are the estimator's: system_capacity 0.05–500000 kWdc, module_type 0–2,
    losses −5–99 %, array_type 0–4, tilt 0–90°, azimuth 0 ≤ a < 360°, dc_ac_ratio > 0, gcr 0–3
    (v8: 0.01–0.99), inv_eff 90–99.5 %. ``version="v8"`` runs PVWatts v8 (SSC ``pvwattsv8``), which
    also takes ``bifaciality`` (0–1, default 0: monofacial), ``albedo`` (one value or 12 monthly
    values, each strictly between 0 and 1), ``use_wf_albedo`` (use the weather's albedo where it is
    valid; default True unless ``albedo`` is given), ``soiling`` (12 monthly losses, 0–100 %) and
    ``en_snowloss`` (Marion's snow model; needs ``snow_depth`` in the weather); it splits the
    records over ``threads`` threads (default: all cores). Returns a `PvEstimate` (hourly frame
    unless ``timeframe="monthly"``); v8's frame has further columns (see `PvEstimate`).
    """
    core_weather = read_weather(weather)._core
    options = dict(bifaciality=bifaciality, albedo=albedo, use_wf_albedo=use_wf_albedo, soiling=soiling, en_snowloss=en_snowloss)
    if _engine_version(version, options) == "v8":
        return PvEstimate(
            _core.pvwatts_simulate_v8(
                core_weather, system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio, gcr, inv_eff,
                bifaciality, number_list(albedo), use_wf_albedo, number_list(soiling), en_snowloss, timeframe, threads or 0,
            )
        )
    return PvEstimate(
        _core.pvwatts_simulate(
            core_weather, system_capacity, module_type, losses, array_type, tilt, azimuth, dc_ac_ratio, gcr, inv_eff, timeframe
        )
    )


def _engine_version(version: str, options: Mapping[str, Any]) -> str:
    """The engine to run; v8 options with v5 are an error."""
    if version not in ("v5", "v8"):
        raise ParameterError(f'version must be "v5" or "v8" (got {version!r})')
    given = [name for name in V8_PARAMETERS if options.get(name) is not None]
    if version == "v5" and given:
        raise ParameterError([f'{name} is a PVWatts v8 parameter: pass version="v8"' for name in given])
    return version


_SYSTEM_FIELDS = ("system_capacity", "module_type", "losses", "array_type", "tilt", "azimuth", "dc_ac_ratio", "gcr", "inv_eff")
_SYSTEM_DEFAULTS = {"dc_ac_ratio": 1.2, "gcr": 0.4, "inv_eff": 96}
_LIST_FIELDS = ("albedo", "soiling")


def _system_tuple(index: int, system: Mapping[str, Any], version: str) -> tuple[Any, ...]:
    fields = _SYSTEM_FIELDS + (V8_PARAMETERS if version == "v8" else ())
    unknown = sorted(set(system) - set(fields))
    if unknown:
        hint = ' (pass version="v8" for its parameters)' if set(unknown) & set(V8_PARAMETERS) else ""
        raise ParameterError(f"systems[{index}] has unknown fields {unknown} (use {', '.join(fields)}){hint}")
    return tuple(
        number_list(system.get(name)) if name in _LIST_FIELDS else system.get(name, _SYSTEM_DEFAULTS.get(name)) for name in fields
    )


def simulate_many(
    weather: Weather | Sequence[Weather],
    systems: Sequence[Mapping[str, Any]],
    *,
    threads: int | None = None,
    timeframe: str = "hourly",
    output: str = "table",
    version: str = "v5",
) -> Any:
    """Simulates many systems in parallel on all cores with the GIL released.

    ``weather`` is one weather year for every system, or one per system. ``systems`` are mappings
    of `simulate`'s parameters (with ``version="v8"`` also its v8 parameters). ``output="table"`` returns one long polars frame (``system``, the
    row index of ``systems``, then the hourly columns, or the monthly ones with
    ``timeframe="monthly"``); its timestamps are in the sites' standard time zone, or in UTC when
    the weathers have different zones. ``output="results"`` returns one `PvEstimate` per system.
    """
    if output not in ("table", "results"):
        raise ParameterError(f'output must be "table" or "results" (got {output!r})')
    weathers = [read_weather(weather)] * len(systems) if not isinstance(weather, Sequence) else [read_weather(w) for w in weather]
    if len(weathers) != len(systems):
        raise ParameterError(f"give one weather or one per system (got {len(weathers)} weathers for {len(systems)} systems)")
    _engine_version(version, {})
    simulate_all = _core.pvwatts_simulate_many_v8 if version == "v8" else _core.pvwatts_simulate_many
    cores = simulate_all(
        [w._core for w in weathers], [_system_tuple(i, s, version) for i, s in enumerate(systems)], threads or 0, timeframe
    )
    results = [PvEstimate(core) for core in cores]
    if output == "results":
        return results
    import polars as pl

    frames = [
        (r.hourly if r.hourly is not None else r.monthly).with_columns(pl.lit(i, dtype=pl.Int64).alias("system"))
        for i, r in enumerate(results)
    ]
    if len({frame.schema.get("timestamp") for frame in frames}) > 1:
        frames = [frame.with_columns(pl.col("timestamp").dt.convert_time_zone("UTC")) for frame in frames]
    table = pl.concat(frames) if frames else pl.DataFrame()
    return table.select(["system", *[c for c in table.columns if c != "system"]]) if frames else table
