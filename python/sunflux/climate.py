"""Climate download: ``client.climate.download_csv / request / fetch / bulk``.

One site-year streams as CSV and becomes a `ClimateTable` (typed metadata + a polars frame with a
tz-aware timestamp); any WKT and several years go through a download request whose zip `fetch`
turns into one long frame; `bulk` fans CSV requests out within the spec's limits with retries, a
progress bar and an on-disk Arrow IPC cache, so an interrupted run resumes without downloading
anything twice. Validation, requests and parsing happen in the Rust core.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from sunflux import _core
from sunflux._errors import ParameterError
from sunflux._frames import to_pandas, to_polars

if TYPE_CHECKING:
    from sunflux._client import AsyncClient, Client
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

#: The spec's attributes, in its order.
ATTRIBUTES = (
    "pressure_0m",
    "dhi",
    "dni",
    "ghi",
    "relativehumidity_2m",
    "temperature_2m",
    "winddirection_10m",
    "winddirection_100m",
    "winddirection_200m",
    "windspeed_10m",
    "windspeed_100m",
    "windspeed_200m",
)


@dataclass(frozen=True)
class ClimateMetadata:
    """The two metadata rows of a climate CSV, typed. ``time_zone`` is the offset of the stamps
    (0 for UTC); ``local_time_zone`` the site's standard time; ``columns`` maps each frame column
    to the file's long name; ``raw`` holds every metadata cell as written."""

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


def _metadata(record: dict[str, Any]) -> ClimateMetadata:
    return ClimateMetadata(**{name: record.get(name) for name in ClimateMetadata.__dataclass_fields__ if name in record})  # type: ignore[arg-type]


class ClimateTable:
    """One site and one year: ``metadata`` (`ClimateMetadata`) and ``data``, a polars frame with
    Year, Month, Day, Hour, Minute, ``timestamp`` (tz-aware) and one float column per attribute."""

    def __init__(self, core: _core.CoreClimateTable) -> None:
        self._core = core
        self.data = to_polars(core.to_arrow())

    @functools.cached_property
    def metadata(self) -> ClimateMetadata:
        """Typed on first use: reading only ``data`` does not pay for the metadata objects."""
        return _metadata(self._core.metadata())

    def __arrow_c_stream__(self, requested_schema: object | None = None) -> object:
        return self._core.to_arrow().__arrow_c_stream__(requested_schema)

    def to_pandas(self) -> Any:
        return to_pandas(self._core.to_arrow())

    def weather(self, *, local_time: bool = True) -> Weather:
        """This site-year as a weather year for `sunflux.pvwatts.simulate` (needs ghi, dni, dhi,
        a temperature and a wind speed; the lowest wind height is used). The records are instants
        at this table's stamps.

        By default the stamps are put in the site's standard time (``metadata.local_time_zone``),
        where PVWatts expects them, keeping each record's real date and order: a UTC year at
        UTC−7 runs from 31 December 17:00 of the year before to 31 December 16:00; nothing is
        moved from one end of the year to the other. The simulation's ``timestamp`` column holds
        the same instants as this table's, so the two frames join row for row once both are in
        one zone (half-hour zones included). A leap year downloaded without 29 February is a valid
        weather year (in local time it lacks the 24 hours that were 29 February in UTC).

        ``local_time=False`` keeps this table's own zone (UTC for ``utc=True`` downloads), as SSC
        reads NSRDB files in UTC: the results then equal SSC's on such a file, including SSC's
        sunrise rule, which at eastern longitudes counts some sunny UTC hours as night on days
        whose sunrise falls near midnight UTC."""
        from sunflux.pvwatts import read_weather

        needed = ("ghi", "dni", "dhi")
        missing = [name for name in needed if name not in self.data.columns]
        if missing:
            raise ParameterError(f"the table lacks {', '.join(missing)} for a PV simulation")
        if self.data.height == 0:
            raise ParameterError("the table has no rows to make a weather year of")
        m = self.metadata
        site = {"lat": m.latitude, "lon": m.longitude, "elevation": m.elevation if m.elevation is not None else 0.0}
        if not local_time or m.local_time_zone is None or m.local_time_zone == (m.time_zone or 0.0):
            return read_weather(self.data, tz=m.time_zone or 0.0, **site)
        import polars as pl

        tz = m.local_time_zone
        local = pl.col("timestamp").dt.convert_time_zone("UTC").dt.replace_time_zone(None) + pl.duration(minutes=round(tz * 60))
        frame = self.data.drop(["Year", "Month", "Day", "Hour", "Minute"], strict=False).with_columns(
            local.dt.year().alias("year"),
            local.dt.month().alias("month"),
            local.dt.day().alias("day"),
            local.dt.hour().alias("hour"),
            local.dt.minute().cast(pl.Float64).alias("minute"),
        )
        return read_weather(frame.drop("timestamp"), tz=tz, **site)

    def __repr__(self) -> str:
        m = self.metadata
        return f"ClimateTable({m.location_id} at {m.latitude}, {m.longitude}: {self.data.height} rows × {len(m.columns)} attributes)"


@dataclass(frozen=True)
class ClimateRequest:
    """The answer to a download request: the service's ``message`` and the ``download_url``
    (also e-mailed); ``raw`` is the answer body with the key redacted."""

    message: str
    download_url: str
    raw: str


class ClimateDownload:
    """Every CSV of a download zip: ``data`` (one long polars frame with ``site`` and ``year``
    columns) and ``sites`` (one metadata row per site); ``files`` lists the zip's entries."""

    def __init__(self, core: _core.CoreClimateZip) -> None:
        self._core = core
        self.data = to_polars(core.data())
        self.sites = to_polars(core.sites())
        self.files: list[str] = core.files

    def __repr__(self) -> str:
        return f"ClimateDownload({self.sites.height} sites, {len(self.files)} files, {self.data.height} rows)"


def parse_csv(body: bytes | str) -> ClimateTable:
    """Parses a climate CSV (two metadata rows, column names, data) that came from elsewhere."""
    return ClimateTable(_core.parse_climate_csv_bytes(body.encode() if isinstance(body, str) else body))


def parse_zip(body: bytes) -> ClimateDownload:
    """Parses a download zip that came from elsewhere."""
    return ClimateDownload(_core.parse_climate_zip_bytes(body))


def _attributes(attributes: Iterable[str] | str | None) -> str | None:
    if attributes is None:
        return None
    return attributes if isinstance(attributes, str) else ",".join(attributes)


def _years(years: Iterable[int] | int | str) -> Any:
    if isinstance(years, (int, str)):
        return years
    return ",".join(str(y) for y in years)


class _Progress:
    """tqdm when installed, otherwise a plain line on stderr every tenth of the work."""

    def __init__(self, total: int, enabled: bool, label: str) -> None:
        self.total = total
        self.done = 0
        self.bar: Any = None
        self.enabled = enabled
        self.label = label
        if enabled:
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=total, desc=label, unit="site-year")
            except ImportError:
                self.bar = None

    def advance(self, cached: bool) -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(1)
        elif self.done == self.total or self.done % max(1, self.total // 10) == 0:
            sys.stderr.write(f"{self.label}: {self.done}/{self.total} site-years{' (cached)' if cached else ''}\n")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class ClimateService:
    """``client.climate``: the climate download service."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def download_csv(
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
    ) -> ClimateTable:
        """Streams the CSV of one site and one year. Checked first, every problem at once
        (`ParameterError`): dataset slug, coordinates, year 2000–2014, attributes of the spec,
        e-mail; the row count is checked against the year and ``leap_day``."""
        core = _core.climate_download_csv(
            self._client._core, dataset, lat, lon, _years(year), _attributes(attributes), utc, leap_day, email,
            full_name, affiliation, reason, mailing_list, False, self._client._trace(),
        )
        return ClimateTable(core)

    def request(
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
        method: str = "POST",
    ) -> ClimateRequest:
        """Requests a download file for a POINT, MULTIPOINT or POLYGON and one or more years.
        POST sends a form body (the key never goes in it); GET sends a query string."""
        message, url, raw = _core.climate_request(
            self._client._core, dataset, wkt, _years(years), _attributes(attributes), utc, leap_day, email,
            full_name, affiliation, reason, mailing_list, method, False, self._client._trace(),
        )
        return ClimateRequest(message, url, raw)

    def fetch(self, download_url: str, *, wait: bool = True, timeout: float = 600.0) -> ClimateDownload:
        """Downloads the zip behind ``download_url`` (polling with backoff while it is not ready,
        up to ``timeout`` s, then `JobTimeout`) and parses every CSV in it. The API key is never
        sent to the file host."""
        return ClimateDownload(_core.climate_fetch(self._client._core, download_url, wait, timeout, False, self._client._trace()))

    def bulk(
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
        workers: int = 20,
    ) -> Any:
        """One CSV request per (point, year) — points are ``(lat, lon)`` — within the client's
        limits (csv at most 1 per second, at most 20 in flight), each retried on transient
        failures. With ``cache_dir``, every site-year is kept as an Arrow IPC file named by a hash
        of the request (without the key or e-mail), so an interrupted run resumes without
        downloading anything twice. Returns one long polars frame with ``site`` (the index in
        ``points``), ``year`` and the data columns."""
        import polars as pl

        year_list = list(years)
        jobs = [(site, lat, lon, year) for site, (lat, lon) in enumerate(points) for year in year_list]
        if not jobs:
            raise ParameterError("bulk needs at least one point and one year")
        attribute_text = _attributes(attributes)
        keys = {job: self._cache_key(dataset, job[1], job[2], job[3], attribute_text, utc, leap_day, email) for job in jobs}
        directory = None if cache_dir is None else os.fspath(cache_dir)
        if directory is not None:
            os.makedirs(directory, exist_ok=True)
        bar = _Progress(len(jobs), progress, f"climate {dataset}")
        frames: dict[tuple[int, float, float, int], Any] = {}

        def one(job: tuple[int, float, float, int]) -> tuple[tuple[int, float, float, int], Any, bool]:
            cached = _read_cache(directory, keys[job])
            if cached is not None:
                return job, cached, True
            _site, lat, lon, year = job
            table = self.download_csv(
                dataset, lat=lat, lon=lon, year=year, email=email, attributes=attribute_text, utc=utc, leap_day=leap_day,
                full_name=full_name, affiliation=affiliation, reason=reason, mailing_list=mailing_list,
            )
            _write_cache(directory, keys[job], table)
            return job, table.data, False

        import concurrent.futures  # here, not at the top: only bulk downloads use a thread pool

        try:
            with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(workers, 20))) as pool:
                for job, frame, cached in pool.map(one, jobs):
                    frames[job] = frame
                    bar.advance(cached)
        finally:
            bar.close()
        long = pl.concat(
            [frames[job].with_columns(pl.lit(job[0], dtype=pl.Int64).alias("site"), pl.lit(job[3], dtype=pl.Int32).alias("year")) for job in jobs],
            how="vertical_relaxed",
        )
        return long.select(["site", "year", *[c for c in long.columns if c not in ("site", "year")]])

    def _cache_key(
        self, dataset: str, lat: float, lon: float, year: int, attributes: str | None, utc: bool, leap_day: bool, email: str
    ) -> str:
        """The request's identity for the cache; the e-mail is only validated (it is not part of it)."""
        request = _core.climate_cache_key(dataset, lat, lon, year, attributes, utc, leap_day, email)
        return f"{self._client.base_url}|{request}"


_CACHE_KEY = b"sunflux_cache_key"


def _cache_path(directory: str, key: str) -> str:
    return os.path.join(directory, hashlib.sha256(key.encode()).hexdigest()[:32] + ".arrow")


def _read_cache(directory: str | None, key: str) -> Any:
    """The cached frame of ``key``, or None (a missing, unreadable or mismatched file is a miss)."""
    if directory is None:
        return None
    path = _cache_path(directory, key)
    if not os.path.exists(path):
        return None
    import polars as pl
    import pyarrow as pa

    try:
        with pa.memory_map(path) as source:
            table = pa.ipc.open_file(source).read_all()
    except (OSError, pa.ArrowInvalid):
        return None
    if (table.schema.metadata or {}).get(_CACHE_KEY) != key.encode():
        return None
    return pl.DataFrame(table)


def _write_cache(directory: str | None, key: str, table: ClimateTable) -> None:
    """Writes atomically (temporary file, then rename) so an interrupted run leaves no half file."""
    if directory is None:
        return
    import pyarrow as pa

    arrow = table.data.to_arrow()
    metadata = dict(arrow.schema.metadata or {})
    metadata[_CACHE_KEY] = key.encode()
    metadata[b"climate_metadata"] = json.dumps(table.metadata.__dict__, default=str).encode()
    arrow = arrow.replace_schema_metadata(metadata)
    path = _cache_path(directory, key)
    temporary = f"{path}.{os.getpid()}.part"
    with pa.OSFile(temporary, "wb") as sink, pa.ipc.new_file(sink, arrow.schema) as writer:
        writer.write_table(arrow)
    os.replace(temporary, path)


class AsyncClimateService:
    """``async_client.climate``: the same calls, awaitable (``bulk`` is on the blocking client)."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def download_csv(
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
    ) -> ClimateTable:
        core = await _core.climate_download_csv(
            self._client._core, dataset, lat, lon, _years(year), _attributes(attributes), utc, leap_day, email,
            full_name, affiliation, reason, mailing_list, True, self._client._trace(),
        )
        return ClimateTable(core)

    async def request(
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
        method: str = "POST",
    ) -> ClimateRequest:
        message, url, raw = await _core.climate_request(
            self._client._core, dataset, wkt, _years(years), _attributes(attributes), utc, leap_day, email,
            full_name, affiliation, reason, mailing_list, method, True, self._client._trace(),
        )
        return ClimateRequest(message, url, raw)

    async def fetch(self, download_url: str, *, wait: bool = True, timeout: float = 600.0) -> ClimateDownload:
        return ClimateDownload(await _core.climate_fetch(self._client._core, download_url, wait, timeout, True, self._client._trace()))
