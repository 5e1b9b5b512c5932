"""Sync/async twins: each service exists as a blocking class and an awaitable one that share a
base (argument checking, request building, result wrapping) and differ only in how they wait for
I/O, as httpx's `Client` and `AsyncClient` share `BaseClient`.

A base method ``_name(self, ...) -> Call[T]`` is written once, with the public parameters and
docstring; it checks its arguments and returns a `Call` that can run blocking or be awaited.
``name = blocking(_Base._name)`` and ``name = awaitable(_Base._name)`` make the two public
methods from it, so a parameter is spelled once and both faces show it (``help()``,
``inspect.signature``, mypy). `async_twin_of` gives the remaining async members (written by hand)
their blocking twins' docstrings. tests/python/client/test_api_parity.py checks that every pair has the same
methods with the same signatures."""

from __future__ import annotations

import ast
import functools
import inspect
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

from sunflux._arguments import mistyped
from sunflux._core import PendingCall
from sunflux._errors import ArgumentError

_Class = TypeVar("_Class", bound=type)
_Self = TypeVar("_Self")
_Params = ParamSpec("_Params")
_Result = TypeVar("_Result")
_Raw = TypeVar("_Raw")
_Then = TypeVar("_Then")
_Error = TypeVar("_Error", bound=BaseException)


class Call(Generic[_Result]):
    """A request whose arguments are checked: `run` waits for it, `run_async` awaits it."""

    __slots__ = ("run", "run_async")

    def __init__(self, run: Callable[[], _Result], run_async: Callable[[], Awaitable[_Result]]) -> None:
        self.run = run
        self.run_async = run_async

    def recover(self, kind: type[_Error], handler: Callable[[_Error], _Result]) -> Call[_Result]:
        """This call, with an error of ``kind`` given to ``handler`` (which returns the result or
        raises another error)."""
        run, run_async = self.run, self.run_async

        def guarded() -> _Result:
            try:
                return run()
            except kind as error:
                return handler(error)

        async def guarded_async() -> _Result:
            try:
                return await run_async()
            except kind as error:
                return handler(error)

        return Call(guarded, guarded_async)

    def then(self, finish: Callable[[_Result], _Then]) -> Call[_Then]:
        """This call, its result given to ``finish``."""
        run, run_async = self.run, self.run_async

        async def finished_async() -> _Then:
            return finish(await run_async())

        return Call(lambda: finish(run()), finished_async)


def unchanged(value: _Result) -> _Result:
    """The ``finish`` of a `core_call` whose answer is the result."""
    return value


def core_call(
    finish: Callable[[_Raw], _Result],
    start: Callable[_Params, PendingCall[_Raw]],
    *args: _Params.args,
    **kwargs: _Params.kwargs,
) -> Call[_Result]:
    """The `Call` of a core function (``start``, which checks its arguments and returns a
    `PendingCall`), whose answer ``finish`` turns into the result. The core call is made when the
    `Call` runs, so either face checks the arguments at that moment."""

    async def awaited() -> _Result:
        return finish(await start(*args, **kwargs))

    return Call(lambda: finish(start(*args, **kwargs).wait()), awaited)


def _rename(method: Callable[..., Any], build: Callable[..., Any], name: str | None) -> None:
    """Gives the public ``method`` made from ``build`` its ``name`` (by default the build's
    without the leading underscore) and, as its return, the ``T`` of ``build``'s ``Call[T]``."""
    name, result = name or build.__name__.lstrip("_"), _result_of(build)
    method.__name__ = name
    method.__qualname__ = f"{build.__qualname__.rpartition('.')[0]}.{name}".lstrip(".")
    method.__annotations__ = {**build.__annotations__, "return": result}
    setattr(method, "__signature__", inspect.signature(build).replace(return_annotation=result))


def _result_of(build: Callable[..., Any]) -> str:
    """The ``T`` of ``build``'s ``-> Call[T]`` annotation, as written (annotations stay text, so
    names imported only for type checkers, such as polars, are not imported here)."""
    written = str(inspect.signature(build).return_annotation)
    annotation = ast.parse(written, mode="eval").body
    if not (isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name) and annotation.value.id == "Call"):
        raise TypeError(f"{build.__qualname__} must be annotated `-> Call[...]` (got {written!r})")
    return ast.unparse(annotation.slice)


def _mistyped(name: str, build: Callable[..., Any], owner: Any, args: tuple[Any, ...], kwargs: dict[str, Any], error: TypeError) -> ArgumentError | None:
    """The `ArgumentError` for a call of the public method ``name`` whose arguments do not fit
    ``build`` (named ``ClimateService.download_csv()``, not the private base method), or None.
    The methods call ``build`` themselves: a warning inside it keeps its stack level."""
    return mistyped(f"{type(owner).__name__}.{name}()", build, (owner, *args), kwargs, error)


def blocking(
    build: Callable[Concatenate[_Self, _Params], Call[_Result]], name: str | None = None
) -> Callable[Concatenate[_Self, _Params], _Result]:
    """The blocking method made from a base's ``_name(...) -> Call[T]``: checks, sends, waits."""

    @functools.wraps(build)
    def method(self: _Self, /, *args: _Params.args, **kwargs: _Params.kwargs) -> _Result:
        try:
            call = build(self, *args, **kwargs)
        except TypeError as error:
            problem = _mistyped(method.__name__, build, self, args, kwargs, error)
            if problem is None:
                raise
            raise problem from None
        return call.run()

    _rename(method, build, name)
    return method


def awaitable(
    build: Callable[Concatenate[_Self, _Params], Call[_Result]], name: str | None = None
) -> Callable[Concatenate[_Self, _Params], Coroutine[Any, Any, _Result]]:
    """The async method made from a base's ``_name(...) -> Call[T]``: checks when awaited, as an
    ``async def`` does, then awaits the request."""

    @functools.wraps(build)
    async def method(self: _Self, /, *args: _Params.args, **kwargs: _Params.kwargs) -> _Result:
        try:
            call = build(self, *args, **kwargs)
        except TypeError as error:
            problem = _mistyped(method.__name__, build, self, args, kwargs, error)
            if problem is None:
                raise
            raise problem from None
        return await call.run_async()

    _rename(method, build, name)
    return method


def async_twin_of(sync_class: type) -> Callable[[_Class], _Class]:
    """Class decorator: each public member of the decorated (async) class without a docstring
    takes its blocking twin's, so ``help()`` shows the same text on both."""

    def decorate(twin: _Class) -> _Class:
        if not twin.__doc__:
            twin.__doc__ = f"`{sync_class.__name__}`, awaitable."
        for name, member in vars(twin).items():
            if name.startswith("_") and name not in ("__aenter__", "__aexit__"):
                continue
            source = inspect.getattr_static(sync_class, name, None)
            if source is None:
                continue
            target = member.fget if isinstance(member, property) else member
            origin = source.fget if isinstance(source, property) else source
            if callable(target) and not getattr(target, "__doc__", None) and getattr(origin, "__doc__", None):
                target.__doc__ = origin.__doc__
        return twin

    return decorate
