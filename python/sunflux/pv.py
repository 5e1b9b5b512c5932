"""PV estimator v6 and v8: ``client.pv.estimate(...)``, the `PvEstimate` result it shares with the
local engine (`sunflux.pvwatts.simulate`), and the `ModuleType` / `ArrayType` enumerations.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Generic, Literal, overload

from typing_extensions import TypeVar

from sunflux import _core
from sunflux._errors import ParameterError, warn_service
from sunflux._frames import to_pandas, to_polars
from sunflux._options import ArrayTypeCode, EstimateFormat, EstimatorDataset, EstimatorVersion, ModuleTypeCode, Timeframe
from sunflux._twins import Call, async_twin_of, awaitable, blocking, core_call
from sunflux._units import check_pvwatts_system

if TYPE_CHECKING:
    import pandas as pd
    import polars as pl

    from sunflux._handle import ServiceHandle
    from sunflux.solar import Station

__all__ = [
    "ModuleType", "ArrayType", "System", "PvEstimate", "HourlyPvEstimate", "MonthlyPvEstimate", "StationInfo", "SscInfo", "PvService",
    "AsyncPvService", "parse_estimate",
]

#: `PvEstimate`'s type parameter, the timeframe it was made with: ``hourly`` is a frame when it is
#: ``"hourly"`` and None when it is ``"monthly"``; a bare ``PvEstimate`` may be either.
TimeframeT = TypeVar("TimeframeT", bound=Timeframe, default=Timeframe, covariant=True)
#: The ``timeframe`` of a call whose default is monthly (the estimator) or hourly (the local
#: engine), as a type, so that the result's type says which timeframe it has.
MonthlyByDefault = TypeVar("MonthlyByDefault", bound=Timeframe, default=Literal["monthly"])
HourlyByDefault = TypeVar("HourlyByDefault", bound=Timeframe, default=Literal["hourly"])


class ModuleType(enum.IntEnum):
    """``module_type``: 0 standard (γ −0.47 %/°C), 1 premium (AR glass, −0.35 %/°C), 2 thin film (−0.20 %/°C).

    Attributes
    ----------
    STANDARD : int
        0: standard modules, temperature coefficient of power −0.47 [%/°C].
    PREMIUM : int
        1: premium modules (anti-reflective glass), −0.35 [%/°C].
    THIN_FILM : int
        2: thin-film modules, −0.20 [%/°C].
    """

    STANDARD = 0
    PREMIUM = 1
    THIN_FILM = 2


class ArrayType(enum.IntEnum):
    """``array_type``: 0 fixed open rack, 1 fixed roof mount, 2 one-axis, 3 one-axis backtracking, 4 two-axis.

    Attributes
    ----------
    FIXED_OPEN_RACK : int
        0: fixed, open rack.
    FIXED_ROOF_MOUNT : int
        1: fixed, roof mount.
    ONE_AXIS : int
        2: one-axis tracking.
    ONE_AXIS_BACKTRACKING : int
        3: one-axis tracking with backtracking.
    TWO_AXIS : int
        4: two-axis tracking.
    """

    FIXED_OPEN_RACK = 0
    FIXED_ROOF_MOUNT = 1
    ONE_AXIS = 2
    ONE_AXIS_BACKTRACKING = 3
    TWO_AXIS = 4


@dataclass(frozen=True)
class System(Mapping[str, Any]):
    """One PV system: the parameters `sunflux.pvwatts.simulate` and ``client.pv.estimate`` take,
    with the same defaults (the PVWatts inputs [1]_).

    ``system_capacity`` kWdc; ``module_type`` `ModuleType` (0–2); ``losses`` percent (14 = 14 %);
    ``array_type`` `ArrayType` (0–4); ``tilt`` degrees from horizontal; ``azimuth`` degrees
    clockwise from north (180 = south); ``dc_ac_ratio`` DC over AC rating; ``gcr`` ground
    coverage ratio (row width over row spacing); ``inv_eff`` inverter efficiency in percent.
    PVWatts v8 only (None = not given): ``bifaciality`` 0–1, ``albedo`` one value or 12 monthly
    ones, ``use_wf_albedo``, ``soiling`` 12 monthly losses in percent, ``en_snowloss``.

    A `System` is a read-only mapping of the parameters it gives (the v8 ones only when not
    None), so it goes wherever a dict of parameters goes: ``simulate(weather, **system)``,
    ``client.pv.estimate(**system, lat=40, lon=-105)``, a list of systems for
    `sunflux.pvwatts.simulate_many` or `sunflux.distributed.simulate`. The values are checked
    where every call's are (the Rust core's ranges), not when a `System` is made.

    Parameters
    ----------
    system_capacity : float
        DC rating of the array (kW).
    module_type : ModuleType or int
        0 standard, 1 premium, 2 thin film.
    losses : float
        System losses (%; 14 means 14 %).
    array_type : ArrayType or int
        0 fixed open rack, 1 fixed roof mount, 2 one-axis, 3 one-axis backtracking, 4 two-axis.
    tilt : float
        Tilt from horizontal (degrees).
    azimuth : float
        Azimuth clockwise from north (degrees; 180 is south).
    dc_ac_ratio : float, default 1.2
        DC rating over AC rating (unitless).
    gcr : float, default 0.4
        Ground coverage ratio (unitless).
    inv_eff : float, default 96
        Inverter efficiency at rated power (%).
    bifaciality : float, optional
        Rear-side efficiency over front-side (0 to 1; PVWatts v8 only).
    albedo : float or tuple of 12 floats, optional
        Ground reflectance (0 to 1), one value or one per month (v8 only).
    use_wf_albedo : bool, optional
        Use the weather file's albedo when it has one (v8 only).
    soiling : tuple of 12 floats, optional
        Monthly soiling losses (%; v8 only).
    en_snowloss : bool, optional
        Model snow losses (v8 only).

    References
    ----------
    .. [1] A. P. Dobos, "PVWatts Version 5 Manual", NREL/TP-6A20-62641, 2014.
    """

    system_capacity: float
    module_type: ModuleType | ModuleTypeCode
    losses: float
    array_type: ArrayType | ArrayTypeCode
    tilt: float
    azimuth: float
    dc_ac_ratio: float = 1.2
    gcr: float = 0.4
    inv_eff: float = 96
    bifaciality: float | None = None
    albedo: float | tuple[float, ...] | None = None
    use_wf_albedo: bool | None = None
    soiling: tuple[float, ...] | None = None
    en_snowloss: bool | None = None

    def __post_init__(self) -> None:
        # Monthly lists become tuples, so that a System stays immutable and hashable.
        for name in ("albedo", "soiling"):
            value = getattr(self, name)
            if isinstance(value, list):
                object.__setattr__(self, name, tuple(value))

    def __getitem__(self, name: str) -> Any:
        if name not in self._given():
            raise KeyError(name)
        return getattr(self, name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._given())

    def __len__(self) -> int:
        return len(self._given())

    def _given(self) -> tuple[str, ...]:
        return tuple(field.name for field in fields(self) if field.name not in V8_PARAMETERS or getattr(self, field.name) is not None)


@dataclass(frozen=True)
class StationInfo:
    """The weather file an estimate used (`PvEstimate.station_info`); users do not construct it.
    A number the answer does not give is None.

    Attributes
    ----------
    lat : float or None
        The station's latitude [degrees north].
    lon : float or None
        The station's longitude [degrees east].
    elev : float or None
        The station's elevation [m].
    tz : float or None
        The station's standard time offset from GMT [h].
    location : str
        The weather file's location id.
    city : str
        The station's city.
    state : str
        The station's state or region.
    solar_resource_file : str
        The name of the weather file.
    distance : int or None
        Distance from the requested point to the station [m].
    weather_data_source : str or None
        The dataset the weather file came from, as the answer names it.
    """

    lat: float | None
    lon: float | None
    elev: float | None
    tz: float | None
    location: str
    city: str
    state: str
    solar_resource_file: str
    distance: int | None = None
    weather_data_source: str | None = None


@dataclass(frozen=True)
class SscInfo:
    """The simulation core that computed the estimate (`PvEstimate.ssc_info`); users do not construct it.

    Attributes
    ----------
    version : int
        The core's version number.
    build : str
        The core's build description.
    module : str or None
        The compute module that ran (``pvwattsv8`` ...), when the answer says.
    """

    version: int
    build: str
    module: str | None = None


class _HourlyFrame:
    """``PvEstimate.hourly``, whose type follows the estimate's timeframe."""

    def __init__(self) -> None:
        # help() shows a descriptor's own text, not its class's.
        self.__doc__ = "The hourly polars frame (columns: see the class's text), or None for a monthly estimate."

    @overload
    def __get__(self, estimate: None, owner: type) -> _HourlyFrame: ...
    @overload
    def __get__(self, estimate: PvEstimate[Literal["hourly"]], owner: type) -> pl.DataFrame: ...
    @overload
    def __get__(self, estimate: PvEstimate[Literal["monthly"]], owner: type) -> None: ...
    @overload
    def __get__(self, estimate: PvEstimate, owner: type) -> pl.DataFrame | None: ...
    def __get__(self, estimate: PvEstimate | None, owner: type) -> _HourlyFrame | pl.DataFrame | None:
        return self if estimate is None else estimate._hourly

    def __set__(self, estimate: PvEstimate, frame: pl.DataFrame | None) -> None:
        estimate._hourly = frame


class PvEstimate(Generic[TimeframeT]):
    """A PV estimate (from the web estimator or the local engine).

    ``ac_annual`` kWhac, ``solrad_annual`` kWh/m²/day, ``capacity_factor`` percent; ``monthly`` is a
    12-row polars frame (month, poa kWh/m², dc kWhdc, ac kWhac, solrad kWh/m²/day); ``hourly`` is
    None for monthly estimates, else a polars frame with ``timestamp`` (start of the hour, station
    standard time) and ac, dc (W), poa, dn, df (W/m²), tamb, tcell (°C), wspd (m/s), whose value
    buffers are the ones the Rust parser filled; v8 estimates add ``alb`` (ground albedo), and the
    local v8 engine also gh, tpoa (W/m²), aoi (°), sunup, ss_beam_factor, ss_sky_diffuse_factor,
    ss_gnd_diffuse_factor, soiling_f, dcsnowderate (%), snow_cover and inv_eff_output (%).

    The type parameter is the timeframe: a call with ``timeframe="hourly"`` returns a
    ``PvEstimate[Literal["hourly"]]`` (`HourlyPvEstimate`), whose ``hourly`` a type checker knows
    is a frame; a monthly one (`MonthlyPvEstimate`) has ``hourly`` None. ``client.pv.estimate`` and
    the local engines return it; users do not construct it.

    Attributes
    ----------
    ac_annual : float
        Annual AC output [kWhac].
    solrad_annual : float
        Annual mean daily plane-of-array irradiation [kWh/m^2/day].
    capacity_factor : float
        AC output over DC nameplate times the hours of the year [%].
    version : str or None
        The estimator's version as the answer gives it.
    warnings : list of str
        The answer's warnings.
    errors : list of str
        The answer's errors (empty for a successful estimate).
    raw : str
        The answer's text.
    inputs : dict
        The request's inputs as the answer echoes them.
    station_info : StationInfo or None
        The weather file the estimate used.
    ssc_info : SscInfo or None
        The simulation core that computed it.
    monthly : polars.DataFrame
        12 rows: month, poa [kWh/m^2], dc [kWhdc], ac [kWhac], solrad [kWh/m^2/day].
    hourly : polars.DataFrame or None
        None for a monthly estimate; else the hourly series in the columns listed above.
    synthetic : bool
        True when the estimate ran on the embedded service's generated weather.
    """

    hourly = _HourlyFrame()

    def __init__(self, core: _core.PvEstimate) -> None:
        self._core = core
        self.ac_annual: float = core.ac_annual
        self.solrad_annual: float = core.solrad_annual
        self.capacity_factor: float = core.capacity_factor
        self.version: str | None = core.version
        self.warnings: list[str] = core.warnings
        self.errors: list[str] = core.errors
        self.raw: str = core.raw
        self.inputs: dict[str, Any] = core.inputs()
        station = core.station_info()
        self.station_info: StationInfo | None = None if station is None else StationInfo(**station)
        ssc = core.ssc_info()
        self.ssc_info: SscInfo | None = None if ssc is None else SscInfo(**ssc)
        self.monthly: pl.DataFrame = to_polars(core.monthly())
        hourly = core.hourly()
        self._hourly = None if hourly is None else to_polars(hourly)

    @property
    def synthetic(self) -> bool:
        """True when the estimate ran on the embedded service's generated weather (its station's
        ``weather_data_source`` says so)."""
        source = self.station_info.weather_data_source if self.station_info else None
        return source is not None and _core.is_synthetic_source(source)

    def to_pandas(self, *, index: bool = False) -> pd.DataFrame:
        """The hourly table (or the monthly one for a monthly estimate) as pandas; ``index=True``
        makes the hourly ``timestamp`` its tz-aware `DatetimeIndex` (a monthly table has none:
        `ParameterError`).

        Parameters
        ----------
        index : bool, default False
            Make the ``timestamp`` column the frame's tz-aware ``DatetimeIndex``.

        Returns
        -------
        pandas.DataFrame
            The hourly table (``ac`` and ``dc`` in W, irradiances in W/m², ``tamb`` and ``tcell``
            in °C, ``wspd`` in m/s) or the monthly one (``ac`` and ``dc`` in kWh, ``poa`` in
            kWh/m², ``solrad`` in kWh/m²/day); ``attrs["synthetic"]``
            is True for the embedded service's generated weather.

        Raises
        ------
        ParameterError
            ``index=True`` on a monthly estimate.
        ImportError
            pandas is not installed.
        """
        table = self._core.hourly() or self._core.monthly()
        frame = to_pandas(table, index=index)
        if self.synthetic:
            frame.attrs["synthetic"] = True
        return frame

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles what the core holds (numbers, texts, the frames as Arrow tables, whose
        buffers pickle out of band with protocol 5); the copy is rebuilt as this one was."""
        return PvEstimate, (_SavedEstimate(self._core),)

    def __repr__(self) -> str:
        kind = "hourly" if self.hourly is not None else "monthly"
        label = ", synthetic" if self.synthetic else ""
        return f"PvEstimate(ac_annual={self.ac_annual:.1f} kWh, capacity_factor={self.capacity_factor:.2f} %, {kind}{label})"


#: An estimate made with ``timeframe="hourly"``: its ``hourly`` is a polars frame.
HourlyPvEstimate = PvEstimate[Literal["hourly"]]
#: An estimate made with ``timeframe="monthly"``: its ``hourly`` is None.
MonthlyPvEstimate = PvEstimate[Literal["monthly"]]


class _SavedEstimate:
    """The answers of a `_core.PvEstimate`, kept in plain Python and pyarrow objects so that a
    pickled `PvEstimate` is rebuilt through the same constructor."""

    def __init__(self, core: _core.PvEstimate) -> None:
        from sunflux._frames import to_pyarrow

        self.ac_annual, self.solrad_annual, self.capacity_factor = core.ac_annual, core.solrad_annual, core.capacity_factor
        self.version, self.warnings, self.errors, self.raw = core.version, list(core.warnings), list(core.errors), core.raw
        self._inputs, self._station, self._ssc = core.inputs(), core.station_info(), core.ssc_info()
        hourly = core.hourly()
        self._monthly, self._hourly = to_pyarrow(core.monthly()), None if hourly is None else to_pyarrow(hourly)

    def inputs(self) -> dict[str, Any]:
        return dict(self._inputs)

    def station_info(self) -> dict[str, Any] | None:
        return self._station

    def ssc_info(self) -> dict[str, Any] | None:
        return self._ssc

    # Fresh table objects over the same buffers: `to_pandas` converts with self_destruct.
    def monthly(self) -> Any:
        return self._monthly.slice(0)

    def hourly(self) -> Any:
        return None if self._hourly is None else self._hourly.slice(0)


def _finish(core: _core.PvEstimate) -> PvEstimate[Any]:
    """The estimate of an answer, whose timeframe is the one the call asked for."""
    result: PvEstimate[Any] = PvEstimate(core)
    for message in result.warnings:
        warn_service(message, stacklevel=3)
    return result


def _file_id(file_id: str | Station | None, version: str) -> str | None:
    if file_id is None or isinstance(file_id, str):
        return file_id
    return file_id.file_id_v8 if version == "v8" else file_id.file_id


#: The estimator version each route profile uses by default: the spec's contract (v6) on
#: spec-following servers, the live service's current estimator (v8) on the public host.
DEFAULT_VERSION: dict[str, EstimatorVersion] = {"spec": "v6", "nlr": "v8"}
#: Parameters only the v8 estimator takes.
V8_PARAMETERS = ("bifaciality", "albedo", "use_wf_albedo", "soiling", "en_snowloss")


def _version(version: str | None, routes: str, options: dict[str, Any]) -> EstimatorVersion:
    """The estimator version to use; v8 options with v6 are an error (nothing is sent)."""
    chosen = DEFAULT_VERSION[routes] if version is None else version
    if chosen == "v8":
        return "v8"
    if chosen != "v6":
        raise ParameterError(f'version must be "v6" or "v8" (got {chosen!r})')
    given = [name for name in V8_PARAMETERS if options.get(name) is not None]
    if given:
        raise ParameterError([f'{name} is a v8 parameter: pass version="v8"' for name in given])
    return "v6"


def number_list(values: object) -> object:
    """A list of numbers as the estimator's query writes it (``a|b|c``, exact decimals); a single
    number, a text or anything that is not a list is passed on as it is, for the core's check to
    name."""
    if values is None or isinstance(values, (str, bytes, int, float)) or not isinstance(values, Iterable):
        return values
    return "|".join(_decimal(value) for value in values)


def _decimal(value: object) -> str:
    """One value of a number list as text: a float's exact decimal, an int beyond a float's range
    as its digits (the core refuses it as out of range), anything else as ``str`` gives it."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return repr(float(value))
        except OverflowError:
            return str(value)
    return str(value)


def parse_estimate(body: bytes | str, format: EstimateFormat = "json") -> PvEstimate:
    """Parse a PV estimator answer that came from elsewhere (a file, another client).

    Parameters
    ----------
    body : bytes or str
        The answer's body (json, JSONP or xml).
    format : {"json", "xml"}, default "json"
        The body's format (JSONP is read as json).

    Returns
    -------
    PvEstimate
        The estimate, as ``client.pv.estimate`` returns it.

    Raises
    ------
    ApiError
        The body is an error answer, or not an estimator answer.
    """
    data = body.encode() if isinstance(body, str) else body
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ParameterError(f"body must be bytes or str (got {type(body).__name__})")
    if not isinstance(format, str):
        raise ParameterError(f'format must be "json" or "xml" (got {type(format).__name__})')
    return PvEstimate(_core.parse_pv_estimate(bytes(data), format))


_ESTIMATE_DOC = """Estimate the energy of a PV system with the PV estimator v6 or v8.

        v6 runs PVWatts v5's algorithms; v8 runs PVWatts v8's (CEC module model, NOCT cell
        temperature, self-shading, bifacial modules, albedo, soiling). Every parameter is checked
        before sending, and all problems are reported at once.

        Parameters
        ----------
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
        lat, lon : float, optional
            Location, degrees north and east: the estimator uses the nearest station of
            ``dataset`` within ``radius``. Give these or ``file_id``.
        file_id : str or Station, optional
            A station from the dataset query (a v1 id for v6, a v2 id for v8, or a `Station`).
        dataset : str, optional
            v6: ``satdb`` (default), ``tmy2``, ``tmy3``, ``intl``; v8: ``nsrdb`` (default),
            ``tmy2``, ``tmy3``, ``intl``.
        radius : int, optional
            Search radius, miles (default 100; 0: the nearest station whatever its distance).
        timeframe : {"monthly", "hourly"}, default "monthly"
            ``"hourly"`` also returns the hourly frame.
        dc_ac_ratio : float, default 1.2
            DC to AC size ratio (> 0).
        gcr : float, default 0.4
            Ground coverage ratio (0–3; v8: 0.01–0.99).
        inv_eff : float, default 96
            Nominal inverter efficiency, percent (90–99.5).
        format : {"json", "xml"}, default "json"
            The answer's format (the result is the same).
        callback : str, optional
            JSONP callback name (json only).
        version : {"v6", "v8"}, optional
            Default: ``"v6"`` on spec-following servers (the embedded service), ``"v8"`` on the
            public host, which documents v6 as replaced by v8.
        bifaciality : float, optional
            v8: rear-side to front-side efficiency ratio (0–1).
        albedo : float or sequence of 12 floats, optional
            v8: ground reflectance, one value or one per month, each strictly between 0 and 1.
        use_wf_albedo : bool, optional
            v8: take the weather's albedo where valid (default True unless ``albedo`` is given).
        soiling : sequence of 12 floats, optional
            v8: monthly soiling losses, percent (0–100).
        en_snowloss : bool, optional
            v8: the snow model (not documented by the live service).

        Returns
        -------
        PvEstimate
            ``ac_annual`` (kWh), ``capacity_factor`` (%), ``solrad_annual`` (kWh/m²/day), the
            ``monthly`` frame and, with ``timeframe="hourly"``, the ``hourly`` frame (W, W/m², °C),
            the station used (``station_info``) and the service's ``warnings``.

        Raises
        ------
        ParameterError
            A parameter is out of range or missing; nothing was sent.
        ApiError
            The service refused the request (its messages in ``.errors``).
        TransportError
            The request could not be completed.

        References
        ----------
        .. [1] A. P. Dobos, "PVWatts Version 5 Manual", NREL/TP-6A20-62641, 2014.
        """


class _PvBase:
    """What both PV classes share: the service handle, the version rule, the request's arguments
    and the result."""

    def __init__(self, handle: ServiceHandle) -> None:
        self._handle = handle

    def _estimate(
        self,
        system_capacity: float,
        module_type: ModuleType | ModuleTypeCode,
        losses: float,
        array_type: ArrayType | ArrayTypeCode,
        tilt: float,
        azimuth: float,
        *,
        lat: float | None = None,
        lon: float | None = None,
        file_id: str | Station | None = None,
        dataset: EstimatorDataset | None = None,
        radius: int | None = None,
        timeframe: MonthlyByDefault = "monthly",  # type: ignore[assignment]  # mypy checks no default against a type variable
        dc_ac_ratio: float = 1.2,
        gcr: float = 0.4,
        inv_eff: float = 96,
        format: EstimateFormat = "json",
        callback: str | None = None,
        version: EstimatorVersion | None = None,
        bifaciality: float | None = None,
        albedo: float | Sequence[float] | None = None,
        use_wf_albedo: bool | None = None,
        soiling: Sequence[float] | None = None,
        en_snowloss: bool | None = None,
    ) -> Call[PvEstimate[MonthlyByDefault]]:
        check_pvwatts_system(system_capacity, losses, array_type)
        options = dict(bifaciality=bifaciality, albedo=albedo, use_wf_albedo=use_wf_albedo, soiling=soiling, en_snowloss=en_snowloss)
        chosen = _version(version, self._handle.routes, options)
        transport, site, trace = self._handle.transport, _file_id(file_id, chosen), self._handle.trace()
        if chosen == "v8":
            return core_call(
                _finish, _core.pv_estimate_v8,
                transport, system_capacity, module_type, losses, array_type, tilt, azimuth, lat, lon, site, dataset, radius, timeframe,
                dc_ac_ratio, gcr, inv_eff, bifaciality, number_list(albedo), use_wf_albedo, number_list(soiling), en_snowloss,
                format, callback, trace=trace,
            )
        return core_call(
            _finish, _core.pv_estimate,
            transport, system_capacity, module_type, losses, array_type, tilt, azimuth, lat, lon, site, dataset, radius, timeframe,
            dc_ac_ratio, gcr, inv_eff, format, callback, trace=trace,
        )

    _estimate.__doc__ = _ESTIMATE_DOC


class PvService(_PvBase):
    """``client.pv``: the PV estimator (v6 and v8). The client builds it; users do not construct it."""

    estimate = blocking(_PvBase._estimate)


@async_twin_of(PvService)
class AsyncPvService(_PvBase):
    """``async_client.pv``: the PV estimator (v6 and v8), awaitable. The client builds it; users do
    not construct it."""

    estimate = awaitable(_PvBase._estimate)
