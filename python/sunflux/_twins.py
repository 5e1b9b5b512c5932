"""Sync/async twins: each service exists as a blocking class and an awaitable one that share a
base (argument checking, request building, result wrapping) and differ only in how they wait for
I/O, as httpx's `Client` and `AsyncClient` share `BaseClient`. `async_twin_of` gives the async
class's methods the documentation of their blocking twins, so that it is written once;
tests/test_api_parity.py checks that every pair has the same methods with the same signatures."""

from __future__ import annotations

import inspect
from typing import Callable, TypeVar

_Class = TypeVar("_Class", bound=type)


def async_twin_of(blocking: type) -> Callable[[_Class], _Class]:
    """Class decorator: each public member of the decorated (async) class without a docstring
    takes its blocking twin's, so ``help()`` shows the same text on both."""

    def decorate(twin: _Class) -> _Class:
        if not twin.__doc__:
            twin.__doc__ = f"`{blocking.__name__}`, awaitable."
        for name, member in vars(twin).items():
            if name.startswith("_") and name not in ("__aenter__", "__aexit__"):
                continue
            source = inspect.getattr_static(blocking, name, None)
            if source is None:
                continue
            target = member.fget if isinstance(member, property) else member
            origin = source.fget if isinstance(source, property) else source
            if callable(target) and not getattr(target, "__doc__", None) and getattr(origin, "__doc__", None):
                target.__doc__ = origin.__doc__
        return twin

    return decorate
