"""`bulk_download`: climate CSV site-years fanned out over a Dask cluster, within the spec's
per-key limits for the whole cluster, into one cache every worker reaches.

Each site-year is one task. Before it sends, a task takes a lease of a `distributed.Semaphore`
(the in-flight cap) and books a send time in a log kept in the scheduler's metadata store
(``Client.set_metadata``) under a `distributed.Lock` (the interval and the rolling daily cap).
All three live on the scheduler, so every worker of every `bulk_download` with the same key and
service shares them. Every attempt books, retries included, so the client transport's own
retries are off on the workers. docs/design.md ("Dask") holds the rules.
"""

from __future__ import annotations

import functools
import hashlib
import os
import random
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sunflux import _core
from sunflux._cache import SiteYearCache
from sunflux._client import Client, ServiceLimits, resolve_api_key
from sunflux._errors import ParameterError, RateLimitError, ServerError, TransportError

if TYPE_CHECKING:
    import dask.dataframe as dd
    import distributed

__all__ = ["ClientConfig", "CsvRequest", "bulk_download"]

_DAY = 86_400.0
#: A `Retry-After` longer than this is not waited for (as the transport's own retries).
_LONGEST_RETRY_AFTER = 120.0
_LONGEST_BACKOFF = 30.0
#: Bookings are a quarter of the interval further apart than the spec asks: a booking is when a
#: worker means to send, and a loaded worker sends late (200 ms was seen on 2 busy cores), which
#: brings its send closer to the next one, booked on time; the service tolerates a tenth.
_SEND_MARGIN = 0.25


class _Secret:
    """A value that pickles as itself but is never shown: repr and str are ``***``."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "'***'"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (_Secret, (self._value,))


@dataclass(frozen=True)
class ClientConfig:
    """How every worker builds its `sunflux.Client`: the `Client` arguments that matter for
    downloads, as a value that pickles (it travels with the tasks) and is hashable.

    ``api_key=None`` (recommended on shared clusters) lets each worker find the key in its own
    environment (``SUNFLUX_API_KEY``, ``NLR_API_KEY``, ``NREL_API_KEY``), so the key is never in the
    task graph. A key given here travels in the pickled tasks (use Dask's TLS on a cluster others
    can reach) but is shown nowhere: the repr, str and ``vars()`` of the config show ``***``.
    ``limits={"climate_csv": ServiceLimits(...)}`` replaces the spec's CSV limits for the whole
    cluster, as it does for one `Client`.

    Parameters
    ----------
    api_key : str, optional
        The 40-character key; by default each worker's ``SUNFLUX_API_KEY``, ``NLR_API_KEY`` or
        ``NREL_API_KEY``. Kept masked (``***``).
    base_url : str, optional
        As for `Client`: by default ``SUNFLUX_BASE_URL`` or the public host.
    auth : {"header", "query", "basic"}, default "header"
        How the key travels, as for `Client`.
    routes : {"spec", "nlr"}, optional
        The route profile, as for `Client`.
    timeout : float, default 60.0
        Time for one attempt [s].
    retries : int, default 3
        Extra attempts for one site-year; `bulk_download` retries them itself (the worker's
        client has its transport retries off).
    backoff : float, default 0.5
        First delay between attempts [s].
    throttle : bool, default True
        Keep the spec's client-side limits, shared across the cluster.
    limits : mapping of str to ServiceLimits, optional
        Replaces named limits, e.g. ``{"climate_csv": ServiceLimits(min_interval=0.5)}``; kept
        as a sorted tuple of pairs so that the config is hashable.
    """

    api_key: Any = None
    base_url: str | None = None
    auth: str = "header"
    routes: str | None = None
    timeout: float = 60.0
    retries: int = 3
    backoff: float = 0.5
    throttle: bool = True
    limits: Any = None

    def __post_init__(self) -> None:
        if self.api_key is not None and not isinstance(self.api_key, _Secret):
            if not isinstance(self.api_key, str):
                raise ParameterError(f"api_key must be a string (got {type(self.api_key).__name__})")
            object.__setattr__(self, "api_key", _Secret(self.api_key))
        if isinstance(self.limits, Mapping):
            object.__setattr__(self, "limits", tuple(sorted(self.limits.items())))
        elif self.limits is not None and not isinstance(self.limits, tuple):
            raise ParameterError(f"limits must be a mapping of names to ServiceLimits (got {type(self.limits).__name__})")
        problems = [
            f"limits[{name!r}] must be a ServiceLimits (got {type(value).__name__})"
            for name, value in self.limits or ()
            if not isinstance(value, ServiceLimits)
        ]
        if problems:
            raise ParameterError(problems)

    def client(self) -> Client:
        """A `Client` with these settings and the transport's retries off: `bulk_download`
        retries itself, booking a cluster-wide slot for every attempt.

        Returns
        -------
        Client
            A new client (``retries=0``); close it when done.
        """
        return Client(
            api_key=None if self.api_key is None else self.api_key.reveal(),
            base_url=self.base_url,
            auth=self.auth,
            routes=self.routes,
            timeout=self.timeout,
            retries=0,
            throttle=self.throttle,
            limits=dict(self.limits) if self.limits else None,
        )

    def csv_limits(self) -> ServiceLimits:
        """The CSV limits the cluster keeps: ``limits["climate_csv"]``, else the spec's.

        Returns
        -------
        ServiceLimits
            Requests per window, the window (s), the least interval between requests (s) and
            the requests in flight at once.
        """
        given: ServiceLimits | None = dict(self.limits or ()).get("climate_csv")
        if given is not None:
            return given
        return ServiceLimits(
            per_window=_core.CLIMATE_CSV_PER_DAY,
            window=_DAY,
            min_interval=_core.CLIMATE_CSV_INTERVAL,
            in_flight=_core.CLIMATE_IN_FLIGHT,
        )


@dataclass(frozen=True)
class CsvRequest:
    """One site-year of the climate download, as ``client.climate.download_csv`` takes it.

    Parameters
    ----------
    dataset : str
        The data set slug.
    lat, lon : float
        The point [degrees north, degrees east].
    year : int
        The calendar year.
    email : str
        The requester's address, which the service requires.
    attributes : tuple of str or str, optional
        Columns to download (a tuple of names or comma-separated text); by default the data
        set's standard columns.
    utc : bool, default True
        Stamp the rows in UTC; False gives the site's local standard time.
    leap_day : bool, default False
        Keep 29 February in leap years.
    """

    dataset: str
    lat: float
    lon: float
    year: int
    email: str
    attributes: tuple[str, ...] | str | None = None
    utc: bool = True
    leap_day: bool = False

    def attribute_text(self) -> Any:
        """The attributes as the service's comma-separated text when given as a list of names,
        else as given.

        Returns
        -------
        str or object
            ``"ghi,dni,..."`` for a list of names, else ``attributes`` unchanged.
        """
        if isinstance(self.attributes, (list, tuple)) and all(isinstance(a, str) for a in self.attributes):
            return ",".join(self.attributes)
        return self.attributes


@dataclass(frozen=True)
class _ClusterLimits:
    """One key's CSV limits, shared on the scheduler under ``name`` (a hash of the key and the
    service's origin: never the key)."""

    name: str
    interval: float
    per_window: int | None
    window: float
    in_flight: int | None

    def book(self) -> float:
        """The wall-clock time this caller may send at: the earliest that keeps the interval (and
        its margin) after the last booking and at most ``per_window`` bookings in any rolling
        ``window``."""
        from distributed import Lock, get_client

        scheduler = get_client()
        with Lock(f"{self.name}-book"):
            sends: list[float] = list(scheduler.get_metadata([self.name, "sends"], default=[]))
            now = time.time()
            sends = [at for at in sends if at > now - self.window]
            slot = now
            if sends:
                slot = max(slot, sends[-1] + self.interval * (1 + _SEND_MARGIN))
            if self.per_window is not None and len(sends) >= self.per_window:
                slot = max(slot, sends[-self.per_window] + self.window)
            sends.append(slot)
            scheduler.set_metadata([self.name, "sends"], sends)
        return slot

    def in_flight_lease(self) -> Any:
        from contextlib import nullcontext

        from distributed import Semaphore

        if self.in_flight is None:
            return nullcontext()
        return Semaphore(max_leases=self.in_flight, name=f"{self.name}-in-flight")


def bulk_download(
    client_config: ClientConfig,
    requests: Iterable[CsvRequest | Mapping[str, object]],
    cache: str | os.PathLike[str],
    *,
    dask_client: distributed.Client | None = None,
) -> dd.DataFrame:
    """Download every site-year of ``requests`` on the workers of a Dask cluster into ``cache``.

    The spec's CSV limits hold for the whole cluster (one request per second and 20 in flight
    per key, the rolling 24-hour cap included), whatever the number of workers. A site-year
    already in the cache is never downloaded again (also when a task is retried after its
    worker died), and a half-written entry is never read.

    Parameters
    ----------
    client_config : ClientConfig
        The `sunflux.Client` arguments each worker builds its client from (the key is never
        shown in a repr; ``api_key=None`` lets each worker find its own).
    requests : iterable of CsvRequest or mapping
        One site-year each (data set, lat/lon in degrees, year, e-mail, attributes, ...), as
        ``client.climate.download_csv`` takes them; all are checked before anything is sent.
    cache : str or path-like
        A directory every worker reaches — a shared path or an fsspec URL — holding one
        checksummed Arrow IPC entry per site-year.
    dask_client : distributed.Client, optional
        The cluster to use: by default the current client, else a ``LocalCluster`` made for
        this call.

    Returns
    -------
    dask.dataframe.DataFrame
        Lazy, one partition per site-year read from the cache: ``request`` (the index in
        ``requests``), ``lat``, ``lon``, ``year`` and the data columns of
        ``client.climate.download_csv`` (W/m², °C, m/s).

    Raises
    ------
    ParameterError
        A request is wrong, naming every problem; nothing was sent.
    ApiError
        The service refused a site-year (raised when the frame is computed).
    """
    if not isinstance(client_config, ClientConfig):
        raise ParameterError(f"client_config must be a sunflux.distributed.ClientConfig (got {type(client_config).__name__})")
    if not isinstance(cache, (str, os.PathLike)):
        raise ParameterError(f"cache must be a directory path or an fsspec URL (got {type(cache).__name__})")
    cache_dir = os.fspath(cache)
    checked = _checked_requests(requests)
    driver = client_config.client()
    keys = [
        driver.climate._cache_key(r.dataset, r.lat, r.lon, r.year, r.attribute_text(), r.utc, r.leap_day, r.email)
        for r in checked
    ]
    limits = _cluster_limits(client_config, driver)
    driver.close()
    unique = list(dict.fromkeys(keys))
    request_of = dict(zip(keys, checked))
    SiteYearCache(cache_dir)  # made (and checked reachable) once, before any task runs
    if dask_client is not None:
        return _run(dask_client, client_config, limits, cache_dir, unique, request_of, keys, checked)
    from distributed import Client as DaskClient
    from distributed import LocalCluster, default_client

    try:
        current = default_client()
    except ValueError:
        with LocalCluster(processes=True, dashboard_address=":0") as cluster, DaskClient(cluster) as local:
            return _run(local, client_config, limits, cache_dir, unique, request_of, keys, checked)
    return _run(current, client_config, limits, cache_dir, unique, request_of, keys, checked)


def _run(
    dask_client: Any,
    config: ClientConfig,
    limits: _ClusterLimits,
    cache_dir: str,
    unique: list[str],
    request_of: dict[str, CsvRequest],
    keys: list[str],
    checked: list[CsvRequest],
) -> dd.DataFrame:
    import dask.dataframe as dd
    from distributed import wait

    # Each call names its own tasks: the cancelled tasks of a failed call, whose futures a
    # traceback may still hold, must not stand in for the next call's.
    call = uuid.uuid4().hex[:12]
    futures = [
        dask_client.submit(
            _download, config, limits, cache_dir, key, request_of[key], key=f"sunflux-csv-{_hash(key)}-{call}", pure=False
        )
        for key in unique
    ]
    try:
        wait(futures)
        dask_client.gather(futures)
    except BaseException:  # Ctrl-C or a failed site-year: stop what has not started
        dask_client.cancel(futures)
        raise
    parts = [(cache_dir, key, index, request) for index, (key, request) in enumerate(zip(keys, checked))]
    meta = dask_client.submit(_read_part, parts[0], pure=False).result().iloc[:0]
    frame: dd.DataFrame = dd.from_map(_read_part, parts, meta=meta, enforce_metadata=False)
    return frame


def _checked_requests(requests: Iterable[CsvRequest | Mapping[str, Any]]) -> list[CsvRequest]:
    if isinstance(requests, (str, bytes, Mapping)) or not isinstance(requests, Iterable):
        raise ParameterError(f"requests must be a list of CsvRequest or of mappings (got {type(requests).__name__})")
    checked: list[CsvRequest] = []
    problems: list[str] = []
    for index, request in enumerate(requests):
        if isinstance(request, CsvRequest):
            checked.append(request)
        elif isinstance(request, Mapping):
            try:
                checked.append(CsvRequest(**request))
            except TypeError as error:
                problems.append(f"requests[{index}]: {error}")
        else:
            problems.append(f"requests[{index}]: a CsvRequest or a mapping, not {type(request).__name__}")
    for index, request in enumerate(checked):
        try:
            _core.climate_cache_key(
                request.dataset, request.lat, request.lon, request.year, request.attribute_text(), request.utc,
                request.leap_day, request.email,
            )
        except ParameterError as error:
            problems.extend(f"requests[{index}]: {problem}" for problem in (error.errors or [str(error)]))
    if not checked and not problems:
        problems.append("requests is empty: give at least one site-year")
    if problems:
        raise ParameterError(problems)
    return checked


def _cluster_limits(config: ClientConfig, driver: Client) -> _ClusterLimits:
    csv = config.csv_limits()
    # Without a key in the config, the workers read theirs from the environment: the driver's is
    # taken to be the same (one key per cluster), which is what names the shared limits.
    key = config.api_key.reveal() if config.api_key is not None else resolve_api_key(None) or ""
    name = "sunflux-climate-csv-" + _hash(f"{driver._transport.cache_origin}|{key}")
    return _ClusterLimits(
        name=name,
        interval=csv.min_interval or 0.0,
        per_window=csv.per_window,
        window=csv.window,
        in_flight=csv.in_flight,
    )


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@functools.lru_cache(maxsize=8)
def _worker_client(config: ClientConfig) -> Client:
    return config.client()


def _download(config: ClientConfig, limits: _ClusterLimits, cache_dir: str, key: str, request: CsvRequest) -> bool:
    """Runs on a worker: True when the site-year was downloaded, False when it was cached."""
    cache = SiteYearCache(cache_dir)
    if cache.read(key) is not None:
        return False
    client = _worker_client(config)
    attempt = 0
    while True:
        try:
            with limits.in_flight_lease():
                _sleep_until(limits.book())
                table = client.climate.download_csv(
                    request.dataset, lat=request.lat, lon=request.lon, year=request.year, email=request.email,
                    attributes=request.attribute_text(), utc=request.utc, leap_day=request.leap_day,
                )
        except (TransportError, ServerError, RateLimitError) as error:
            wait = _retry_wait(error, attempt, config)
            if wait is None:
                raise
            time.sleep(wait)
            attempt += 1
            continue
        cache.write(key, table)
        return True


def _retry_wait(error: Exception, attempt: int, config: ClientConfig) -> float | None:
    """Seconds to wait before the next attempt, or None to give up (as the transport decides:
    exponential backoff with jitter; a longer `Retry-After` wins, one above 120 s is not waited for)."""
    if attempt >= config.retries:
        return None
    wait = min(config.backoff * 2.0**attempt, _LONGEST_BACKOFF) * random.uniform(0.5, 1.0)
    retry_after: float | None = getattr(error, "retry_after", None)
    if retry_after is not None:
        if retry_after > _LONGEST_RETRY_AFTER:
            return None
        wait = max(wait, float(retry_after))
    return wait


def _sleep_until(at: float) -> None:
    while (left := at - time.time()) > 0:
        time.sleep(left)


def _read_part(part: tuple[str, str, int, CsvRequest]) -> Any:
    """One site-year from the cache as a pandas frame (a partition of the result)."""
    import polars as pl

    cache_dir, key, index, request = part
    frame = SiteYearCache(cache_dir).read(key)
    if frame is None:
        raise FileNotFoundError(f"the cache {cache_dir} lost the entry of request {index} ({request.dataset}, "
                                f"lat={request.lat}, lon={request.lon}, year={request.year}): run bulk_download again")
    labelled = frame.select(
        pl.lit(index, dtype=pl.Int64).alias("request"),
        pl.lit(request.lat, dtype=pl.Float64).alias("lat"),
        pl.lit(request.lon, dtype=pl.Float64).alias("lon"),
        pl.lit(request.year, dtype=pl.Int32).alias("year"),
        pl.all(),
    )
    return labelled.to_pandas()
