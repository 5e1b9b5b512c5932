"""The local PV engine: PVWatts v5 (the v6 estimator's algorithm) and PVWatts v8 (the live
estimator's) in Rust, offline. ::

    weather = sunflux.pvwatts.read_weather("723170TYA.CSV")
    result = sunflux.pvwatts.simulate(weather, 4, 0, 14, 1, 20, 180)
    bifacial = sunflux.pvwatts.simulate(weather, 4, 0, 14, 0, 20, 180, version="v8", bifaciality=0.7)
    result.ac_annual, result.monthly, result.hourly

`simulate` returns the same `PvEstimate` as ``client.pv.estimate`` and validates with the same
rules (the ranges live in one place in the Rust core). Results match the reference
implementations (SSC ``pvwattsv5`` and ``pvwattsv8``) to floating-point noise; see docs/design.md.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

from sunflux import _core, _pvgis, _solaranywhere
from sunflux._arguments import alias_hint, checked_arguments
from sunflux._errors import MissingFileError, ParameterError
from sunflux._frames import to_polars, to_pyarrow
from sunflux._options import ArrayTypeCode, ModuleTypeCode, Timeframe
from sunflux._pvlib_frames import READERS_OF_FLOAT32_HEADERS, WEATHER_SOURCES, arrow_table, as_the_file_reader_reads, pvlib_file_reader, with_calendar
from sunflux._progress import Progress
from sunflux._units import check_pvwatts_system
from sunflux.pv import V8_PARAMETERS, ArrayType, HourlyByDefault, ModuleType, PvEstimate, System, number_list

if TYPE_CHECKING:
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    from typing_extensions import TypeAlias

    #: A frame of systems: one row per system, one column per `simulate` parameter.
    SystemFrame: TypeAlias = "pl.DataFrame | pd.DataFrame"

#: The local engines: PVWatts v5 (the v6 estimator's) and v8.
EngineVersion = Literal["v5", "v8"]

__all__ = ["System", "Weather", "read_weather", "simulate", "simulate_many"]

#: The names a site's numbers are found under in metadata (the CSV reader's list, from Rust).
_METADATA_KEYS: dict[str, tuple[str, ...]] = _core.WEATHER_METADATA_KEYS
#: Bytes read from the start of a file to recognise the formats read in Python (PVGIS TMY,
#: SolarAnywhere).
_SNIFFED_BYTES = 4096


class Weather:
    """A weather year for the engine, with its site: ``lat``, ``lon`` (degrees), ``tz`` (hours from
    GMT of the stamps' standard time), ``elevation`` (m), ``city``, ``state``, ``country``,
    ``location_id``, ``source``. ``len(weather)`` is 8760·k records (8784·k with a leap day) for
    k = ``steps_per_hour``. The columns are an Arrow table (``to_polars()``, ``to_arrow()``):
    ``timestamp`` (the start of each record's interval, µs, tz-aware in the site's standard
    time), year, month, day, hour, gh, dn, df, tdry, wspd, and pressure / albedo / snow_depth
    (cm) when the source had them. ``minute`` is there only for ``instantaneous`` data (a source with minutes); hour
    averages (TMY2, TMY3, SAM CSV without minutes) have none, so that
    ``read_weather(weather.to_polars(), lat=..., ...)`` reads back the same year.
    `read_weather` (and `sunflux.LocalService.station_weather`) return it; users do not construct it.

    Attributes
    ----------
    lat : float
        The site's latitude [degrees north].
    lon : float
        The site's longitude [degrees east].
    tz : float
        The offset from GMT of the stamps' standard time [h].
    elevation : float
        The site's elevation [m].
    city, state, country : str
        The site's place, as the source names it.
    location_id : str
        The source's id of the site.
    source : str
        The data set or file the weather came from.
    has_leap_day : bool
        Whether the year holds 29 February (8784 hours).
    instantaneous : bool
        True when the values are instants at the stamped minute, False for hour averages.
    steps_per_hour : int
        Records per hour: 1 for hourly data, 2 for half-hourly, 4 for 15-minute data, ...
    """

    def __init__(self, core: _core.Weather) -> None:
        self._core = core
        (self.lat, self.lon, self.tz, self.elevation, self.city, self.state, self.country, self.location_id, self.source) = core.meta()

    @property
    def has_leap_day(self) -> bool:
        """Whether the year holds 29 February (8784 hours)."""
        return self._core.has_leap_day

    @property
    def instantaneous(self) -> bool:
        """True when the values are instants at the stamped minute, False for hour averages."""
        return self._core.instantaneous

    @property
    def steps_per_hour(self) -> int:
        """Records per hour: 1 for hourly data, 2 for half-hourly, 4 for 15-minute data, ..."""
        return self._core.steps_per_hour

    def without_leap_day(self) -> Weather:
        """The same year without its 29 February records: the 365-day year SSC (and so the
        PV estimator) simulates when a file holds a leap day.

        Returns
        -------
        Weather
            A new weather year (this one unchanged); the same records when there is no 29 February.
        """
        return Weather(self._core.without_leap_day())

    def __len__(self) -> int:
        return len(self._core)

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self.to_arrow().__arrow_c_stream__(requested_schema)

    def to_polars(self) -> pl.DataFrame:
        """The records as a polars frame (the columns of `to_arrow`).

        Returns
        -------
        polars.DataFrame
            One row per record, the columns and units of `to_arrow`.
        """
        return to_polars(self.to_arrow())

    def to_arrow(self) -> pa.Table:
        """The records as a ``pyarrow.Table``: calendar columns and one float column per
        quantity, under the engine's names (``gh``, ``dn``, ``df``, ``tdry``, ``wspd``...).

        Returns
        -------
        pyarrow.Table
            ``timestamp``, ``year``, ``month``, ``day``, ``hour`` (and ``minute`` for
            instantaneous data), then
            ``gh``, ``dn``, ``df`` (W/m²), ``tdry`` (°C), ``wspd`` (m/s) and any other quantity
            the weather holds.
        """
        table = to_pyarrow(self._core.to_arrow())
        return table if self.instantaneous else table.drop_columns(["minute"])

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """Pickles as one Arrow IPC stream of the columns (with the site in its schema metadata);
        with pickle protocol 5 (Dask's) its buffer travels out of band, never as Python objects."""
        import pickle

        stream = _weather_ipc(self)
        return _weather_from_ipc, (pickle.PickleBuffer(stream) if protocol >= 5 else stream.to_pybytes(),)

    def __repr__(self) -> str:
        where = ", ".join(p for p in (self.city, self.state, self.country) if p and p != "-") or self.location_id or "site"
        step = "hourly" if self.steps_per_hour == 1 else f"{60 // self.steps_per_hour}-minute"
        return (
            f"Weather({where}: lat={_short(self.lat)}, lon={_short(self.lon)}, tz={_short(self.tz)}, "
            f"elevation={_short(self.elevation)} m, {len(self)} {step} records)"
        )


_SITE_KEYS = ("lat", "lon", "tz", "elevation")
_PLACE_KEYS = ("city", "state", "country", "location_id", "source")


def _weather_ipc(weather: Weather) -> Any:
    """The weather's columns as an Arrow IPC stream (a ``pyarrow.Buffer``): the calendar and
    value columns (the minute only for instants) and the site and place in the schema metadata."""
    import pyarrow as pa

    table = weather.to_arrow().drop_columns(["timestamp"])
    site = {key: repr(getattr(weather, key)) for key in _SITE_KEYS}
    place = {key: getattr(weather, key) for key in _PLACE_KEYS}
    table = table.replace_schema_metadata({f"sunflux.{key}": value for key, value in (site | place).items()})
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue()


def _weather_from_ipc(stream: Any) -> Weather:
    """The `Weather` a pickled IPC stream holds: its float64 columns are read in place from the
    stream's buffer (no copy), and the year is checked again as any table is."""
    import pyarrow as pa

    table = pa.ipc.open_stream(pa.py_buffer(stream)).read_all()
    meta = {key.decode().removeprefix("sunflux."): value.decode() for key, value in (table.schema.metadata or {}).items()}
    site = {key: float(meta[key]) for key in _SITE_KEYS}
    core = _core.weather_from_table(table.replace_schema_metadata(None), name="pickled weather", **site)
    return Weather(core.with_place(*(meta[key] for key in _PLACE_KEYS)))


def _short(value: float) -> str:
    """A file value stored as float32 (36.099998474121094) as it was written (36.1)."""
    import struct

    single = struct.unpack("f", struct.pack("f", value))[0] if abs(value) < 3.4e38 else value
    return repr(float(f"{value:.7g}")) if single == value else repr(value)


def _as_float32(value: float) -> float:
    """``value`` as a float32 holds it (the file readers' storage, as SSC's)."""
    import struct

    return float(struct.unpack("f", struct.pack("f", value))[0])


def _site_number(value: object) -> float | None:
    """A site argument as a float, or None when it is not a finite number (a bool, text, an int
    beyond a float's range, NaN or infinity)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _shown(value: object) -> str:
    """A bad argument for a message: a float as written, an int too large for a float by its size,
    anything else by its type."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"an int of {value.bit_length()} bits, beyond a float's range"
    return repr(value) if isinstance(value, float) else type(value).__name__


def _site_hints(
    metadata: Mapping[str, Any] | None, given: dict[str, float | None], stored_as_float32: bool = False
) -> dict[str, float | None]:
    """The site from the keyword arguments and from a metadata mapping (pvlib's readers, an
    NSRDB header): both may give a value, but then they must agree. With ``stored_as_float32``
    (the metadata of a pvlib frame whose file sunflux's reader stores as float32, as SSC does) a
    site number from the metadata is kept as that reader keeps it."""
    hints: dict[str, float | None] = {}
    problems = []
    for name, value in given.items():
        number = _site_number(value)
        if value is not None and number is None:
            problems.append(f"{name} must be a finite number (got {_shown(value)})")
        hints[name] = number
    by_lower = {str(key).lower(): value for key, value in (metadata or {}).items()}
    for name, keys in _METADATA_KEYS.items():
        found = next((by_lower[key] for key in keys if by_lower.get(key) not in (None, "")), None)
        if found is None:
            continue
        try:
            value = float(found)
        except (TypeError, ValueError):
            problems.append(f"metadata {name} must be a number (got {found!r})")
            continue
        if hints[name] is not None and hints[name] != value:
            problems.append(f"{name}={hints[name]} was given, but the metadata says {value}")
        hints[name] = _as_float32(value) if stored_as_float32 else value
    if problems:
        raise ParameterError(problems)
    return hints


def _whole_file(path: str) -> bytes:
    """A weather file's bytes, refused beyond the weather file size limit before it is read."""
    limit = dict(_core.default_limits())["weather_file_bytes"]
    if os.path.getsize(path) > limit:
        raise ParameterError(f"{path}: is larger than {int(limit)} bytes, the limit for a weather file")
    with open(path, "rb") as file:
        return file.read()


def _pvgis_weather(year: _pvgis.PvgisYear, name: str, given: dict[str, float | None]) -> Weather:
    """A PVGIS year as weather: its site from the file (arguments must agree), its UTC stamps in
    the standard time ``tz`` if one is given, else in UTC (tz 0)."""
    hints = _site_hints(year.site, given)
    if hints["tz"] is None:
        hints["tz"] = 0.0
    table = with_calendar(year.table, hints["tz"])
    return Weather(_core.weather_from_table(table, name=name, fill_gaps=False, **hints))


def _solaranywhere_weather(year: _solaranywhere.SolarAnywhereYear, name: str, given: dict[str, float | None]) -> Weather:
    """A SolarAnywhere year as weather: its site from its header (arguments must agree); a header
    without a time zone needs ``tz=``, the zone of its local-standard-time stamps."""
    hints = _site_hints(year.site, given)
    if hints["tz"] is None:
        raise ParameterError(
            f"{name}: the SolarAnywhere header has no time zone (field 4 of line 1): give tz=, the hours east of "
            f"UTC of its {_solaranywhere.TIME_FIELD} stamps (e.g. tz=-8.0 for Pacific standard time)"
        )
    table = with_calendar(year.table, hints["tz"])
    return Weather(_core.weather_from_table(table, name=name, fill_gaps=False, **hints))


@checked_arguments
def read_weather(
    source: Any,
    metadata: Mapping[str, Any] | None = None,
    *,
    lat: float | None = None,
    lon: float | None = None,
    tz: float | None = None,
    elevation: float | None = None,
) -> Weather:
    """Read a weather year for the local engines.

    Records with a minute (a minute column, EPW files, sub-hourly timestamps) are instants at
    that minute; records without one are hour averages (TMY files, hourly timestamps on the
    hour). The year holds one record per step of 60/k minutes (k records per hour, k dividing
    60) through one calendar year — 8760·k records, or 8784·k with 29 February — and may start at
    any record (a UTC year seen in local time starts on 31 December of the year before).

    Parameters
    ----------
    source : path, bytes, table, ClimateTable or pvlib's (data, metadata)
        A weather file (TMY2, TMY3, EPW, SAM CSV, NSRDB/PSM3/GOES v4 or climate-download CSV,
        hourly or sub-hourly, with or without its metadata rows; PVGIS TMY CSV or JSON, whose
        stamps are UTC and whose ``tz`` is 0 unless given; SolarAnywhere TMY3-format CSV, which
        needs ``tz=`` when its header has none), the bytes of one, a `ClimateTable`, a table
        (polars, pandas, pyarrow, or a mapping of numpy arrays), or what pvlib's readers return:
        the frames of ``read_tmy2``, ``read_tmy3``, ``read_epw``, ``read_nsrdb_psm4``,
        ``read_pvgis_tmy`` and ``read_solaranywhere`` are read as sunflux reads their files
        (TMY2's tenths converted), so frame and file give one answer. Tables use the file
        readers' column names (``ghi``/``GHI``, ``dni``, ``dhi`` in W/m²; ``temp_air``/
        ``Temperature``/``tdry`` in °C; ``wind_speed`` in m/s; ``pressure`` in mbar or Pa;
        ``albedo``; ``snow_depth`` in cm for PVWatts v8's snow model), calendar columns (year,
        month, day, hour 0–23 or 1–24, minute) or a timestamp column or index; float64 columns
        are used in place from their Arrow buffers.
    metadata : mapping, optional
        The site as pvlib's readers give it, for a table.
    lat, lon : float, optional
        Site, degrees north and east.
    tz : float, optional
        Hours east of UTC of the stamps' standard time.
    elevation : float, optional
        Site elevation, m.

    Returns
    -------
    Weather
        The year and its site; the engine caches its sun path on it.

    Raises
    ------
    ParameterError
        A bad file or table, naming the file, line and column; the site given twice with
        different values; a file or bytes larger than ``sunflux.limits()["weather_file_bytes"]``
        (1 GiB), of more lines than a one-minute leap year has (``"weather_file_lines"``), or a
        table of more rows (``"weather_records"``), refused before anything is parsed;
        implausible values, naming the record and column: irradiance outside 0–1500 W/m², air
        temperature outside −100–70 °C, wind speed outside 0–75 m/s, pressure outside
        300–1100 mbar.
    MissingFileError
        The path does not exist (also a `FileNotFoundError`).
    """
    if isinstance(source, Weather):
        return source
    if isinstance(source, tuple) and len(source) == 2 and isinstance(source[1], Mapping):
        if metadata is not None:
            raise ParameterError("give the metadata once: inside the (data, metadata) pair or as metadata=")
        source, metadata = source
    given = {"lat": lat, "lon": lon, "tz": tz, "elevation": elevation}
    if isinstance(source, (str, os.PathLike, bytes, bytearray, memoryview)):
        hints = _site_hints(metadata, given)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not os.path.exists(path):
            raise MissingFileError(f"weather file not found: {path}")
        if os.path.isfile(path):
            with open(path, "rb") as file:
                head = file.read(_SNIFFED_BYTES)
            if _pvgis.looks_like_pvgis_tmy(head):
                return _pvgis_weather(_pvgis.read_pvgis_tmy(_whole_file(path), path), path, given)
            if _solaranywhere.looks_like_solaranywhere(head):
                year = _solaranywhere.read_solaranywhere(_whole_file(path), path)
                return _solaranywhere_weather(year, path, given)
        return Weather(_core.read_weather_path(path, **hints))
    if isinstance(source, (bytes, bytearray, memoryview)):
        content = bytes(source)
        if _pvgis.looks_like_pvgis_tmy(content[:_SNIFFED_BYTES]):
            return _pvgis_weather(_pvgis.read_pvgis_tmy(content, "bytes"), "bytes", given)
        if _solaranywhere.looks_like_solaranywhere(content[:_SNIFFED_BYTES]):
            return _solaranywhere_weather(_solaranywhere.read_solaranywhere(content, "bytes"), "bytes", given)
        return Weather(_core.read_weather_bytes(content, "bytes", **hints))
    if hasattr(source, "data") and hasattr(source, "metadata") and hasattr(source, "weather"):
        return source.weather()  # type: ignore[no-any-return]
    if source is None or isinstance(source, (int, float, str)):
        raise ParameterError(f"weather must be {WEATHER_SOURCES}; got {type(source).__name__}")
    pvgis_site = _pvgis.pvlib_site(metadata) if metadata is not None else None
    if pvgis_site is not None:
        table = arrow_table(source)
        name = "pvlib.iotools.read_pvgis_tmy frame"
        columns = {column: table.column(column) for column in table.column_names}
        stamps = table.column("timestamp") if "timestamp" in columns else None
        if stamps is None:
            raise ParameterError(f"{name}: its UTC time index is missing")
        return _pvgis_weather(_pvgis.PvgisYear(_pvgis.engine_table(stamps, columns, name), pvgis_site), name, given)
    if metadata is not None and _solaranywhere.is_pvlib_metadata(metadata):
        table = arrow_table(source)
        name = "pvlib.iotools.read_solaranywhere frame"
        columns = {column: table.column(column) for column in table.column_names if column != "timestamp"}
        if "timestamp" not in table.column_names:
            raise ParameterError(f"{name}: its time index is missing")
        engine = _solaranywhere.engine_table(table.column("timestamp"), columns, name)
        return _solaranywhere_weather(_solaranywhere.SolarAnywhereYear(engine, dict(metadata)), name, given)
    try:
        table = arrow_table(source)
        reader = pvlib_file_reader(table, metadata)
        hints = _site_hints(metadata, given, stored_as_float32=reader in READERS_OF_FLOAT32_HEADERS)
        if reader is not None:
            table = as_the_file_reader_reads(table, reader)
        table = with_calendar(table, hints["tz"])
    except ParameterError:
        raise
    except Exception as error:  # pyarrow, pandas and polars raise their own types for tables they cannot read
        raise ParameterError(f"the table cannot be read as weather: {type(error).__name__}: {error}") from None
    name = "table" if reader is None else f"pvlib.iotools.{reader} frame"
    return Weather(_core.weather_from_table(table, name=name, fill_gaps=reader == "read_epw", **hints))


@checked_arguments
def simulate(
    weather: Weather | Any,
    system_capacity: float,
    module_type: ModuleType | ModuleTypeCode,
    losses: float,
    array_type: ArrayType | ArrayTypeCode,
    tilt: float,
    azimuth: float,
    *,
    dc_ac_ratio: float = 1.2,
    gcr: float = 0.4,
    inv_eff: float = 96,
    timeframe: HourlyByDefault = "hourly",  # type: ignore[assignment]  # mypy checks no default against a type variable
    version: EngineVersion = "v5",
    bifaciality: float | None = None,
    albedo: float | Sequence[float] | None = None,
    use_wf_albedo: bool | None = None,
    soiling: Sequence[float] | None = None,
    en_snowloss: bool | None = None,
    threads: int | None = None,
) -> PvEstimate[HourlyByDefault]:
    """Simulate one PV system on one weather year with PVWatts v5 or v8.

    Runs in Rust with the GIL released. The parameters and their ranges are the PV estimator's,
    so the same arguments give the estimator's answer (v6 service = v5 here, v8 service = v8).

    Parameters
    ----------
    weather : Weather or anything read_weather reads
        The weather year (a `Weather`, a path, bytes, a table, a `ClimateTable`, pvlib frames).
    system_capacity : float
        DC nameplate, kW (0.05–500,000).
    module_type : ModuleType or int
        0 standard, 1 premium, 2 thin film.
    losses : float
        System losses, percent (−5–99); ``14`` means 14 %.
    array_type : ArrayType or int
        0 fixed open rack, 1 fixed roof mount, 2 one-axis, 3 one-axis backtracking, 4 two-axis.
    tilt : float
        Tilt from horizontal, degrees (0–90).
    azimuth : float
        Azimuth clockwise from north, degrees (0 ≤ azimuth < 360; 180 faces south).
    dc_ac_ratio : float, default 1.2
        DC to AC size ratio (> 0).
    gcr : float, default 0.4
        Ground coverage ratio (0–3; v8: 0.01–0.99).
    inv_eff : float, default 96
        Nominal inverter efficiency, percent (90–99.5).
    timeframe : {"hourly", "monthly"}, default "hourly"
        ``"hourly"`` fills ``hourly`` with one row per weather record; ``"monthly"`` leaves it None.
    version : {"v5", "v8"}, default "v5"
        The engine: PVWatts v5 (SSC ``pvwattsv5``) or v8 (SSC ``pvwattsv8``). The parameters
        below are v8's only.
    bifaciality : float, optional
        Rear-side to front-side efficiency ratio (0–1; default 0, monofacial).
    albedo : float or sequence of 12 floats, optional
        Ground reflectance, one value or one per month, each strictly between 0 and 1.
    use_wf_albedo : bool, optional
        Use the weather's albedo where valid (default True unless ``albedo`` is given).
    soiling : sequence of 12 floats, optional
        Monthly soiling losses, percent (0–100).
    en_snowloss : bool, optional
        Marion's snow model; needs ``snow_depth`` (cm) in the weather.
    threads : int, optional
        v8 splits the records over this many threads (default: all cores).

    Returns
    -------
    PvEstimate
        ``ac_annual`` (kWh), ``capacity_factor`` (%), ``monthly`` and, for hourly runs,
        ``hourly`` polars frames (AC and DC in W, irradiance in W/m², temperatures in °C,
        tz-aware ``timestamp`` at the start of each interval); v8's frame has further columns.

    Raises
    ------
    ParameterError
        An argument is out of range, or a v8 parameter is given with ``version="v5"``.
    UnitWarning
        A value almost certainly in the wrong unit (``losses=0.14``, a 4,000 kW roof).

    References
    ----------
    .. [1] A. P. Dobos, "PVWatts Version 5 Manual", NREL/TP-6A20-62641, 2014.
    .. [2] NREL System Advisor Model, SSC compute modules ``pvwattsv5`` and ``pvwattsv8``.

    Examples
    --------
    >>> weather = sunflux.pvwatts.read_weather("denver.tmy3")  # doctest: +SKIP
    >>> sunflux.pvwatts.simulate(weather, 4, 0, 14, 1, 20, 180).ac_annual  # doctest: +SKIP
    """
    check_pvwatts_system(system_capacity, losses, array_type)
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


_SYSTEM_FIELDS = tuple(field.name for field in dataclasses.fields(System) if field.name not in V8_PARAMETERS)
#: The defaults of a system's optional parameters: `System`'s.
_SYSTEM_DEFAULTS = {field.name: field.default for field in dataclasses.fields(System) if field.default is not dataclasses.MISSING}
_LIST_FIELDS = ("albedo", "soiling")


def _system_rows(systems: object) -> list[Mapping[str, Any]]:
    """The systems of a list (dicts or `System`) or of a frame (polars or pandas, one row per
    system, columns named as `simulate`'s parameters) as a list of mappings; a frame's empty
    cell (polars null, pandas NaN) means the parameter's default, as a missing key does."""
    if hasattr(systems, "to_dicts"):  # polars
        rows = systems.to_dicts()
    elif hasattr(systems, "to_dict") and hasattr(systems, "columns"):  # pandas
        rows = systems.to_dict("records")
    elif isinstance(systems, Sequence) and not isinstance(systems, (str, bytes)):
        return list(systems)
    else:
        raise ParameterError(
            f"systems must be a list of System or dicts of simulate's parameters, or a frame (got {type(systems).__name__})"
        )
    return [{str(name): value for name, value in row.items() if value is not None and value == value} for row in rows]


def _system_tuple(index: int, system: Mapping[str, Any], version: str) -> tuple[Any, ...]:
    if not isinstance(system, Mapping):
        raise ParameterError(f"systems[{index}] must be a System or a dict of simulate's parameters (got {type(system).__name__})")
    fields = _SYSTEM_FIELDS + (V8_PARAMETERS if version == "v8" else ())
    unknown = sorted(set(system) - set(fields))
    if unknown:
        hint = ' (pass version="v8" for its parameters)' if set(unknown) & set(V8_PARAMETERS) else ""
        hint += "".join(alias_hint(name) for name in unknown)
        raise ParameterError(f"systems[{index}] has unknown fields {unknown} (use {', '.join(fields)}){hint}")
    return tuple(
        number_list(system.get(name)) if name in _LIST_FIELDS else system.get(name, _SYSTEM_DEFAULTS.get(name)) for name in fields
    )


@overload
def simulate_many(
    weather: Weather | Sequence[Weather],
    systems: Sequence[Mapping[str, Any]] | SystemFrame,
    *,
    threads: int | None = None,
    timeframe: Timeframe = "hourly",
    output: Literal["table"] = "table",
    version: EngineVersion = "v5",
    progress: bool = True,
) -> pl.DataFrame: ...


@overload
def simulate_many(
    weather: Weather | Sequence[Weather],
    systems: Sequence[Mapping[str, Any]] | SystemFrame,
    *,
    threads: int | None = None,
    timeframe: HourlyByDefault = ...,
    output: Literal["results"],
    version: EngineVersion = "v5",
    progress: bool = True,
) -> list[PvEstimate[HourlyByDefault]]: ...


@checked_arguments
def simulate_many(
    weather: Weather | Sequence[Weather],
    systems: Sequence[Mapping[str, Any]] | SystemFrame,
    *,
    threads: int | None = None,
    timeframe: Timeframe = "hourly",
    output: Literal["table", "results"] = "table",
    version: EngineVersion = "v5",
    progress: bool = True,
) -> pl.DataFrame | list[PvEstimate[Any]]:
    """Simulate many systems in parallel on all cores, with the GIL released.

    A progress bar (tqdm when installed, else a line on stderr every tenth) follows the batch.
    Ctrl-C stops the batch within about 100 ms.

    Parameters
    ----------
    weather : Weather or sequence of Weather
        One weather year for every system, or one per system (anything `read_weather` reads).
    systems : sequence of System or mapping, or a polars or pandas frame
        `System` objects or mappings of `simulate`'s parameters (with ``version="v8"`` also its
        v8 parameters), or a frame with one row per system and a column per parameter (an
        empty cell takes the default). Units as in `simulate` (kW, percent, degrees).
    threads : int, optional
        Worker threads, 0–4096 (default, None or 0: all cores).
    timeframe : {"hourly", "monthly"}, default "hourly"
        Rows per weather record, or 12 per system.
    output : {"table", "results"}, default "table"
        ``"table"``: one long polars frame; ``"results"``: one `PvEstimate` per system.
    version : {"v5", "v8"}, default "v5"
        The engine, as in `simulate`.
    progress : bool, default True
        Show the progress bar.

    Returns
    -------
    polars.DataFrame or list of PvEstimate
        The table has ``system`` (the row index of ``systems``), then the hourly columns of
        `PvEstimate` (W, W/m², °C), or the monthly ones (kWh). Its timestamps are in the sites'
        standard time zone, or in UTC when the weathers' zones differ; ``local_time`` (after
        ``timestamp``) is each stamp on its site's standard-time clock, without a zone: group by
        ``pl.col("local_time").dt.month()`` for every site's own months.

    Raises
    ------
    ParameterError
        A system's parameter is out of range (named by its index), the weathers do not match
        the systems one to one, or ``threads``/``output``/``version`` is not one of its values.
    """
    rows = _system_rows(systems)
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int) or not 0 <= threads <= 4096):
        raise ParameterError(f"threads must be a whole number between 0 and 4096, or None (got {threads!r:.40})")
    if output not in ("table", "results"):
        raise ParameterError(f'output must be "table" or "results" (got {output!r})')
    weathers = [read_weather(weather)] * len(rows) if not isinstance(weather, Sequence) else [read_weather(w) for w in weather]
    if len(weathers) != len(rows):
        raise ParameterError(f"give one weather or one per system (got {len(weathers)} weathers for {len(rows)} systems)")
    _engine_version(version, {})
    system_tuples = [_system_tuple(i, s, version) for i, s in enumerate(rows)]
    for index, (capacity, _module, losses, array_type, *_rest) in enumerate(system_tuples):
        check_pvwatts_system(capacity, losses, array_type, where=f"systems[{index}]: ")
    simulate_all = _core.pvwatts_simulate_many_v8 if version == "v8" else _core.pvwatts_simulate_many
    bar = Progress(len(rows), progress, "pvwatts", "system")
    try:
        cores = simulate_all([w._core for w in weathers], system_tuples, threads or 0, timeframe, bar.advance_to)
    finally:
        bar.close()
    if output == "results":
        return [PvEstimate(core) for core in cores]
    return _long_table(cores)


def _long_table(cores: Sequence[_core.PvEstimate]) -> pl.DataFrame:
    """The estimates' hourly (or monthly) tables one after the other, led by their ``system``
    index, hourly ones with their ``local_time``; timestamps in UTC when the tables' zones differ.

    Joined in pyarrow and handed to polars as one Arrow stream: polars' own concatenation and
    table import wait on its thread pool, which a forked child does not have, so a child of a
    process that had used polars hung here (issue #33); importing a stream does not use it.
    """
    import pyarrow as pa

    tables = [to_pyarrow(core.hourly() or core.monthly()) for core in cores]
    if not tables:
        import polars as pl

        return pl.DataFrame()
    zones = {table.schema.field("timestamp").type for table in tables if "timestamp" in table.column_names}
    if zones:
        tables = [_with_local_time(table) for table in tables]
    if len(zones) > 1:
        tables = [_timestamps_in_utc(table) for table in tables]
    numbered = [table.add_column(0, "system", pa.array([index] * table.num_rows, pa.int64())) for index, table in enumerate(tables)]
    joined = pa.concat_tables(numbered)
    return to_polars(pa.RecordBatchReader.from_batches(joined.schema, joined.to_batches()))


def _with_local_time(table: pa.Table) -> pa.Table:
    """``table`` with a ``local_time`` column after its timestamp: the stamp as the site's clock
    shows it in its standard time, without a zone, so that sites in different zones stacked in
    UTC keep their own hours and months."""
    import pyarrow.compute as pc

    index = table.column_names.index("timestamp")
    return table.add_column(index + 1, "local_time", pc.local_timestamp(table.column(index)))


def _timestamps_in_utc(table: pa.Table) -> pa.Table:
    """``table`` with its timestamp column's zone set to UTC (the instants are unchanged: Arrow
    stores them in UTC whatever the zone)."""
    import pyarrow as pa

    index = table.column_names.index("timestamp")
    unit = table.schema.field(index).type.unit
    return table.set_column(index, "timestamp", table.column(index).cast(pa.timestamp(unit, "UTC")))
