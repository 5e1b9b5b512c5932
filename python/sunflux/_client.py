"""`Client` and `AsyncClient`: configuration, key discovery and the low-level request call.

Both wrap one Rust transport (`sunflux._core.Transport`) in a `ServiceHandle`, the small object the
service namespaces (`client.solar`, `client.pv`, ...) are given: the transports, the route profile,
whether to trace, and the low-level request in both I/O styles. A service never reaches into the
client's private members.
"""

from __future__ import annotations

import atexit
import functools
import os
from dataclasses import dataclass
from typing import Any, Callable, Concatenate, Mapping, NamedTuple, ParamSpec
from urllib.parse import urlsplit

from sunflux import _core
from sunflux._errors import ParameterError
from sunflux._handle import ServiceHandle, Response
from sunflux._twins import Call, awaitable, blocking

_Params = ParamSpec("_Params")

__all__ = ["Client", "AsyncClient", "Response", "RateLimit", "ServiceLimits", "resolve_api_key", "limits"]

# sunflux's I/O threads must not enter Python while the interpreter exits.
atexit.register(_core.quiesce)

#: Environment variables searched for a key, in order.
API_KEY_ENV_VARS = ("SUNFLUX_API_KEY", "NLR_API_KEY", "NREL_API_KEY")
BASE_URL_ENV_VAR = "SUNFLUX_BASE_URL"
#: The Utility Rate Database API (the optimizer's rates; the same developer key works there).
DEFAULT_URDB_BASE_URL = "https://api.openei.org"
URDB_BASE_URL_ENV_VAR = "SUNFLUX_URDB_BASE_URL"
_PUBLIC_HOST = urlsplit(_core.DEFAULT_BASE_URL).hostname
#: Seconds a whole call may take by default (every attempt, backoff and throttle wait).
DEFAULT_DEADLINE: float = _core.DEFAULT_DEADLINE


def limits() -> dict[str, float]:
    """Every limit sunflux sets on data it did not make (answers, files, tables), by name, with
    its default: ``max_bytes.<kind>`` (response caps, raised per client with ``max_bytes=``),
    zip, XML, JSON and CSV bounds, the default ``deadline_seconds``, and the embedded service's
    timeouts. docs/design.md ("Limits") says why each is what it is.

    Returns
    -------
    dict of str to float
        Limit name to its default value: sizes in bytes, counts, and times in seconds
        (``deadline_seconds`` and the embedded service's timeouts).
    """
    return dict(_core.default_limits())


def resolve_api_key(api_key: str | None) -> str | None:
    """The key to use: the argument, else the first of the environment variables that is set."""
    if api_key is not None:
        return api_key
    for name in API_KEY_ENV_VARS:
        value = os.environ.get(name)
        if value:
            return value
    return None


class RateLimit(NamedTuple):
    """The latest ``X-RateLimit-Limit`` and ``X-RateLimit-Remaining`` values (None before any).

    A named tuple, as `Client.rate_limit` returns it; users do not construct it.

    Attributes
    ----------
    limit : int or None
        Requests the key may make in the service's rolling window (an hour on the
        public service).
    remaining : int or None
        Requests left in the current window.
    """

    limit: int | None
    remaining: int | None


@dataclass(frozen=True)
class ServiceLimits:
    """Client-side limits of one service class (all optional; None keeps nothing for that rule).

    ``per_window`` requests in any rolling ``window`` seconds; ``min_interval`` seconds between
    sends; ``in_flight`` requests at once.

    Parameters
    ----------
    per_window : int, optional
        Requests in any rolling window.
    window : float, default 3600.0
        The window's length (s).
    min_interval : float, optional
        The least time between two sends (s).
    in_flight : int, optional
        Requests at once.
    """

    per_window: int | None = None
    window: float = 3600.0
    min_interval: float | None = None
    in_flight: int | None = None

    def _as_dict(self) -> dict[str, Any]:
        fields = {
            "per_window": self.per_window,
            "window": self.window,
            "min_interval": self.min_interval,
            "in_flight": self.in_flight,
        }
        return {k: v for k, v in fields.items() if v is not None}


_REQUEST_DOC = """Send a low-level request to a named endpoint of the spec.

    The request goes through the client's authentication, throttles, retries and error mapping,
    like the typed calls; the answer's body is returned as the server sent it.

    Parameters
    ----------
    method : str
        HTTP method (``"GET"``, ``"POST"``, ``"DELETE"``).
    endpoint : str
        The endpoint's name in the route table (``"data_query"``, ``"pv_estimator"``,
        ``"local_status"``, ...; an unknown name's error lists them all).
    args : mapping of str to str, optional
        Values of the endpoint's path parameters (``{"format": "json"}``).
    params : mapping or iterable of pairs, optional
        Query parameters.
    form : mapping or iterable of pairs, optional
        A form body (``application/x-www-form-urlencoded``).
    json : object, optional
        A JSON body.
    idempotent : bool, optional
        Whether a failed attempt may be retried (default: True for GET, HEAD and DELETE).
    check_errors : bool, default True
        Raise the typed errors for error answers; False returns them as a `Response`.

    Returns
    -------
    Response
        The status, headers and body.

    Raises
    ------
    ApiError
        The service answered with an error (its subclass by status), unless ``check_errors=False``.
    TransportError
        The request could not be completed within ``timeout``/``deadline``.
    ParameterError
        An unknown endpoint, a missing path parameter, or a body that is not JSON-ready.
    """


def _through_handle(
    build: Callable[Concatenate[ServiceHandle, _Params], Call[Response]], name: str, doc: str
) -> Callable[Concatenate[_ClientBase, _Params], Call[Response]]:
    """`_ClientBase`'s method ``name`` made from its handle's: the same parameters, called on the
    handle."""

    @functools.wraps(build)
    def method(client: _ClientBase, /, *args: _Params.args, **kwargs: _Params.kwargs) -> Call[Response]:
        return build(client._handle, *args, **kwargs)

    method.__name__, method.__qualname__, method.__doc__ = name, f"_ClientBase.{name}", doc
    return method


_CLOSED = "this {kind} was closed ({how} or the end of its with block); make a new one to send requests"


#: The Parameters and Attributes of `Client` and `AsyncClient`: one constructor, one text; only the
#: service classes the attributes hold differ (``{climate}`` ... are filled in per class).
_CLIENT_SECTIONS = """
Parameters
----------
api_key : str, optional
    The 40-character key; by default ``SUNFLUX_API_KEY``, ``NLR_API_KEY`` or ``NREL_API_KEY``.
base_url : str, optional
    By default ``SUNFLUX_BASE_URL`` or ``https://developer.nlr.gov``. Plain ``http://`` is
    refused except for loopback hosts.
auth : {{"header", "query", "basic"}}, default "header"
    ``"header"`` (``X-Api-Key``), ``"query"`` (``api_key=``) or ``"basic"``.
routes : {{"spec", "nlr"}}, optional
    ``"spec"`` (paths exactly as the spec) or ``"nlr"`` (the public host's paths). By default
    ``"nlr"`` for the public host and ``"spec"`` for any other base URL.
timeout : float, default 60.0
    Time for one attempt, from connecting to the last byte of the body [s]. A call may make
    several attempts; ``deadline`` bounds the whole call.
retries : int, default 3
    Extra attempts for idempotent requests after connect errors, timeouts, 5xx, HTML gateway
    pages and 429 (``Retry-After`` honoured).
backoff : float, default 0.5
    First delay of the jittered exponential backoff between attempts [s].
retry_rate_limited : bool, default True
    Whether a 429 answer is retried after its ``Retry-After``; False raises `RateLimitError` at
    once (the window is rolling, so retrying burns quota).
throttle : bool, default True
    The spec's client-side limits are on by default; False turns them off.
limits : mapping of str to ServiceLimits, optional
    Replaces the limits of named service classes, e.g.
    ``{{"climate_csv": ServiceLimits(min_interval=0.5)}}``.
urdb_base_url : str, optional
    The Utility Rate Database API the optimizer's rates come from; by default
    ``SUNFLUX_URDB_BASE_URL`` or ``https://api.openei.org``. The key travels there as the
    ``api_key`` query parameter.
deadline : float or None, default 600
    Time one call may take in all: every attempt, the backoff between them and waits for the
    client-side limits [s]; None for no bound. Past it: `TransportError`.
max_bytes : mapping of str to int, optional
    Raises the size cap of one kind of answer [bytes], e.g. ``{{"climate_zip": 8 * 2**30}}``
    (names and defaults: ``sunflux.limits()``); a larger answer is refused with `ApiError`.

Attributes
----------
climate : {climate}
    The climate (NSRDB) download service.
optimizer : {optimizer}
    The optimizer (REopt) jobs.
solar : {solar}
    The solar dataset query.
pv : {pv}
    The PVWatts estimate and the local engines.
technical_potential : {potential}
    The technical-potential explorer jobs.
base_url : str
    The base URL every request is joined to (no key in it).
urdb_base_url : str
    The Utility Rate Database API's base URL.
routes : str
    The route profile in use: ``"spec"`` or ``"nlr"``.
rate_limit : RateLimit
    The latest rate-limit headers the service sent.
closed : bool
    Whether the client was closed (or the `LocalService` it was made by).

Notes
-----
Every argument is checked when the client is built and all problems are reported at once
(`ParameterError`).
"""


class _ClientBase:
    def __init__(
        self,
        api_key: str | None = None,
        base_url: str | None = None,
        auth: str = "header",
        routes: str | None = None,
        timeout: float = 60.0,
        *,
        retries: int = 3,
        backoff: float = 0.5,
        retry_rate_limited: bool = True,
        throttle: bool = True,
        limits: Mapping[str, ServiceLimits] | None = None,
        urdb_base_url: str | None = None,
        deadline: float | None = DEFAULT_DEADLINE,
        max_bytes: Mapping[str, int] | None = None,
    ) -> None:
        base = base_url or os.environ.get(BASE_URL_ENV_VAR) or _core.DEFAULT_BASE_URL
        throttles = (
            {name: lim._as_dict() if isinstance(lim, ServiceLimits) else lim for name, lim in limits.items()}
            if isinstance(limits, Mapping)
            else limits
        )
        self._transport = _core.Transport(
            base,
            resolve_api_key(api_key),
            auth,
            routes,
            timeout,
            retries,
            backoff,
            retry_rate_limited,
            throttle,
            throttles,
            deadline,
            dict(max_bytes) if isinstance(max_bytes, Mapping) else max_bytes,
        )
        self._auth = auth
        self._timeout = timeout
        urdb_base = urdb_base_url or os.environ.get(URDB_BASE_URL_ENV_VAR) or DEFAULT_URDB_BASE_URL
        # The rate database is its own host: a second transport that sends the key as the
        # ``api_key`` query parameter, as that API expects (redacted like every key).
        self._urdb_transport = _core.Transport(
            urdb_base, resolve_api_key(api_key), "query", "spec", timeout, retries, backoff,
            retry_rate_limited, throttle, None, deadline,
            dict(max_bytes) if isinstance(max_bytes, Mapping) else max_bytes,
        )
        self._handle = ServiceHandle(self._transport, self._urdb_transport)
        #: The `LocalService` that made this client, if any (kept alive as long as the client).
        self._service: object = None
        self._attach_services()

    def _stop(self, reason: str) -> None:
        """Every later call of this client raises `TransportError(reason)` at once."""
        self._transport.close(reason)
        self._urdb_transport.close(reason)

    @property
    def closed(self) -> bool:
        """Whether the client was closed (or the `LocalService` it was made by)."""
        return bool(self._transport.closed)

    _request = _through_handle(ServiceHandle.call, "_request", doc=_REQUEST_DOC)

    def _attach_services(self) -> None:
        """Service namespaces are attached by the subclasses."""

    @property
    def base_url(self) -> str:
        """The service's base URL every request is joined to (``https://...``, no key in it)."""
        return self._transport.base_url

    @property
    def urdb_base_url(self) -> str:
        """The Utility Rate Database API's base URL (``urdb_base_url``, ``SUNFLUX_URDB_BASE_URL``
        or ``https://api.openei.org``)."""
        return self._urdb_transport.base_url

    @property
    def routes(self) -> str:
        """The route profile in use: ``"spec"`` or ``"nlr"``."""
        return self._transport.routes

    @property
    def rate_limit(self) -> RateLimit:
        """The latest rate-limit headers the service sent."""
        limit, remaining = self._transport.rate_limit
        return RateLimit(limit, remaining)

    def url(self, endpoint: str, **args: str) -> str:
        """The URL of a named endpoint under this client's base URL and routes (no key in it)."""
        return self._transport.url(endpoint, args)

    def __repr__(self) -> str:
        key = "***" if self._transport.has_key else None
        return (
            f"{type(self).__name__}(base_url={self.base_url!r}, auth={self._auth!r}, "
            f"routes={self.routes!r}, timeout={self._timeout}, api_key={key!r})"
        )



class Client(_ClientBase):
    __doc__ = "Blocking client for every service of the spec.\n" + _CLIENT_SECTIONS.format(
        climate="ClimateService", optimizer="OptimizerService",
        solar="SolarService", pv="PvService",
        potential="TechnicalPotentialService")

    def _attach_services(self) -> None:
        from sunflux.pv import PvService
        from sunflux.solar import SolarService

        from sunflux.optimizer.jobs import OptimizerService
        from sunflux.technical_potential import TechnicalPotentialService

        from sunflux.climate import ClimateService

        self.climate = ClimateService(self._handle)
        self.optimizer = OptimizerService(self._handle)
        self.solar = SolarService(self._handle)
        self.pv = PvService(self._handle)
        self.technical_potential = TechnicalPotentialService(self._handle)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the client (idempotent): later calls raise `TransportError` at once.
        Connections live in the process-wide pool, so nothing else is released.

        Returns
        -------
        None
        """
        self._stop(_CLOSED.format(kind="Client", how="close()"))

    request = blocking(_ClientBase._request)



class AsyncClient(_ClientBase):
    __doc__ = "The same calls as `Client`, each returning an awaitable (asyncio, Jupyter).\n" + _CLIENT_SECTIONS.format(
        climate="AsyncClimateService",
        optimizer="AsyncOptimizerService", solar="AsyncSolarService",
        pv="AsyncPvService", potential="AsyncTechnicalPotentialService")

    def _attach_services(self) -> None:
        from sunflux.pv import AsyncPvService
        from sunflux.solar import AsyncSolarService

        from sunflux.optimizer.jobs import AsyncOptimizerService
        from sunflux.technical_potential import AsyncTechnicalPotentialService

        from sunflux.climate import AsyncClimateService

        self.climate = AsyncClimateService(self._handle)
        self.optimizer = AsyncOptimizerService(self._handle)
        self.solar = AsyncSolarService(self._handle)
        self.pv = AsyncPvService(self._handle)
        self.technical_potential = AsyncTechnicalPotentialService(self._handle)

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Closes the client (idempotent): later calls raise `TransportError` at once.
        Connections live in the process-wide pool, so nothing else is released.

        Returns
        -------
        None
        """
        self._stop(_CLOSED.format(kind="AsyncClient", how="aclose()"))

    request = awaitable(_ClientBase._request)

