"""`LocalService`: the embedded service on 127.0.0.1, with the gateway's auth, limits and errors.

It runs on sunflux's background I/O threads inside this process and stops on `close()`, on
leaving a ``with`` block, or at interpreter exit.
"""

from __future__ import annotations

import atexit
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from sunflux import _core
from sunflux._client import AsyncClient, Client

if TYPE_CHECKING:
    from sunflux.pvwatts import Weather

__all__ = [
    "LocalService", "RateLimits", "Faults", "JobSettings", "ClimateSettings", "OptimizerSettings", "RateDatabaseSettings",
    "FAULT_KINDS", "LIMIT_PROFILES",
]

#: Every kind of fault the service can inject (the Rust service's own list).
FAULT_KINDS: tuple[str, ...] = _core.FAULT_KINDS


#: What ``LocalService(limits=...)`` accepts: ``"none"`` (the default) enforces none of the
#: spec's request limits and its clients do not throttle; ``"spec"`` enforces them and its
#: clients throttle for them, as against the live service.
LIMIT_PROFILES: tuple[str, ...] = ("none", "spec")


@dataclass(frozen=True)
class RateLimits:
    """Per-key limit the service enforces: ``requests`` in any rolling ``window`` seconds.

    The default is the spec's (``sunflux._core.KEY_REQUESTS_PER_HOUR``, 1,000) per hour; tests use small numbers. Given to a
    `LocalService`, it is enforced whatever its ``limits`` profile.

    Parameters
    ----------
    requests : int, default 1000
        Requests a key may make in any rolling window.
    window : float, default 3600.0
        The window's length (s).
    """

    requests: int = _core.KEY_REQUESTS_PER_HOUR
    window: float = 3600.0


@dataclass(frozen=True)
class JobSettings:
    """How the service's technical-potential jobs behave: ``start_delay`` s queued, ``run_time`` s
    started; ``failure_status`` makes jobs (of ``failure_region`` only, if given) end in that
    status with ``failure_message`` instead of finishing, to test clients.

    Parameters
    ----------
    start_delay : float, default 0.5
        Seconds a new job stays queued.
    run_time : float, default 2.0
        Seconds a started job runs before it finishes.
    failure_status : str, optional
        A status the jobs end in instead of finishing (e.g. ``"failed"``).
    failure_message : str, default "the analysis failed"
        The message of a failed job.
    failure_region : str, optional
        Fail only the jobs of this region.
    """

    start_delay: float = 0.5
    run_time: float = 2.0
    failure_status: str | None = None
    failure_message: str = "the analysis failed"
    failure_region: str | None = None


@dataclass(frozen=True)
class ClimateSettings:
    """The climate download's per-user limits and queue: at most one csv request per
    ``csv_interval`` s and ``csv_per_day`` per rolling day (json: ``json_interval``,
    ``json_per_day``), ``in_flight`` at once, ``queue`` unfinished download files before it refuses
    with "queue is full"; ``build_delay`` s before each file is built (to observe "not ready").
    A rate left at ``None`` follows the service's ``limits`` profile: none with ``"none"``, the
    spec's (1 csv per s and 10,000 per day, 1 json per 2 s and 2,000 per day) with ``"spec"``.

    Data sets are served as the live service serves them: each by name
    (``sunflux.LocalService.DATASETS``) and only over its region, so
    ``ncdb-4km-Hourly-CONUS-v1-0-0-RCP4-5`` refuses a point in Sydney. ``anywhere=True`` lifts the
    region (the synthetic weather exists everywhere), to try a pipeline on sites no set covers.

    Parameters
    ----------
    csv_interval, json_interval : float, optional
        The least time between two requests of a user (s), csv and json/other formats.
    csv_per_day, json_per_day : int, optional
        Requests of a user in any rolling day, csv and json/other formats.
    in_flight : int
        Requests of a user served at once (default: the spec's, 20).
    queue : int, default 100
        Unfinished download files before requests are refused with "queue is full".
    build_delay : float, default 0.0
        Seconds before each download file is built.
    anywhere : bool, default False
        Serve every data set at any point, not only over its region.
    """

    csv_interval: float | None = None
    json_interval: float | None = None
    csv_per_day: int | None = None
    json_per_day: int | None = None
    in_flight: int = _core.CLIMATE_IN_FLIGHT
    queue: int = 100
    build_delay: float = 0.0
    anywhere: bool = False


@dataclass(frozen=True)
class OptimizerSettings:
    """The embedded optimizer's job behaviour: for ``not_found_grace`` s after a POST the new
    run answers 404 "not in database" (the live service's race); ``hang`` keeps new runs at
    "Optimizing..." until their ``Settings.timeout_seconds`` (to test clients).

    Parameters
    ----------
    not_found_grace : float, default 0.0
        Seconds a new run answers 404 after its POST.
    hang : bool, default False
        Keep new runs at "Optimizing..." until their timeout.
    """

    not_found_grace: float = 0.0
    hang: bool = False


@dataclass(frozen=True)
class RateDatabaseSettings:
    """The Utility Rate Database stand-in (``GET /utility_rates``): it serves a few synthetic
    rates of a made-up utility; with ``any_label`` it also answers every other well-formed label
    with one of them, relabelled as a stand-in (for offline runs of real scenarios).

    Parameters
    ----------
    any_label : bool, default False
        Answer every well-formed label with a synthetic rate.
    """

    any_label: bool = False


@dataclass(frozen=True)
class Faults:
    """Seeded fault injection: a ``rate`` fraction of responses fail with one of ``kinds``.

    ``delay`` is how long a ``"delay"`` fault waits; ``retry_after`` is the header value sent with
    ``"429_retry_after"``. Same seed, same sequence of faults.

    Parameters
    ----------
    rate : float, default 0.1
        The fraction of responses that fail (0 to 1).
    seed : int, default 0
        The seed of the fault sequence.
    kinds : tuple of str, default FAULT_KINDS
        The kinds of fault to draw from (a subset of `FAULT_KINDS`).
    delay : float, default 0.05
        Seconds a ``"delay"`` fault waits.
    retry_after : float, default 0.1
        The ``Retry-After`` value (s) sent with ``"429_retry_after"``.
    """

    rate: float = 0.1
    seed: int = 0
    kinds: tuple[str, ...] = FAULT_KINDS
    delay: float = 0.05
    retry_after: float = 0.1


#: The daily quota of a service that enforces none (the largest the service takes).
_NO_QUOTA = 2**32 - 1


def _profile_rate(given: Any, spec: bool, spec_value: Any, none_value: Any) -> Any:
    """A climate rate given in `ClimateSettings`, else the service profile's."""
    if given is not None:
        return given
    return spec_value if spec else none_value


_AnyClient = TypeVar("_AnyClient", Client, AsyncClient)

_running: "weakref.WeakSet[LocalService]" = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for service in list(_running):
        service.close()


class LocalService:
    """The embedded service. ``with LocalService() as svc: svc.client()...``

    Parameters
    ----------
    port : int, default 0
        The TCP port at 127.0.0.1; 0 picks a free port.
    rate_limits : RateLimits, optional
        A `RateLimits` per key, enforced whatever ``limits`` says (default: the profile's).
    faults : Faults, optional
        A `Faults` to make a fraction of responses fail (off by default).
    api_key : str, optional
        The 40-character key the service accepts (random when omitted).
    extra_keys : sequence of str, default ()
        More keys the service accepts.
    explorers : sequence of str, default ()
        Technical-potential explorer names served besides ``rede``.
    jobs : JobSettings, optional
        `JobSettings` for technical-potential jobs (timing, injected failures).
    climate : ClimateSettings, optional
        `ClimateSettings` for the climate download (limits, queue, build delay).
    optimizer : OptimizerSettings, optional
        `OptimizerSettings` for optimizer jobs (the 404 race, runs that hang).
    rates : RateDatabaseSettings, optional
        `RateDatabaseSettings` for the Utility Rate Database stand-in.
    limits : {"none", "spec"}, default "none"
        ``"none"`` (the default here and for ``python -m sunflux serve``): the service enforces
        none of the spec's request limits (no per-key window, no climate intervals or daily
        quotas) and the clients it makes do not throttle, so tests and notebooks never wait on a
        limit no one imposes. ``"spec"``: the service
        enforces the spec's limits (1,000 requests per key per hour; climate csv 1 per s and
        10,000 per day, other formats 1 per 2 s and 2,000 per day) and its clients throttle for
        them, as they do against the live service — to test throttling. ``rate_limits`` and the
        rates given in ``climate`` are enforced whatever the profile.

    Attributes
    ----------
    base_url : str
        ``http://127.0.0.1:<port>``.
    api_key : str
        A valid 40-character key for this service.
    port : int
        The TCP port the service listens on at 127.0.0.1 (the free one picked when ``port=0``).
    running : bool
        True while the service answers requests: after start, before ``close()``.
    rate_limits : RateLimits or None
        The per-key limit the service enforces (None: none).
    limits : {"none", "spec"}
        The request-limit profile.
    faults : Faults or None
        The injected faults (None: none).
    DATASETS : tuple of str
        The climate data set names the service answers (a class attribute).

    Notes
    -----
    The climate download serves the data sets of `DATASETS` (the two climate scenarios over the
    contiguous United States, and the NSRDB GOES v4 sets), each only over its region unless
    ``ClimateSettings(anywhere=True)``; other names answer 404, as the live service does.
    """

    #: The climate and NSRDB data set slugs the download serves (one catalogue, in the Rust core).
    DATASETS: tuple[str, ...] = _core.CLIMATE_DATASETS

    def __init__(
        self,
        port: int = 0,
        rate_limits: RateLimits | None = None,
        faults: Faults | None = None,
        *,
        api_key: str | None = None,
        extra_keys: tuple[str, ...] | list[str] = (),
        explorers: tuple[str, ...] | list[str] = (),
        jobs: JobSettings | None = None,
        climate: ClimateSettings | None = None,
        optimizer: OptimizerSettings | None = None,
        rates: RateDatabaseSettings | None = None,
        limits: str = "none",
    ) -> None:
        problems: list[str] = []
        if limits not in LIMIT_PROFILES:
            problems.append(f"limits must be one of {', '.join(map(repr, LIMIT_PROFILES))} (got {limits!r})")
            limits = "none"
        spec = limits == "spec"

        def settings(name: str, value: Any, kind: type) -> Any:
            if value is None:
                return kind()
            if not isinstance(value, kind):
                problems.append(f"{name} must be a {kind.__name__} (got {type(value).__name__})")
                return kind()
            return value

        key_limits = settings("rate_limits", rate_limits, RateLimits) if rate_limits is not None or spec else None
        fault_settings = None if faults is None else settings("faults", faults, Faults)
        job_settings = settings("jobs", jobs, JobSettings)
        climate_settings = settings("climate", climate, ClimateSettings)
        optimizer_settings = settings("optimizer", optimizer, OptimizerSettings)
        rate_settings = settings("rates", rates, RateDatabaseSettings)
        self._core = _core.LocalService(
            port,
            api_key,
            extra_keys,
            None if key_limits is None else key_limits.requests,
            3600.0 if key_limits is None else key_limits.window,
            None if fault_settings is None else fault_settings.rate,
            0 if fault_settings is None else fault_settings.seed,
            [] if fault_settings is None else fault_settings.kinds,
            0.05 if fault_settings is None else fault_settings.delay,
            0.1 if fault_settings is None else fault_settings.retry_after,
            explorers,
            job_settings.start_delay,
            job_settings.run_time,
            job_settings.failure_status,
            job_settings.failure_message,
            job_settings.failure_region,
            _profile_rate(climate_settings.csv_interval, spec, _core.CLIMATE_CSV_INTERVAL, 0.0),
            _profile_rate(climate_settings.json_interval, spec, _core.CLIMATE_JSON_INTERVAL, 0.0),
            _profile_rate(climate_settings.csv_per_day, spec, _core.CLIMATE_CSV_PER_DAY, _NO_QUOTA),
            _profile_rate(climate_settings.json_per_day, spec, _core.CLIMATE_JSON_PER_DAY, _NO_QUOTA),
            climate_settings.in_flight,
            climate_settings.queue,
            climate_settings.build_delay,
            climate_settings.anywhere,
            optimizer_settings.not_found_grace,
            optimizer_settings.hang,
            rate_settings.any_label,
            problems,
        )
        self.rate_limits = key_limits
        self.limits = limits
        self.faults = faults
        self._clients: "weakref.WeakSet[Client | AsyncClient]" = weakref.WeakSet()
        _running.add(self)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``."""
        return self._core.base_url

    @property
    def api_key(self) -> str:
        """A valid 40-character key for this service."""
        return self._core.api_key

    @property
    def port(self) -> int:
        """The TCP port the service listens on at 127.0.0.1 (the free one picked when ``port=0``)."""
        return self._core.port

    @property
    def running(self) -> bool:
        """True while the service answers requests: after start, before ``close()``."""
        return self._core.running

    def hits(self) -> dict[str, int]:
        """How many requests reached each path (whatever their outcome).

        Returns
        -------
        dict of str to int
            Request path to the number of requests that reached it since the service started.
        """
        return dict(self._core.hits())

    def outbox(self) -> list[dict[str, str]]:
        """The e-mails the climate download would have sent (to, subject, body).

        Returns
        -------
        list of dict
            One dict per e-mail, oldest first, with the keys ``"to"``, ``"subject"`` and ``"body"``.
        """
        return [{"to": to, "subject": subject, "body": body} for to, subject, body in self._core.outbox()]

    def station_weather(self, file_id: str) -> Weather:
        """The weather year the embedded estimator uses for the station ``file_id`` (a `Weather`).

        ``sunflux.pvwatts.simulate(svc.station_weather(id), ...)`` equals the service's estimate.

        Parameters
        ----------
        file_id : str
            A station id of the embedded catalogue (as `SolarService.data_query` lists them).

        Returns
        -------
        Weather
            The station's typical year, hourly: irradiance in W/m², temperature in °C, wind
            speed in m/s.

        Raises
        ------
        ParameterError
            ``file_id`` is not a station of the embedded catalogue.
        """
        from sunflux.pvwatts import Weather

        return Weather(self._core.station_weather(file_id))

    def client(self, **kwargs: Any) -> Client:
        """A `Client` wired to this service (and to its rate database stand-in) with the
        ``"spec"`` routes; kwargs override. The client keeps the service running while it is
        used; once the service is closed, its calls raise `TransportError` at once.

        Parameters
        ----------
        **kwargs
            Options of `Client` that replace the service's: by default ``api_key``,
            ``base_url`` and ``urdb_base_url`` are this service's, ``routes="spec"``, and
            ``throttle`` is True only with ``limits="spec"``.

        Returns
        -------
        Client
            The client; if the service is already closed, its calls raise `TransportError`.
        """
        return self._adopt(Client(**self._client_options(kwargs)))

    def async_client(self, **kwargs: Any) -> AsyncClient:
        """An `AsyncClient` wired to this service with the ``"spec"`` routes (kept alive and
        closed with it, as `client`).

        Parameters
        ----------
        **kwargs
            Options of `AsyncClient` that replace the service's, as in `client`.

        Returns
        -------
        AsyncClient
            The client; if the service is already closed, its calls raise `TransportError`.
        """
        return self._adopt(AsyncClient(**self._client_options(kwargs)))

    def _client_options(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        # The clients throttle for exactly the limits the service enforces (its profile).
        options: dict[str, Any] = {
            "api_key": self.api_key, "base_url": self.base_url, "routes": "spec", "urdb_base_url": self.base_url,
            "throttle": self.limits == "spec",
        }
        options.update(kwargs)
        return options

    def _adopt(self, client: _AnyClient) -> _AnyClient:
        # The client holds the service (``LocalService().client()`` must not leave a client
        # whose service was garbage-collected); the service holds its clients weakly, to stop
        # them when it closes.
        client._service = self
        if self.running:
            self._clients.add(client)
        else:
            client._stop(self._closed_reason())
        return client

    def _closed_reason(self) -> str:
        return (
            f"the LocalService at {self.base_url} was closed (close() or the end of its with block); "
            "its clients cannot be used any more: start a new LocalService"
        )

    def close(self) -> None:
        """Stops the service (idempotent); its clients' later calls raise `TransportError`.

        Returns
        -------
        None
        """
        self._core.close()
        _running.discard(self)
        for client in list(self._clients):
            client._stop(self._closed_reason())

    def __enter__(self) -> "LocalService":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "running" if self.running else "closed"
        return f"LocalService(base_url={self.base_url!r}, {state})"
