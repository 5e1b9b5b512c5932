"""Climate download: ``client.climate.download_csv / request / fetch / bulk``.

One site-year streams as CSV and becomes a `ClimateTable` (typed metadata + a polars frame with a
tz-aware timestamp); any WKT and several years go through a download request whose zip `fetch`
turns into one long frame; `bulk` fans CSV requests out within the spec's limits with retries, a
progress bar and an on-disk Arrow IPC cache, so an interrupted run resumes without downloading
anything twice. Validation, requests and parsing happen in the Rust core.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from sunflux import _core
from sunflux._errors import ParameterError
from sunflux._frames import is_synthetic, to_pandas, to_polars
from sunflux._options import RequestMethod
from sunflux._twins import Call, async_twin_of, awaitable, blocking, core_call

if TYPE_CHECKING:
    import pandas as pd
    import polars as pl

    from sunflux._handle import ServiceHandle
    from sunflux.pvwatts import Weather

__all__ = [
    "ATTRIBUTES",
    "ClimateMetadata",
    "ClimateTable",
    "ClimateRequest",
    "ClimateDownload",
    "ClimateService",
    "AsyncClimateService",
    "parse_csv",
    "parse_zip",
]

#: The spec's attributes, in its order (the Rust core's list).
ATTRIBUTES: tuple[str, ...] = _core.CLIMATE_ATTRIBUTES


@dataclass(frozen=True, repr=False)
class ClimateMetadata:
    """The two metadata rows of a climate CSV, typed. ``time_zone`` is the offset of the stamps
    (0 for UTC); ``local_time_zone`` the site's standard time; ``columns`` maps each frame column
    to the file's long name and ``units`` each frame column to its unit (same keys as the
    frame's columns); ``raw`` holds every metadata cell as written; ``synthetic`` is True for
    the embedded service's generated weather (its ``source`` says so), which is not measured.
    A `ClimateTable` builds it from the file; users do not construct it. Texts a file leaves out
    are empty; numbers and the offshore flag it leaves out (or writes as ``-``) are None.

    Attributes
    ----------
    source : str
        The data set's source, as the file names it.
    location_id : str
        The file's location id.
    city : str
        The site's city.
    county : str
        The site's county.
    state : str
        The site's state or region.
    country : str
        The site's country.
    offshore : bool or None
        Whether the site is offshore.
    eez : str
        The exclusive economic zone of an offshore site.
    latitude : float or None
        The site's latitude [degrees north].
    longitude : float or None
        The site's longitude [degrees east].
    time_zone : float or None
        The offset of the time stamps from UTC [h] (0 for UTC data).
    elevation : float or None
        The site's elevation [m].
    local_time_zone : float or None
        The site's standard-time offset from UTC [h].
    units : dict of str to str
        Each frame column's unit, as the file writes it.
    version : str
        The data set's version, as the file gives it.
    columns : dict of str to str
        Each frame column's long name in the file.
    raw : dict of str to str
        Every metadata cell as written.
    synthetic : bool
        True for the embedded service's generated weather, which is not measured.
    place : str
        City, state, country as written (``-`` and empty parts left out).
    """

    source: str
    location_id: str
    city: str
    county: str
    state: str
    country: str
    offshore: bool | None
    eez: str
    latitude: float | None
    longitude: float | None
    time_zone: float | None
    elevation: float | None
    local_time_zone: float | None
    units: dict[str, str]
    version: str
    columns: dict[str, str] = field(default_factory=dict)
    raw: dict[str, str] = field(default_factory=dict)
    synthetic: bool = False

    @property
    def place(self) -> str:
        """City, state, country as written (``-`` and empty parts left out)."""
        return ", ".join(part for part in (self.city, self.state, self.country) if part and part != "-")

    def __repr__(self) -> str:
        zones = f"time_zone={self.time_zone:g}" if self.time_zone is not None else "time_zone=None"
        if self.local_time_zone is not None:
            zones += f", local_time_zone={self.local_time_zone:g}"
        return (
            f"ClimateMetadata({self.place or self.location_id!r}, lat={self.latitude}, lon={self.longitude}, "
            f"elevation={self.elevation}, {zones}, {len(self.columns)} columns, source={_clipped(self.source, 80)!r}{_synthetic(self.synthetic)})"
        )


def _synthetic(synthetic: bool) -> str:
    """The label a repr of the embedded service's generated weather ends with."""
    return ", synthetic" if synthetic else ""


def _clipped(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _metadata(record: dict[str, Any]) -> ClimateMetadata:
    return ClimateMetadata(**{name: record.get(name) for name in ClimateMetadata.__dataclass_fields__ if name in record})  # type: ignore[arg-type]


class ClimateTable:
    """One site and one year: ``metadata`` (`ClimateMetadata`) and ``data``, a polars frame with
    Year, Month, Day, Hour, Minute, ``timestamp`` (tz-aware) and one float column per attribute.
    ``client.climate.download_csv`` and `parse_csv` return it; users do not construct it.

    Attributes
    ----------
    data : polars.DataFrame
        The time stamps and one float column per attribute, in the data set's units (irradiance
        [W/m^2], temperature [°C], wind speed [m/s]; ``metadata.units`` lists each column's).
    metadata : ClimateMetadata
        The file's two metadata rows, typed on first use.
    """

    def __init__(self, core: _core.ClimateTable) -> None:
        self._core = core
        self.data: pl.DataFrame = to_polars(core.to_arrow())

    @functools.cached_property
    def metadata(self) -> ClimateMetadata:
        """Typed on first use: reading only ``data`` does not pay for the metadata objects."""
        return _metadata(self._core.metadata())

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self._core.to_arrow().__arrow_c_stream__(requested_schema)

    def to_pandas(self, *, index: bool = False) -> pd.DataFrame:
        """The table as a ``pandas.DataFrame``; ``index=True`` makes ``timestamp`` its tz-aware
        `DatetimeIndex`. ``attrs["synthetic"]`` is True for the embedded service's weather.

        Parameters
        ----------
        index : bool, default False
            Make the ``timestamp`` column the frame's tz-aware ``DatetimeIndex``.

        Returns
        -------
        pandas.DataFrame
            The columns of ``data`` in the data set's units (irradiance in W/m², temperature in
            °C, wind speed in m/s, as ``metadata.units`` lists them).

        Raises
        ------
        ImportError
            pandas is not installed.
        """
        return to_pandas(self._core.to_arrow(), index=index)

    def weather(self, *, local_time: bool = True) -> Weather:
        """This site-year as a weather year for `sunflux.pvwatts.simulate` (needs ghi, dni, dhi,
        a temperature and a wind speed; the lowest wind height is used). The records are instants
        at this table's stamps.

        By default the stamps are put in the site's standard time (``metadata.local_time_zone``),
        where PVWatts [1]_ expects them, keeping each record's real date and order: a UTC year at
        UTC−7 runs from 31 December 17:00 of the year before to 31 December 16:00; nothing is
        moved from one end of the year to the other. The simulation's ``timestamp`` column holds
        the same instants as this table's, so the two frames join row for row once both are in
        one zone (half-hour zones included). A leap year downloaded without 29 February is a valid
        weather year (in local time it lacks the 24 hours that were 29 February in UTC).

        ``local_time=False`` keeps this table's own zone (UTC for ``utc=True`` downloads), as SSC
        reads NSRDB files in UTC: the results then equal SSC's on such a file, including SSC's
        sunrise rule, which at eastern longitudes counts some sunny UTC hours as night on days
        whose sunrise falls near midnight UTC.

        Parameters
        ----------
        local_time : bool, default True
            Put the stamps in the site's standard time; False keeps the table's own zone.

        Returns
        -------
        Weather
            The records as instants: ghi, dni, dhi (W/m²), the temperature (°C) and the wind
            speed (m/s) of the lowest height.

        Raises
        ------
        ParameterError
            The table lacks an attribute PVWatts needs, or is not a weather year.

        References
        ----------
        .. [1] A. P. Dobos, "PVWatts Version 5 Manual", NREL/TP-6A20-62641, 2014.
        """
        from sunflux.pvwatts import Weather

        return Weather(_core.climate_weather(self._core.to_arrow(), local_time))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles the table as Arrow (its buffers travel out of band with protocol 5) and the
        metadata record; the copy is rebuilt through the same constructor."""
        from sunflux._frames import to_pyarrow

        return ClimateTable, (_SavedClimateTable(to_pyarrow(self._core.to_arrow()), self._core.metadata()),)

    def __repr__(self) -> str:
        m = self.metadata
        return f"ClimateTable({m.location_id} at {m.latitude}, {m.longitude}: {self.data.height} rows × {len(m.columns)} attributes{_synthetic(m.synthetic)})"


class _SavedClimateTable:
    """The table and metadata record of a `_core.ClimateTable` in pyarrow and plain Python, so
    that a pickled `ClimateTable` is rebuilt through the same constructor."""

    def __init__(self, table: Any, record: dict[str, Any]) -> None:
        self._table, self._record = table, record

    def metadata(self) -> dict[str, Any]:
        return dict(self._record)

    def to_arrow(self) -> Any:
        """A fresh table object over the same buffers (`to_pandas` converts with self_destruct)."""
        return self._table.slice(0)


@dataclass(frozen=True)
class ClimateRequest:
    """The answer to a download request: the service's ``message`` and the ``download_url``
    (also e-mailed); ``raw`` is the answer body with the key redacted.
    ``client.climate.request`` returns it; users do not construct it.

    Attributes
    ----------
    message : str
        The service's message.
    download_url : str
        Where the zip will be (also e-mailed).
    raw : str
        The answer body, the key redacted.
    """

    message: str
    download_url: str
    raw: str


class ClimateDownload:
    """Every CSV of a download zip: ``data`` (one long polars frame with ``site`` and ``year``
    columns) and ``sites`` (one metadata row per site); ``files`` lists the zip's entries;
    ``synthetic`` is True when it holds the embedded service's generated weather.
    ``client.climate.fetch`` and `parse_zip` return it; users do not construct it.

    Attributes
    ----------
    data : polars.DataFrame
        Every CSV's rows, with ``site`` and ``year`` columns, in the data set's units
        (irradiance [W/m^2], temperature [°C], wind speed [m/s]).
    sites : polars.DataFrame
        One metadata row per site (the `ClimateMetadata` fields; latitude and longitude in
        degrees, elevation in m, time zones in hours).
    files : list of str
        The zip's entries.
    synthetic : bool
        True when the zip holds the embedded service's generated weather.
    """

    def __init__(self, core: _core.ClimateZip) -> None:
        self._core = core
        self.data: pl.DataFrame = to_polars(core.data())
        self.sites: pl.DataFrame = to_polars(core.sites())
        self.files: list[str] = core.files
        self.synthetic: bool = is_synthetic(core.data())

    def to_pandas(self, *, index: bool = False) -> pd.DataFrame:
        """``data`` as a ``pandas.DataFrame``; ``index=True`` makes ``timestamp`` its tz-aware
        `DatetimeIndex`. ``attrs["synthetic"]`` is True for the embedded service's weather.

        Parameters
        ----------
        index : bool, default False
            Make the ``timestamp`` column the frame's tz-aware ``DatetimeIndex``.

        Returns
        -------
        pandas.DataFrame
            The ``site`` and ``year`` columns and every attribute of the download, in the data
            set's units (W/m², °C, m/s).

        Raises
        ------
        ImportError
            pandas is not installed.
        """
        return to_pandas(self._core.data(), index=index)

    def __repr__(self) -> str:
        return f"ClimateDownload({self.sites.height} sites, {len(self.files)} files, {self.data.height} rows{_synthetic(self.synthetic)})"


def parse_csv(body: bytes | str, *, whole_year: bool = True) -> ClimateTable:
    """Parse a climate CSV (two metadata rows, column names, data) that came from elsewhere.

    Parameters
    ----------
    body : bytes or str
        The CSV.
    whole_year : bool, default True
        Require one whole calendar year (the year of the first row, at the interval of the
        first two rows, with 29 February when present); False reads any number of rows.

    Returns
    -------
    ClimateTable
        The rows and the file's metadata, as ``client.climate.download_csv`` returns them.

    Raises
    ------
    ApiError
        A truncated, padded or doubled year (naming the rows expected), or a body that is not a
        climate CSV."""
    if isinstance(body, str):
        body = body.encode()
    if not isinstance(body, (bytes, bytearray, memoryview)):
        raise ParameterError(f"body must be bytes or str (got {type(body).__name__})")
    if not isinstance(whole_year, bool):
        raise ParameterError(f"whole_year must be True or False (got {type(whole_year).__name__})")
    return ClimateTable(_core.parse_climate_csv_bytes(bytes(body), whole_year))


def parse_zip(body: bytes, *, max_unzipped: int | None = None) -> ClimateDownload:
    """Parse a download zip that came from elsewhere (a file, another client).

    Parameters
    ----------
    body : bytes
        The zip.
    max_unzipped : int, optional
        Bytes the CSVs may inflate to in all (default:
        ``sunflux.limits()["max_bytes.climate_unzipped"]``); also at most 100 times the zip's size.

    Returns
    -------
    ClimateDownload
        One `ClimateTable` per CSV; each must be one whole year."""
    if not isinstance(body, (bytes, bytearray, memoryview)):
        raise ParameterError(f"body must be bytes (got {type(body).__name__})")
    return ClimateDownload(_core.parse_climate_zip_bytes(bytes(body), max_unzipped))


def _attributes(attributes: Iterable[str] | str | None) -> Any:
    """A list of names as the comma-joined text the core validates; anything else is passed on
    as it is, for the core to name the problem."""
    if isinstance(attributes, (list, tuple)) and all(isinstance(a, str) for a in attributes):
        return ",".join(attributes)
    return attributes


def _years(years: Iterable[int] | int | str) -> Any:
    if isinstance(years, (list, tuple, range)) and all(isinstance(y, int) and not isinstance(y, bool) for y in years):
        return ",".join(str(y) for y in years)
    return years


#: The core's arguments of one CSV download (`_core.climate_download_csv`).
_CsvArgs = tuple[_core.Transport, str, float, float, object, object, bool, bool, str, "str | None", "str | None", "str | None", bool]
#: The core's arguments of one download request (`_core.climate_request`).
_RequestArgs = tuple[
    _core.Transport, str, str, object, object, bool, bool, str, "str | None", "str | None", "str | None", bool, str
]


class _ClimateBase:
    """What both climate classes share: the service handle, the requests' arguments (lists joined
    as the core reads them) and the bulk download's plan."""

    def __init__(self, handle: ServiceHandle) -> None:
        self._handle = handle

    def _csv_args(
        self, dataset: str, lat: float, lon: float, year: int, email: str, attributes: Iterable[str] | str | None, utc: bool,
        leap_day: bool, full_name: str | None, affiliation: str | None, reason: str | None, mailing_list: bool,
    ) -> _CsvArgs:
        return (
            self._handle.transport, dataset, lat, lon, _years(year), _attributes(attributes), utc, leap_day, email,
            full_name, affiliation, reason, mailing_list,
        )

    def _request_args(
        self, dataset: str, wkt: str, years: Iterable[int] | int | str, email: str, attributes: Iterable[str] | str | None,
        utc: bool, leap_day: bool, full_name: str | None, affiliation: str | None, reason: str | None, mailing_list: bool,
        method: RequestMethod,
    ) -> _RequestArgs:
        return (
            self._handle.transport, dataset, wkt, _years(years), _attributes(attributes), utc, leap_day, email,
            full_name, affiliation, reason, mailing_list, method,
        )

    def _cache_key(
        self, dataset: str, lat: float, lon: float, year: int, attributes: str | None, utc: bool, leap_day: bool, email: str
    ) -> str:
        """The request's identity for the cache: the service's canonical origin (every spelling
        of loopback alike) and the data parameters; the e-mail is only validated."""
        request = _core.climate_cache_key(dataset, lat, lon, year, attributes, utc, leap_day, email)
        return f"{self._handle.transport.cache_origin}|{request}"

    def _download_csv(
        self,
        dataset: str,
        *,
        lat: float,
        lon: float,
        year: int,
        email: str,
        attributes: Iterable[str] | str | None = None,
        utc: bool = True,
        leap_day: bool = False,
        full_name: str | None = None,
        affiliation: str | None = None,
        reason: str | None = None,
        mailing_list: bool = False,
    ) -> Call[ClimateTable]:
        """Stream the CSV of one site and one year into a table.

        Every argument is checked before anything is sent, and every problem is reported at once.
        The row count is checked against the year and ``leap_day``.

        Parameters
        ----------
        dataset : str
            Data set slug. A slug starting with ``nsrdb-`` (GOES v4: aggregated, full-disc,
            conus, tmy) takes the NSRDB download path; any other, the climate download
            (``ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5``, ``...-RCP8-5``).
        lat, lon : float
            Point, degrees north and east (WGS 84); it must lie in the data set's region.
        year : int
            Calendar year: 2000–2014 for the climate sets, 1998–2024 for the NSRDB (the service
            refuses a year a particular set lacks).
        email : str
            The requester's address, which the service requires; masked in every message.
        attributes : iterable of str or str, optional
            Columns to download, by the family's own names (NSRDB: ``air_temperature``,
            ``wind_speed``, ...); a comma-separated string or a list. Default: the data set's
            standard columns.
        utc : bool, default True
            Stamp the rows in UTC; False gives the site's local standard time.
        leap_day : bool, default False
            Keep 29 February in leap years (8,784 hourly rows instead of 8,760).
        full_name, affiliation, reason : str, optional
            Requester details the service records.
        mailing_list : bool, default False
            Join the service's mailing list.

        Returns
        -------
        ClimateTable
            The rows as a polars frame (``.data``, tz-aware ``timestamp`` at the start of each
            interval; irradiance in W/m², temperature in °C, wind speed in m/s) and the file's
            header (``.metadata``); ``.weather()`` gives a `sunflux.pvwatts.Weather`.

        Raises
        ------
        ParameterError
            An argument is wrong (slug, coordinates, year, attributes, e-mail); nothing was sent.
        ApiError
            The service refused the request (unknown set, point outside its region, quota).
        TransportError
            The download could not be completed within ``timeout``/``deadline``.
        """
        args = self._csv_args(dataset, lat, lon, year, email, attributes, utc, leap_day, full_name, affiliation, reason, mailing_list)
        return core_call(ClimateTable, _core.climate_download_csv, *args, trace=self._handle.trace())

    def _request(
        self,
        dataset: str,
        *,
        wkt: str,
        years: Iterable[int] | int | str,
        email: str,
        attributes: Iterable[str] | str | None = None,
        utc: bool = True,
        leap_day: bool = False,
        full_name: str | None = None,
        affiliation: str | None = None,
        reason: str | None = None,
        mailing_list: bool = False,
        method: RequestMethod = "POST",
    ) -> Call[ClimateRequest]:
        """Request a download file for a POINT, MULTIPOINT or POLYGON and one or more years.

        The service prepares a zip and answers with its URL (and e-mails it); `fetch` reads it.

        Parameters
        ----------
        dataset : str
            Data set slug, as in `download_csv`.
        wkt : str
            ``POINT(lon lat)``, ``MULTIPOINT(...)`` or ``POLYGON((...))`` in degrees (longitude first).
        years : int, iterable of int, or str
            Calendar years (2000–2014 for the climate sets, 1998–2024 for the NSRDB).
        email : str
            The requester's address, which the service requires; masked in every message.
        attributes : iterable of str or str, optional
            Columns, by the family's own names; a list or a comma-separated string. Default: the
            data set's standard columns.
        utc : bool, default True
            Stamp the rows in UTC; False gives the site's local standard time.
        leap_day : bool, default False
            Keep 29 February in leap years.
        full_name, affiliation, reason : str, optional
            Requester details the service records.
        mailing_list : bool, default False
            Join the service's mailing list.
        method : {"POST", "GET"}, default "POST"
            POST sends a form body (the key never goes in it); GET sends a query string.

        Returns
        -------
        ClimateRequest
            The request's id, ``download_url`` and the service's messages.

        Raises
        ------
        ParameterError
            An argument is wrong (slug, geometry, years, attributes, e-mail); nothing was sent.
        ApiError
            The service refused the request (its messages in ``.errors``).
        """
        args = self._request_args(dataset, wkt, years, email, attributes, utc, leap_day, full_name, affiliation, reason, mailing_list, method)
        return core_call(_climate_request, _core.climate_request, *args, trace=self._handle.trace())

    def _fetch(self, download_url: str, *, wait: bool = True, timeout: float = 600.0) -> Call[ClimateDownload]:
        """Download the zip behind ``download_url`` and parse every CSV in it.

        The API key is never sent to the file host.

        Parameters
        ----------
        download_url : str
            The ``download_url`` of a `ClimateRequest`.
        wait : bool, default True
            Poll with backoff while the file is not ready yet.
        timeout : float, default 600
            Seconds to wait for the file.

        Returns
        -------
        ClimateDownload
            One `ClimateTable` per CSV of the zip.

        Raises
        ------
        JobTimeout
            The file was not ready within ``timeout``.
        ParameterError
            The zip breaks a size or shape limit (see `sunflux.limits`).
        """
        return core_call(
            ClimateDownload, _core.climate_fetch,
            self._handle.transport, download_url, wait, timeout, trace=self._handle.trace(),
        )

    def _bulk(
        self,
        dataset: str,
        *,
        points: Sequence[tuple[float, float]],
        years: Iterable[int],
        email: str,
        attributes: Iterable[str] | str | None = None,
        utc: bool = True,
        leap_day: bool = False,
        full_name: str | None = None,
        affiliation: str | None = None,
        reason: str | None = None,
        mailing_list: bool = False,
        cache_dir: str | os.PathLike[str] | None = None,
        progress: bool = True,
        workers: int = _core.CLIMATE_IN_FLIGHT,
    ) -> Call[pl.DataFrame]:
        """Download many site-years, resumable, within the client's limits.

        One CSV request per (point, year), within the client's limits (at most 1 per second and
        20 in flight), each retried on transient failures. Ctrl-C (or cancelling the awaiting
        task) stops every download within about 100 ms and leaves only complete entries in the
        cache.

        Parameters
        ----------
        dataset : str
            Data set slug, as in `download_csv`.
        points : sequence of (lat, lon)
            Sites, degrees north and east.
        years : iterable of int
            Calendar years, as in `download_csv`.
        email : str
            The requester's address, which the service requires; masked in every message.
        attributes : iterable of str or str, optional
            Columns, by the family's own names; a list or a comma-separated string. Default: the
            data set's standard columns.
        utc : bool, default True
            Stamp the rows in UTC; False gives the site's local standard time.
        leap_day : bool, default False
            Keep 29 February in leap years.
        full_name, affiliation, reason : str, optional
            Requester details the service records.
        mailing_list : bool, default False
            Join the service's mailing list.
        cache_dir : str or path-like, optional
            Keep every site-year as an Arrow IPC file named by a hash of the request (without the
            key or e-mail) and a checksum of its content, so an interrupted run resumes without
            downloading anything twice and a damaged file is downloaded again. A path or an
            fsspec URL (``s3://bucket/climate``).
        progress : bool, default True
            Show a progress bar.
        workers : int, default 20
            Downloads running at once (at most 20).

        Returns
        -------
        polars.DataFrame
            One long frame with ``site`` (the index in ``points``), ``year`` and the data columns;
            with ``utc=False`` also ``local_time`` (each site's standard-time clock, no zone), and
            the timestamps are in UTC when the sites' zones differ. For a ``utc=True`` download's
            local time, stack its sites' `ClimateTable` objects with `sunflux.stack_sites`.

        Raises
        ------
        ParameterError
            An argument is wrong; nothing was sent.
        ApiError
            The service refused a site-year.
        """
        from sunflux._climate_bulk import BulkPlan, bulk_in_tasks, bulk_in_threads

        plan = BulkPlan(self, dataset, points, years, email, _attributes(attributes), utc, leap_day, full_name, affiliation, reason, mailing_list, cache_dir, progress, workers,
                        ClimateTable)
        trace = self._handle.trace()
        return Call(lambda: bulk_in_threads(plan, trace), lambda: bulk_in_tasks(plan, trace))


def _climate_request(answer: tuple[str, str, str]) -> ClimateRequest:
    return ClimateRequest(*answer)


class ClimateService(_ClimateBase):
    """``client.climate``: the climate download service. The client builds it when it is made;
    users do not construct it."""

    download_csv = blocking(_ClimateBase._download_csv)
    request = blocking(_ClimateBase._request)
    fetch = blocking(_ClimateBase._fetch)
    bulk = blocking(_ClimateBase._bulk)


@async_twin_of(ClimateService)
class AsyncClimateService(_ClimateBase):
    """``async_client.climate``: the climate download service, awaitable. The client builds it
    when it is made; users do not construct it."""

    download_csv = awaitable(_ClimateBase._download_csv)
    request = awaitable(_ClimateBase._request)
    fetch = awaitable(_ClimateBase._fetch)
    bulk = awaitable(_ClimateBase._bulk)
