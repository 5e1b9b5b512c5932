"""The one exception hierarchy of sunflux.

The classes live in Python so that they carry keyword attributes, pickle cleanly and show up in
type checkers; the Rust core raises them (it looks them up in this module by name).
Every text that reaches a message has already had the API key removed by the core.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, Sequence

__all__ = [
    "SunfluxError",
    "ParameterError",
    "MissingFileError",
    "ArgumentError",
    "TransportError",
    "ApiError",
    "ValidationError",
    "AuthError",
    "RateLimitError",
    "QueueFullError",
    "NotFoundError",
    "ServerError",
    "JobFailed",
    "JobTimeout",
    "ServiceWarning",
    "UnitWarning",
]


class SunfluxError(Exception):
    """Base class of every error sunflux raises.

    It carries only the message (``str(error)``); the subclasses below add their attributes.
    """


class ParameterError(SunfluxError, ValueError):
    """Client-side validation failed; nothing was sent.

    ``errors`` lists every problem found (strings, or problem objects whose ``str`` is readable).

    Parameters
    ----------
    errors : sequence or str
        The problems (strings or problem objects); one string is one problem.
    message : str, optional
        The exception's text; by default the one problem, or "N problems:" and a list.

    Attributes
    ----------
    errors : list
        Every problem found (strings, or problem objects whose ``str`` is readable, such as
        `~sunflux.optimizer.Problem`).
    """

    def __init__(self, errors: Sequence[Any] | str, message: str | None = None) -> None:
        if isinstance(errors, str):
            errors = [errors]
        self.errors: list[Any] = list(errors)
        if message is None:
            if len(self.errors) == 1:
                message = str(self.errors[0])
            else:
                lines = "\n".join(f"  - {e}" for e in self.errors)
                message = f"{len(self.errors)} problems:\n{lines}"
        super().__init__(message)

    def __reduce__(self) -> Any:
        return (type(self), (self.errors, str(self)))


class MissingFileError(ParameterError, FileNotFoundError):
    """A file sunflux was asked to read does not exist (also a `FileNotFoundError`).

    Parameters
    ----------
    errors : sequence or str
        The problems (strings or problem objects); one string is one problem.
    message : str, optional
        The exception's text; by default the one problem, or "N problems:" and a list.

    Attributes
    ----------
    errors : list
        Every problem found (strings, or problem objects whose ``str`` is readable, such as
        `~sunflux.optimizer.Problem`).
    """

    def __init__(self, errors: Sequence[Any] | str, message: str | None = None) -> None:
        ParameterError.__init__(self, errors, message)


class ArgumentError(ParameterError, TypeError):
    """A call's arguments do not fit it: one is missing, unknown, or another library's name for
    one of sunflux's (pvlib's ``surface_tilt`` for ``tilt``). The message names the public call
    and the argument. Also a `TypeError`, which Python raises for the same mistakes.

    Parameters
    ----------
    errors : sequence or str
        The problems (strings or problem objects); one string is one problem.
    message : str, optional
        The exception's text; by default the one problem, or "N problems:" and a list.

    Attributes
    ----------
    errors : list
        Every problem found (strings, or problem objects whose ``str`` is readable, such as
        `~sunflux.optimizer.Problem`).
    """

    def __init__(self, errors: Sequence[Any] | str, message: str | None = None) -> None:
        ParameterError.__init__(self, errors, message)


class TransportError(SunfluxError):
    """The request could not be completed: connection, TLS, timeout or a truncated body.

    It carries only the message, which says what failed and, after retries, "gave up after N
    attempts".
    """


class ApiError(SunfluxError):
    """The service answered with an error.

    Parameters
    ----------
    message : str
        The exception's text.
    status : int, default 0
        The HTTP status (0 when there was none).
    errors : sequence of str, default ()
        The service's messages.
    code : str, optional
        The gateway's error code (``API_KEY_INVALID``, ``OVER_RATE_LIMIT`` ...).
    body : str, default ""
        The response text, the API key redacted.
    url : str, default ""
        The request URL without the key.
    retry_after : float, optional
        Time the service asked to wait before retrying (``Retry-After``) [s].
    remaining : int, optional
        Requests left in the key's window, as the service reported.

    Attributes
    ----------
    status : int
        The HTTP status (0 when there was none).
    errors : list of str
        The service's messages.
    code : str or None
        The gateway's error code (``API_KEY_INVALID``, ``OVER_RATE_LIMIT`` ...).
    body : str
        The response text, the API key redacted.
    url : str
        The request URL without the key.
    retry_after : float or None
        Time the service asked to wait before retrying (``Retry-After``) [s].
    remaining : int or None
        Requests left in the key's window, as the service reported.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int = 0,
        errors: Sequence[str] = (),
        code: str | None = None,
        body: str = "",
        url: str = "",
        retry_after: float | None = None,
        remaining: int | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.errors = list(errors)
        self.code = code
        self.body = body
        self.url = url
        self.retry_after = retry_after
        self.remaining = remaining

    def __reduce__(self) -> Any:
        kwargs = dict(
            status=self.status,
            errors=self.errors,
            code=self.code,
            body=self.body,
            url=self.url,
            retry_after=self.retry_after,
            remaining=self.remaining,
        )
        return (_rebuild_api_error, (type(self), str(self), kwargs))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(status={self.status}, code={self.code!r}, message={str(self)!r})"


def _rebuild_api_error(cls: type[ApiError], message: str, kwargs: dict[str, Any]) -> ApiError:
    return cls(message, **kwargs)


class ValidationError(ApiError):
    """422 / 400 with the service's list of errors (or the optimizer's ``input_errors``)."""


class AuthError(ApiError):
    """403: the API key is missing, invalid, disabled, unauthorized or unverified."""


class RateLimitError(ApiError):
    """429 ``OVER_RATE_LIMIT`` (or a 503 rate-limit body); see ``retry_after`` and ``remaining``."""


class QueueFullError(ApiError):
    """The climate download queue refused the request."""


class NotFoundError(ApiError):
    """404."""


class ServerError(ApiError):
    """5xx, an HTML gateway page, or a "Data processing failure"."""


def _share_api_error_sections(*subclasses: type[ApiError]) -> None:
    """Appends `ApiError`'s Parameters and Attributes sections to each subclass's docstring: the
    subclasses take the same arguments and carry the same payload, so the text is kept once."""
    doc = ApiError.__doc__
    if doc is None:  # python -OO strips docstrings
        return
    sections = doc[doc.index("    Parameters\n"):]
    for cls in subclasses:
        cls.__doc__ = f"{cls.__doc__}\n\n{sections}"


_share_api_error_sections(ValidationError, AuthError, RateLimitError, QueueFullError, NotFoundError, ServerError)


class JobFailed(SunfluxError):
    """An optimizer or technical-potential job ended in error; ``messages`` holds what it said.

    Parameters
    ----------
    message : str
        The exception's text.
    job_id : str, default ""
        The job's id (an optimizer run_uuid or a technical-potential job id).
    messages : object, optional
        What the job said (the optimizer's ``messages`` dict; ``{}`` by default).
    status : str, default ""
        The job's final status.

    Attributes
    ----------
    job_id : str
        The job's id.
    messages : object
        What the job said (the optimizer's ``messages`` dict, ``{}`` when it said nothing).
    status : str
        The job's final status.
    """

    def __init__(self, message: str, *, job_id: str = "", messages: Any = None, status: str = "") -> None:
        super().__init__(message)
        self.job_id = job_id
        self.messages = messages if messages is not None else {}
        self.status = status

    def __reduce__(self) -> Any:
        return (_rebuild_job_failed, (str(self), self.job_id, self.messages, self.status))


def _rebuild_job_failed(message: str, job_id: str, messages: Any, status: str) -> JobFailed:
    return JobFailed(message, job_id=job_id, messages=messages, status=status)


class JobTimeout(SunfluxError, TimeoutError):
    """A wait deadline passed before the job finished; ``job_id`` lets the caller resume.

    Parameters
    ----------
    message : str
        The exception's text.
    job_id : str, default ""
        The job's id, to poll again later.
    last_status : str, default ""
        The status of the last poll.

    Attributes
    ----------
    job_id : str
        The job's id, to poll again later.
    last_status : str
        The status of the last poll.
    """

    def __init__(self, message: str, *, job_id: str = "", last_status: str = "") -> None:
        super().__init__(message)
        self.job_id = job_id
        self.last_status = last_status

    def __reduce__(self) -> Any:
        return (_rebuild_job_timeout, (str(self), self.job_id, self.last_status))


def _rebuild_job_timeout(message: str, job_id: str, last_status: str) -> JobTimeout:
    return JobTimeout(message, job_id=job_id, last_status=last_status)


class ServiceWarning(UserWarning):
    """A warning the service returned in its ``warnings`` list that signals a problem with the
    answer (it also stays on the result). Notes that are the normal state of a valid answer —
    the dataset query's "No intl data found for ..." when other datasets have a station — stay
    on the result's ``.warnings`` only (docs/design.md, "Service warnings")."""


class UnitWarning(UserWarning):
    """A value that is legal (or nearly) but almost certainly in the wrong unit: ``losses=0.14``
    where a percent is expected, a roof system of 4000 kW meant as 4000 W, the optimizer's
    ``PV.losses=14`` where a fraction is expected. The message names the unit and the value
    that was probably meant (``warnings.simplefilter("ignore", sf.UnitWarning)`` silences it)."""


def warn_service(message: str, stacklevel: int) -> None:
    """Issues a `ServiceWarning` at the caller ``stacklevel`` frames up (as `warnings.warn`), but
    without recording it in that module's warnings registry: service warnings name the request's
    coordinates, so each text is new and the registry (kept to show a warning once per place)
    would grow with every call of a long-running program. They are shown each time instead."""
    frame = sys._getframe(1)
    for _ in range(stacklevel - 1):
        frame = frame.f_back or frame
    warnings.warn_explicit(
        message,
        ServiceWarning,
        frame.f_code.co_filename,
        frame.f_lineno,
        module=frame.f_globals.get("__name__"),
        registry=None,
    )
