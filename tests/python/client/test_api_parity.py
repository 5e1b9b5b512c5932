"""The blocking and the awaitable faces cannot drift: every public member of a blocking class has
an async twin with the same parameters (names, kinds, defaults, annotations) whose result is the
awaitable of the blocking one's, and every public member of both is documented."""

from __future__ import annotations

import inspect
import re

import pytest

from sunflux import _client, climate, pv, solar, technical_potential
from sunflux.optimizer import jobs

#: (blocking class, async class, {blocking name: async name} where the names differ).
PAIRS: list[tuple[type, type, dict[str, str]]] = [
    (_client.Client, _client.AsyncClient, {"close": "aclose", "__enter__": "__aenter__", "__exit__": "__aexit__"}),
    (solar.SolarService, solar.AsyncSolarService, {}),
    (pv.PvService, pv.AsyncPvService, {}),
    (climate.ClimateService, climate.AsyncClimateService, {}),
    (technical_potential.TechnicalPotentialService, technical_potential.AsyncTechnicalPotentialService, {}),
    (technical_potential.TechnicalPotentialJob, technical_potential.AsyncTechnicalPotentialJob, {}),
    (jobs.OptimizerService, jobs.AsyncOptimizerService, {}),
]
#: Blocking classes whose async twins a result names instead (a job handle is not awaited).
TWIN_NAMES = {blocking.__name__: twin.__name__ for blocking, twin, _ in PAIRS}
#: Members of `_ClientBase` (shared, so one definition serves both faces).
SHARED = {"closed", "base_url", "urdb_base_url", "routes", "rate_limit", "url"}


def _public(cls: type) -> dict[str, object]:
    members = {}
    for name in dir(cls):
        if name.startswith("_") and name not in ("__enter__", "__exit__", "__aenter__", "__aexit__"):
            continue
        member = inspect.getattr_static(cls, name)
        if isinstance(member, (property, staticmethod, classmethod)) or inspect.isfunction(member):
            members[name] = member
    return members


def _twin_annotation(annotation: str) -> str:
    """The blocking annotation with each blocking class named by its async twin."""
    return re.sub(r"\b(\w+)\b", lambda m: TWIN_NAMES.get(m.group(1), m.group(1)), annotation)


def _parameters(function: object) -> list[tuple[str, object, object, object]]:
    signature = inspect.signature(function)  # type: ignore[arg-type]
    return [(p.name, p.kind, p.default, p.annotation) for p in signature.parameters.values()]


def _pairs_of_members() -> list[tuple[str, object, object]]:
    found = []
    for blocking, twin, renamed in PAIRS:
        twin_members = _public(twin)
        for name, member in _public(blocking).items():
            if name in SHARED and blocking is _client.Client:
                continue
            twin_name = renamed.get(name, name)
            assert twin_name in twin_members, f"{twin.__name__} has no twin of {blocking.__name__}.{name}"
            found.append((f"{blocking.__name__}.{name}", member, twin_members[twin_name]))
        extra = set(twin_members) - {renamed.get(n, n) for n in _public(blocking)}
        assert not extra, f"{twin.__name__} has members its blocking twin lacks: {sorted(extra)}"
    return found


MEMBER_PAIRS = _pairs_of_members()


def test_every_pair_is_checked() -> None:
    # Services, jobs and the clients: at least one method each, the number is in the report.
    assert len(MEMBER_PAIRS) >= 20


@pytest.mark.parametrize(("name", "blocking", "twin"), MEMBER_PAIRS, ids=[name for name, _, _ in MEMBER_PAIRS])
def test_async_twin_has_the_same_signature(name: str, blocking: object, twin: object) -> None:
    if isinstance(blocking, property):
        assert isinstance(twin, property), f"{name}: the twin is not a property"
        sync_return = inspect.signature(blocking.fget).return_annotation  # type: ignore[arg-type]
        twin_return = inspect.signature(twin.fget).return_annotation  # type: ignore[union-attr, arg-type]
        assert twin_return in (_twin_annotation(sync_return), f"Awaitable[{sync_return}]"), name
        return
    assert inspect.isfunction(blocking) and inspect.isfunction(twin), name
    blocking_params = _parameters(blocking)
    twin_params = _parameters(twin)
    # Annotations are compared as written (``from __future__ import annotations``), with the
    # blocking classes named by their twins.
    assert [(n, k, d, _twin_annotation(str(a))) for n, k, d, a in blocking_params] == [
        (n, k, d, str(a)) for n, k, d, a in twin_params
    ], name
    sync_return = str(inspect.signature(blocking).return_annotation)
    twin_return = str(inspect.signature(twin).return_annotation)
    if inspect.iscoroutinefunction(twin):
        # ``async def f() -> T`` is a function returning ``Awaitable[T]``.
        assert not inspect.iscoroutinefunction(blocking), f"{name}: the blocking twin is a coroutine"
        assert twin_return == _twin_annotation(sync_return), name
    else:
        # Only calls without I/O (a job handle) stay plain functions on the async face.
        assert twin_return == _twin_annotation(sync_return) != sync_return, f"{name}: the async twin must be awaitable"


#: The context-manager protocol documents itself.
DOCUMENTED = [pair for pair in MEMBER_PAIRS if not pair[0].endswith("__")]


@pytest.mark.parametrize(("name", "blocking", "twin"), DOCUMENTED, ids=[name for name, _, _ in DOCUMENTED])
def test_every_public_member_is_documented(name: str, blocking: object, twin: object) -> None:
    for member in (blocking, twin):
        function = member.fget if isinstance(member, property) else member
        assert (getattr(function, "__doc__", None) or "").strip(), f"{name}: no docstring"


def test_every_class_is_documented() -> None:
    for blocking, twin, _ in PAIRS:
        assert blocking.__doc__ and twin.__doc__


def test_async_job_result_is_awaitable() -> None:
    """``await job.result`` gives the finished result, as ``job.result`` does on the blocking face."""
    import asyncio
    import warnings

    import sunflux as sf

    async def main(service: sf.LocalService) -> None:
        async with service.async_client() as client:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                job = await client.technical_potential.submit("rede", "Kenya", "fixlat")
                fresh = client.technical_potential.job("rede", job.job_id)
                with pytest.raises(sf.ParameterError, match="not finished: call wait"):
                    await fresh.result
                finished = await job.wait(timeout=10, poll_interval=0.02)
            assert (await job.result) is finished
            result = await fresh.result
            assert result.finished and result.cumulative == finished.cumulative

    with sf.LocalService(jobs=sf.JobSettings(start_delay=0.5, run_time=0.05)) as service:
        asyncio.run(main(service))


@pytest.mark.parametrize(("blocking", "twin"), [("request", "request_async"), ("urdb_request", "urdb_request_async")])
def test_core_handle_requests_have_awaitable_twins(blocking: str, twin: str) -> None:
    sync, awaitable = getattr(_client.ServiceHandle, blocking), getattr(_client.ServiceHandle, twin)
    assert inspect.iscoroutinefunction(awaitable) and not inspect.iscoroutinefunction(sync)
    assert inspect.signature(sync) == inspect.signature(awaitable)
    assert sync.__doc__ and awaitable.__doc__
