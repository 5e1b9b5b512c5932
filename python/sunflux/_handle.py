"""`ServiceHandle`, what a service needs from its client and nothing else, and `Response`, the
answer of a low-level request. The bottom of the client side: services are given a handle and
import nothing above this module, and `_client` builds its clients on it."""

from __future__ import annotations

import json as _json
import logging
from typing import Any, Iterable, Mapping

from sunflux import _core
from sunflux._errors import ParameterError
from sunflux._twins import Call, awaitable, blocking, core_call

_log = logging.getLogger("sunflux")


class Response:
    """A raw HTTP answer, as ``client.request`` returns it; users do not construct it.

    Attributes
    ----------
    status : int
        The HTTP status code.
    url : str
        The URL that answered (after redirects), without the key.
    content_type : str or None
        The ``Content-Type`` header, if sent.
    content : bytes
        The body as received.
    text : str
        The body decoded as UTF-8 (invalid bytes replaced).
    attempts : int
        How many attempts the call made (1 without retries).
    """

    __slots__ = ("_raw",)

    def __init__(self, raw: _core.RawResponse) -> None:
        self._raw = raw

    @property
    def status(self) -> int:
        """The HTTP status code."""
        return self._raw.status

    @property
    def url(self) -> str:
        """The URL that answered (after redirects), without the key."""
        return self._raw.url

    @property
    def content_type(self) -> str | None:
        """The ``Content-Type`` header, if sent."""
        return self._raw.content_type

    @property
    def content(self) -> bytes:
        """The body as received."""
        return self._raw.content

    @property
    def text(self) -> str:
        """The body decoded as UTF-8 (invalid bytes replaced)."""
        return self._raw.text

    @property
    def attempts(self) -> int:
        """How many attempts the call made (1 without retries)."""
        return self._raw.attempts

    def json(self) -> Any:
        """The body parsed as JSON (any JSON value)."""
        return _json.loads(self._raw.content)

    def __repr__(self) -> str:
        return repr(self._raw)


def _pairs(params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None, what: str) -> list[tuple[str, str]]:
    """Query or form parameters as text pairs (None values left out, booleans as true/false,
    lists comma-joined); `ParameterError` naming `what` for anything but a mapping or an iterable
    of (name, value) pairs with text names."""
    if params is None:
        return []
    if isinstance(params, Mapping):
        items = list(params.items())
    elif isinstance(params, (str, bytes)) or not isinstance(params, Iterable):
        raise ParameterError(f"{what} must be a dict or a list of (name, value) pairs (got {type(params).__name__})")
    else:
        items = list(params)
    out: list[tuple[str, str]] = []
    for item in items:
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise ParameterError(f"{what} must hold (name, value) pairs (got a {type(item).__name__})")
        if not isinstance(item[0], str):
            raise ParameterError(f"{what} names must be text (got a {type(item[0]).__name__})")
        name, value = item
        if value is None:
            continue
        if isinstance(value, bool):
            out.append((name, "true" if value else "false"))
        elif isinstance(value, (list, tuple)):
            out.append((name, ",".join(str(v) for v in value)))
        else:
            out.append((name, str(value)))
    return out


def _call_args(
    method: str,
    endpoint: str,
    args: Mapping[str, str] | None,
    params: Any,
    form: Any,
    json: Any,
    idempotent: bool | None,
    check_errors: bool,
    trace: bool,
) -> tuple[str, str, dict[str, str] | None, list[tuple[str, str]], list[tuple[str, str]] | None, bytes | None, bool | None, bool, bool]:
    """The transport's request arguments, checked (`ParameterError` for a body that is not JSON or
    path arguments that are not a dict)."""
    try:
        body = None if json is None else (json if isinstance(json, bytes) else _json.dumps(json).encode())
    except (TypeError, ValueError) as error:
        raise ParameterError(f"json must be JSON-serialisable: {error}") from None
    if args is not None and not isinstance(args, Mapping):
        raise ParameterError(f"args must be a dict of path arguments (got {type(args).__name__})")
    return (
        method,
        endpoint,
        {str(name): str(value) for name, value in args.items()} if args else None,
        _pairs(params, "params"),
        _pairs(form, "form") if form is not None else None,
        body,
        idempotent,
        check_errors,
        trace,
    )


class ServiceHandle:
    """What a service needs from its client, and nothing else: the service's transport
    (``transport``), the rate database's (``urdb_transport``), the route profile, whether to trace,
    and the low-level request in both I/O styles (`prepare(...).send()`, waited for or awaited).
    The Rust services are given the same role's `ServiceHandle` (`src/services/handle.rs`)."""

    __slots__ = ("transport", "urdb_transport")

    def __init__(self, transport: _core.Transport, urdb_transport: _core.Transport) -> None:
        self.transport = transport
        self.urdb_transport = urdb_transport

    @property
    def routes(self) -> str:
        """The route profile in use: ``"spec"`` or ``"nlr"``."""
        return self.transport.routes

    def trace(self) -> bool:
        """Whether the transport should report attempts to the ``sunflux`` logger."""
        return _log.isEnabledFor(logging.DEBUG)

    def call(
        self,
        method: str,
        endpoint: str,
        *,
        args: Mapping[str, str] | None = None,
        params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
        form: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None,
        json: Any = None,
        idempotent: bool | None = None,
        check_errors: bool = True,
    ) -> Call[Response]:
        """A call of a named endpoint; raises the typed errors."""
        call = _call_args(method, endpoint, args, params, form, json, idempotent, check_errors, self.trace())
        return core_call(Response, _core.PreparedRequest.send, self.transport.prepare(*call))

    def urdb_call(self, params: Mapping[str, Any]) -> Call[Response]:
        """GET the Utility Rate Database API with these query parameters."""
        call = _call_args("GET", "utility_rates", None, params, None, None, None, True, self.trace())
        return core_call(Response, _core.PreparedRequest.send, self.urdb_transport.prepare(*call))

    request = blocking(call, name="request")
    request_async = awaitable(call, name="request_async")
    urdb_request = blocking(urdb_call, name="urdb_request")
    urdb_request_async = awaitable(urdb_call, name="urdb_request_async")
