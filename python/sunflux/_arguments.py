"""Calls whose arguments do not fit, told in the user's terms: Python's own `TypeError` names the
private function a public method is built from (``_ClimateBase._download_csv()``) and gives no
hint for another library's spelling, so sunflux raises an `ArgumentError` naming the public call,
the argument and, for pvlib's names, sunflux's (docs/design.md, "Errors").
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from sunflux._errors import ArgumentError

__all__ = ["ALIASES", "alias_hint", "mistyped", "checked_arguments"]

_Function = TypeVar("_Function", bound=Callable[..., Any])

#: Other libraries' names for sunflux's arguments (pvlib's), each with sunflux's name.
ALIASES = {"surface_tilt": "tilt", "surface_azimuth": "azimuth"}


def alias_hint(name: str) -> str:
    """`` (pvlib's surface_tilt is sunflux's tilt=)`` for a known alias, else nothing."""
    ours = ALIASES.get(name)
    return f" (pvlib's {name} is sunflux's {ours}=)" if ours else ""


def _argument_error(call: str, function: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> ArgumentError | None:
    """The error of calling ``function`` (shown as ``call``) with these arguments, or None when
    they fit its signature (so a `TypeError` came from inside and is the caller's to keep)."""
    signature = inspect.signature(function)
    parameters = signature.parameters
    takes_any_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
    unknown = [
        name for name in kwargs
        if not takes_any_keyword and (name not in parameters or parameters[name].kind is inspect.Parameter.POSITIONAL_ONLY)
    ]
    problems = [f"{call} has no argument {name}={alias_hint(name)}" for name in unknown]
    try:
        bound = signature.bind_partial(*args, **{name: value for name, value in kwargs.items() if name not in unknown})
    except TypeError as error:
        problems.append(f"{call}: {error}")
    else:
        problems.extend(
            f"{call} needs {name}=" for name, parameter in parameters.items()
            if parameter.default is inspect.Parameter.empty
            and parameter.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
            and name not in bound.arguments
        )
    return ArgumentError(problems) if problems else None


def mistyped(call: str, function: Callable[..., Any], args: tuple[Any, ...], kwargs: Mapping[str, Any], error: TypeError) -> ArgumentError | None:
    """The `ArgumentError` naming ``call`` for the ``error`` Python raised calling ``function``
    with these arguments, or None when they fit it (the `TypeError` came from inside and is
    kept). Callers check only after Python refused a call, so a fitting call costs nothing, and
    call ``function`` themselves, so a warning's stack level inside it is not moved."""
    return None if isinstance(error, ArgumentError) else _argument_error(call, function, args, kwargs)


def checked_arguments(function: _Function) -> _Function:
    """``function`` raising an `ArgumentError` (naming it as ``sunflux.<module>.<name>()``) when
    called with arguments that do not fit it."""
    call = f"sunflux.{function.__module__.rpartition('.')[2]}.{function.__name__}()"

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except TypeError as error:
            problem = mistyped(call, function, args, kwargs, error)
            if problem is None:
                raise
            raise problem from None

    return checked  # type: ignore[return-value]
