"""Solar dataset query v1 and v2: ``client.solar.data_query(...)`` and its typed result.

Validation, the request and the parsing happen in the Rust core; this module gives the answer a
Python shape: `Station` records, a `StationQuery` with ``.closest`` and ``.all_stations``, and
a polars frame with one row per station.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from sunflux import _core
from sunflux._errors import ParameterError, warn_service
from sunflux._frames import to_pandas, to_polars, to_pyarrow
from sunflux._options import QueryFormat, QueryVersion, SolarDataset
from sunflux._twins import Call, async_twin_of, awaitable, blocking, core_call

if TYPE_CHECKING:
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    from sunflux._handle import ServiceHandle

__all__ = ["Station", "StationQuery", "SolarService", "AsyncSolarService", "parse_data_query"]

#: The dataset codes of the spec, in the order the service lists them (the Rust core's list).
DATASETS: tuple[SolarDataset, ...] = _core.SOLAR_DATASETS


@dataclass(frozen=True)
class Station:
    """One climate data station. ``distance`` and ``elevation`` are metres; ``timezone`` is hours
    from GMT; ``resolution`` (km) is set on satellite records; ``country`` and
    ``weather_data_source`` come from v2. ``query_version`` is the dataset query version that
    returned it: only v1 ids work as the v6 estimator's ``file_id``, only v2 ids as v8's.
    A dataset query returns it (`StationQuery`); users do not construct it.

    Attributes
    ----------
    id : str
        The station's id.
    lat : float
        The station's latitude [degrees north].
    lon : float
        The station's longitude [degrees east].
    city : str
        The station's city.
    state : str
        The station's state or region.
    timezone : float
        The station's standard time offset from GMT [h].
    elevation : int
        The station's elevation [m].
    distance : int
        Distance from the queried point to the station [m].
    resolution : int or None
        The grid resolution of satellite records [km]; None for others.
    country : str or None
        The station's country (v2 only).
    weather_data_source : str or None
        The dataset the station's weather comes from (v2 only).
    dataset : str or None
        The dataset code the station was listed under (``tmy3``, ``intl`` ...).
    query_version : {"v1", "v2"}
        The dataset query version that returned the station.
    file_id : str
        The id to pass as the v6 estimator's ``file_id``; a v2 station raises `ParameterError`.
    file_id_v8 : str
        The id to pass as the v8 estimator's ``file_id``; a v1 station raises `ParameterError`.
    """

    id: str
    lat: float
    lon: float
    city: str
    state: str
    timezone: float
    elevation: int
    distance: int
    resolution: int | None = None
    country: str | None = None
    weather_data_source: str | None = None
    dataset: str | None = None
    query_version: Literal["v1", "v2"] = "v1"

    @property
    def file_id(self) -> str:
        """The id to pass as the v6 estimator's ``file_id``; a v2 station raises `ParameterError`."""
        if self.query_version != "v1":
            raise ParameterError(_core.v2_file_id_problem(self.id))
        return self.id

    @property
    def file_id_v8(self) -> str:
        """The id to pass as the v8 estimator's ``file_id``; a v1 station raises `ParameterError`."""
        if self.query_version != "v2":
            raise ParameterError(_core.v1_file_id_problem(self.id))
        return self.id


def _station(record: dict[str, Any] | None) -> Station | None:
    return None if record is None else Station(**record)


class StationQuery:
    """The answer of a dataset query.

    ``closest`` maps each dataset code (``tmy2``, ``tmy3``, ``intl``, ``satdb``, and any other code
    the service used) to its closest `Station` or None; ``all_stations`` lists every station within
    the radius (v1 with ``all=True``) by ascending distance; ``warnings``, ``errors``, ``inputs``
    (never the key), ``metadata``, ``version`` (the service's version string; None for csv) and
    ``raw`` (the body as received, key redacted) are as the service sent them.
    ``client.solar.data_query`` returns it; users do not construct it.

    Attributes
    ----------
    closest : dict of str to Station or None
        Dataset code to its closest station, or None when the dataset has none in range.
    all_stations : list of Station or None
        Every station within the radius by ascending distance (v1 with ``all=True``), else None.
    warnings : list of str
        The answer's warnings.
    errors : list of str
        The answer's errors.
    inputs : dict
        The query's inputs as the answer echoes them (never the key).
    metadata : dict
        The answer's ``metadata``.
    version : str or None
        The service's version string (None for csv).
    query_version : str
        The dataset query version asked: ``"v1"`` or ``"v2"``.
    raw : str
        The body as received, key redacted.
    """

    def __init__(self, core: _core.StationQuery) -> None:
        self._core = core
        self.warnings: list[str] = core.warnings
        self.errors: list[str] = core.errors
        self.inputs: dict[str, Any] = core.inputs()
        self.metadata: dict[str, Any] = core.metadata()
        self.version: str | None = core.version
        self.query_version: str = core.query_version
        self.raw: str = core.raw

    @functools.cached_property
    def closest(self) -> dict[str, Station | None]:
        """Dataset code → closest `Station`, or None when the dataset has no station in range."""
        return {code: _station(record) for code, record in self._core.closest()}

    @functools.cached_property
    def all_stations(self) -> list[Station] | None:
        """Every station within the radius by ascending distance (v1 with ``all=True``), else None."""
        stations = self._core.all_stations()
        return None if stations is None else [Station(**record) for record in stations]

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self._core.to_arrow().__arrow_c_stream__(requested_schema)

    def to_polars(self) -> pl.DataFrame:
        """One row per station: ``dataset``, ``closest`` and every station field, typed.

        Returns
        -------
        polars.DataFrame
            One row per station (latitude and longitude in degrees, ``distance`` and
            ``elevation`` in m, ``timezone`` in hours, as on `Station`).
        """
        return to_polars(self._core.to_arrow())

    def to_arrow(self) -> pa.Table:
        """The station table as a ``pyarrow.Table``.

        Returns
        -------
        pyarrow.Table
            The columns of `to_polars`.
        """
        return to_pyarrow(self._core.to_arrow())

    def to_pandas(self) -> pd.DataFrame:
        """The station table as a ``pandas.DataFrame``.

        Returns
        -------
        pandas.DataFrame
            The columns of `to_polars`.

        Raises
        ------
        ImportError
            pandas is not installed.
        """
        return to_pandas(self._core.to_arrow())

    def __repr__(self) -> str:
        found = ", ".join(f"{code}={s.id if s else None}" for code, s in self.closest.items())
        extra = "" if self.all_stations is None else f", all_stations={len(self.all_stations)}"
        return f"StationQuery({self.query_version}, {found}{extra}, warnings={len(self.warnings)})"


#: The note the service adds for each dataset without a station near the point.
_NO_DATA_NOTE = re.compile(r"No \w+ data found for ")


def _finish(core: _core.StationQuery) -> StationQuery:
    """The result; its warnings are raised as `ServiceWarning` only when they signal a problem:
    a dataset without a station is the normal state of a valid answer (most places lack one of
    the four), unless no dataset has one, which the caller should hear about."""
    result = StationQuery(core)
    found = any(station is not None for station in result.closest.values()) or bool(result.all_stations)
    for message in result.warnings:
        if found and _NO_DATA_NOTE.match(message):
            continue
        warn_service(message, stacklevel=3)
    return result


def parse_data_query(
    body: bytes | str,
    lat: float,
    lon: float,
    *,
    radius: int = 100,
    all: bool = False,
    version: QueryVersion = "v2",
    format: QueryFormat = "json",
) -> StationQuery:
    """Parse a dataset query answer that came from elsewhere (a file, another client).

    Parameters
    ----------
    body : bytes or str
        The answer's body.
    lat, lon : float
        The query's point, degrees north and east (csv bodies do not carry the request).
    radius : int, default 100
        The query's search radius, miles.
    all : bool, default False
        Whether the query asked for every station within ``radius``.
    version : {"v1", "v2"}, default "v2"
        The query's version.
    format : {"json", "xml", "csv"}, default "json"
        The body's format.

    Returns
    -------
    StationQuery
        The stations, as ``client.solar.data_query`` returns them.

    Raises
    ------
    ApiError
        The body is not a dataset query answer (the service's own messages stay on the result).
    """
    data = body.encode() if isinstance(body, str) else body
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ParameterError(f"body must be bytes or str (got {type(body).__name__})")
    return StationQuery(_core.parse_solar_data_query(bytes(data), lat, lon, radius, all, version, format))


class _SolarBase:
    """What both solar classes share: the service handle, the request's arguments and the result."""

    def __init__(self, handle: ServiceHandle) -> None:
        self._handle = handle

    def _data_query(
        self,
        lat: float,
        lon: float,
        *,
        radius: int = 100,
        all: bool = False,
        version: QueryVersion = "v2",
        format: QueryFormat = "json",
    ) -> Call[StationQuery]:
        """The closest station of each dataset to (lat, lon), and with ``all=True`` (v1) every
        station within ``radius`` miles.

        Parameters are checked before sending, every problem at once (`ParameterError`): lat
        -90..90, lon -180..180, radius an integer 0..2000 miles (0: closest regardless of distance),
        ``all`` needs radius > 0, version ``v1``/``v2``, format ``json``/``xml``/``csv``. The
        service's notes on datasets without a station stay on ``.warnings``; they are issued as
        `ServiceWarning` only when no dataset has a station, as are any other warnings.

        Parameters
        ----------
        lat : float
            Latitude (degrees north, -90 to 90).
        lon : float
            Longitude (degrees east, -180 to 180).
        radius : int, default 100
            Search radius (miles, 0 to 2000); 0 finds the closest station at any distance.
        all : bool, default False
            List every station within ``radius`` (v1 only; needs ``radius > 0``).
        version : {"v2", "v1"}, default "v2"
            The query's version (v1 ids serve the v6 estimator, v2 ids v8).
        format : {"json", "xml", "csv"}, default "json"
            The answer's format (the result is the same).

        Returns
        -------
        StationQuery
            The closest station of each dataset (``closest``), ``all_stations`` with ``all=True``,
            and the service's ``warnings``.

        Raises
        ------
        ParameterError
            A parameter is out of range (every problem listed, nothing sent).
        ApiError
            The service refused the request.
        """
        return core_call(
            _finish, _core.solar_data_query,
            self._handle.transport, lat, lon, radius, all, version, format, trace=self._handle.trace(),
        )


class SolarService(_SolarBase):
    """``client.solar``: the solar dataset query. The client builds it when it is made; users do
    not construct it."""

    data_query = blocking(_SolarBase._data_query)


@async_twin_of(SolarService)
class AsyncSolarService(_SolarBase):
    """``async_client.solar``: the solar dataset query, awaitable. The client builds it when it is
    made; users do not construct it."""

    data_query = awaitable(_SolarBase._data_query)
