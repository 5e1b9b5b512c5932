"""Optimizer jobs: ``client.optimizer.submit / results / run`` and the `OptimizerResult`; the
optimizer's inputs from outside: ``client.optimizer.simulated_load`` (reference building loads)
and ``client.optimizer.urdb_rate`` (Utility Rate Database rates).

The job contract (the live service's, followed by the embedded one): POST ``…/job/`` answers
201 ``{"run_uuid": …}`` or 400 with ``messages.input_errors``; GET ``…/job/<uuid>/results/``
answers 200 with ``status`` ``"Optimizing..."``, ``"optimal"`` or ``"An error occurred. See
messages for more."``, 400 with ``status: "error"``, or 404 "not in database" right after the
POST (a race the client waits out for a short grace period).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from sunflux import _core
from sunflux._client import handle_of
from sunflux._errors import ApiError, JobFailed, JobTimeout, NotFoundError, ParameterError, ValidationError
from sunflux._frames import to_polars
from sunflux._polling import Backoff
from sunflux._twins import Call, async_twin_of, awaitable, blocking, core_call
from sunflux.optimizer.scenario import Scenario
from sunflux.optimizer.validation import validate_scenario_dict

if TYPE_CHECKING:
    import polars as pl

    from sunflux._client import AsyncClient, Client, CoreHandle, Response

__all__ = ["OptimizerResult", "OptimizerService", "AsyncOptimizerService", "Record", "RUNNING_STATUSES", "OPTIMAL"]

OPTIMAL = "optimal"
#: Statuses of a run that is still going.
RUNNING_STATUSES = frozenset({"Optimizing...", "Validating..."})
#: How long a 404 right after POST is taken as "not stored yet" rather than "no such run".
NOT_FOUND_GRACE = 30.0
#: The version of the Utility Rate Database API asked for (the one the optimizer reads).
URDB_API_VERSION = 8
_URDB_LABEL = re.compile(r"[0-9a-fA-F]{24}")


def _blend(doe_reference_name: str | Mapping[str, float]) -> tuple[list[Any], list[Any]]:
    """(names, shares): one name with no shares, or a blend ``{name: share}``."""
    if isinstance(doe_reference_name, Mapping):
        return list(doe_reference_name), list(doe_reference_name.values())
    return [doe_reference_name], []


def _load_frame(core: _core.CoreSimulatedLoad) -> pl.DataFrame:
    return to_polars(core.table())


def _check_label(label: str) -> str:
    if not isinstance(label, str) or not _URDB_LABEL.fullmatch(label):
        raise ParameterError(f"urdb_label must be a URDB rate label of 24 hexadecimal digits (got {label!r})")
    return label


def _rate_from_items(body: Any, what: str) -> dict[str, Any]:
    items = body.get("items") if isinstance(body, Mapping) else None
    if not items:
        raise NotFoundError(f"the Utility Rate Database has no rate for {what}", status=404)
    return dict(items[0])


def _newest_named(body: Any, utility: str, rate_name: str) -> dict[str, Any]:
    """The newest rate of a utility whose name is part of ``rate_name`` (the optimizer's rule)."""
    items = [item for item in (body.get("items") or []) if isinstance(item, Mapping) and str(item.get("name", "")) in rate_name]
    if not items:
        raise NotFoundError(f"the Utility Rate Database has no rate {rate_name!r} of {utility!r}", status=404)
    return dict(max(items, key=lambda item: item.get("startdate") or 0))


def _urdb_query(**extra: str) -> dict[str, Any]:
    return {"version": URDB_API_VERSION, "format": "json", "detail": "full", **extra}


class Record(Mapping[str, Any]):
    """Read-only attribute access to a nested results mapping: ``outputs.PV.size_kw``."""

    __slots__ = ("_data", "_path")

    def __init__(self, data: Mapping[str, Any], path: str = "") -> None:
        self._data = data
        self._path = path

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            where = self._path or "the results"
            raise AttributeError(f"{where} has no {name!r} (it has: {', '.join(sorted(self._data))})") from None

    def __getitem__(self, key: str) -> Any:
        value = self._data[key]
        return Record(value, f"{self._path}.{key}" if self._path else key) if isinstance(value, Mapping) else value

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __dir__(self) -> list[str]:
        return sorted(self._data)

    def to_dict(self) -> dict[str, Any]:
        return dict(self._data)

    def __repr__(self) -> str:
        scalars = {k: v for k, v in self._data.items() if not isinstance(v, (list, Mapping))}
        nested = [k for k, v in self._data.items() if isinstance(v, Mapping)]
        series = [k for k, v in self._data.items() if isinstance(v, list)]
        parts = [f"{k}={v!r}" for k, v in list(scalars.items())[:8]]
        if nested:
            parts.append(f"sections={nested}")
        if series:
            parts.append(f"{len(series)} series")
        return f"Record({self._path or 'outputs'}: {', '.join(parts)})"


class OptimizerResult:
    """A run in whatever state it is: ``status``, ``messages`` (info, warnings, errors),
    ``inputs``, ``outputs`` (attribute access: ``outputs.PV.size_kw``, ``outputs.Financial.npv``),
    ``series()`` (every time series of the outputs as one polars frame) and ``raw`` (the dict)."""

    def __init__(self, raw: Mapping[str, Any], http_status: int = 200) -> None:
        self.raw: dict[str, Any] = dict(raw)
        self.http_status = http_status
        self.run_uuid: str = str(raw.get("run_uuid", ""))
        self.status: str = str(raw.get("status", ""))
        self.messages: dict[str, Any] = dict(raw.get("messages") or {})
        self.inputs = Record(raw.get("inputs") or {}, "inputs")
        self.outputs = Record(raw.get("outputs") or {}, "outputs")

    @property
    def optimal(self) -> bool:
        return self.status == OPTIMAL

    @property
    def running(self) -> bool:
        return self.status in RUNNING_STATUSES

    def _inputs(self, section: str) -> Mapping[str, Any]:
        inputs = self.raw.get("inputs") or {}
        value = inputs.get(section) if isinstance(inputs, Mapping) else None
        return value if isinstance(value, Mapping) else {}

    def _steps(self) -> tuple[int, int, int]:
        per_hour = int(self._inputs("Settings").get("time_steps_per_hour") or 1)
        year = int(self._inputs("ElectricLoad").get("year") or 2017)
        return per_hour, 8760 * per_hour, year

    def series(self, tz: float | None = None) -> pl.DataFrame:
        """Every series of the outputs (lists of one value per time step) as Float64 columns named
        ``Section.field``, after a ``timestamp`` column: the start of each time step from 1 January
        of ``inputs.ElectricLoad.year`` (2017, the reference profiles' year, when absent) at
        ``time_steps_per_hour``, µs, tz-aware in the site's standard time. The optimizer works in
        local standard time without saying which; ``tz`` (hours east of UTC) names it, otherwise
        sunflux takes the standard time of the nearest place it knows within 400 km of
        ``inputs.Site`` (or the nautical zone, longitude / 15), and UTC without a site."""
        import polars as pl

        per_hour, steps, year = self._steps()
        columns: dict[str, list[float]] = {}
        for section, fields in (self.raw.get("outputs") or {}).items():
            if not isinstance(fields, Mapping):
                continue
            for name, values in fields.items():
                if isinstance(values, list) and len(values) == steps and all(isinstance(v, (int, float)) for v in values[:24]):
                    columns[f"{section}.{name}"] = values
        if tz is None:
            site = self._inputs("Site")
            lat, lon = site.get("latitude"), site.get("longitude")
            numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (lat, lon))
            tz = _core.site_standard_offset(float(lat), float(lon)) if numeric else 0.0  # type: ignore[arg-type]
        start = _dt.datetime(year, 1, 1, tzinfo=_dt.timezone.utc) - _dt.timedelta(minutes=round(tz * 60))
        step = _dt.timedelta(minutes=60 // per_hour)
        stamps = pl.datetime_range(start, start + step * (steps - 1), step, time_unit="us", time_zone="UTC", eager=True)
        timestamp = stamps.dt.convert_time_zone(_core.standard_time_zone_name(tz)).alias("timestamp")
        return pl.DataFrame([timestamp, *(pl.Series(name, values, dtype=pl.Float64) for name, values in columns.items())])

    def simulate_outages(self, *, microgrid_only: bool = False) -> dict[str, Any]:
        """Hours the sized system survives an outage starting at each time step, with the
        service's ``resilience_stats`` keys (see ``sunflux.optimizer.outages``)."""
        from sunflux.optimizer.outages import simulate_outages

        return simulate_outages(self, microgrid_only=microgrid_only)

    def __repr__(self) -> str:
        if self.optimal:
            financial = self.raw.get("outputs", {}).get("Financial", {}) or {}
            return f"OptimizerResult({self.run_uuid}, optimal, lcc={financial.get('lcc')}, npv={financial.get('npv')})"
        return f"OptimizerResult({self.run_uuid}, status={self.status!r})"


def _scenario_dict(scenario: Scenario | Mapping[str, Any]) -> dict[str, Any]:
    if not isinstance(scenario, (Scenario, Mapping)):
        raise ParameterError(f"scenario must be a Scenario or a dict (got {type(scenario).__name__})")
    document = scenario.to_dict() if isinstance(scenario, Scenario) else dict(scenario)
    problems = validate_scenario_dict(document)
    if problems:
        raise ParameterError(problems)
    return document


def _answer(handle: CoreHandle, response: Response) -> dict[str, Any]:
    """The JSON object of an answer with the client's key masked (a typed result never holds
    it); `ApiError` when the body is not a JSON object."""
    text = handle.core.redact(response.text)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        raise ApiError(
            f"the optimizer's answer (HTTP {response.status}) is not a JSON object",
            status=response.status,
            errors=["the answer is not a JSON object"],
            body=text[:4096],
            url=response.url,
        )
    return value


def _run_uuid(answer: Mapping[str, Any], response: Response) -> str:
    """The run_uuid a POST answered with; `ApiError` when it has none."""
    run_uuid = answer.get("run_uuid")
    if not isinstance(run_uuid, str) or not run_uuid:
        raise ApiError(
            f"the optimizer's answer (HTTP {response.status}) has no run_uuid",
            status=response.status,
            errors=["the answer has no run_uuid"],
            body=json.dumps(answer)[:4096],
            url=response.url,
        )
    return run_uuid


def _checked_run_uuid(run_uuid: object) -> str:
    if not isinstance(run_uuid, str):
        raise ParameterError(f"run_uuid must be a UUID string (got {type(run_uuid).__name__})")
    return run_uuid


def _error_body(error: ApiError) -> Any:
    try:
        return json.loads(error.body)
    except (ValueError, RecursionError, TypeError):
        return None


def _validation_error(error: ValidationError) -> ValidationError:
    """Adds the service's per-section ``input_errors`` to a 400 answer's error."""
    body = _error_body(error)
    messages = body.get("messages") if isinstance(body, Mapping) else None
    errors = messages.get("input_errors") if isinstance(messages, Mapping) else None
    error.input_errors = errors or {}  # type: ignore[attr-defined]
    return error


def _result_from_error(error: ApiError) -> OptimizerResult:
    """A 400 ``status: error`` answer about a run (its body names the run_uuid) is a state of
    the run, not a transport problem; any other 400 is raised."""
    body = _error_body(error)
    if not isinstance(body, Mapping) or "status" not in body or not body.get("run_uuid"):
        raise error
    return OptimizerResult(body, error.status)


def _failure(result: OptimizerResult) -> JobFailed:
    errors = result.messages.get("errors") or result.messages.get("error") or {}
    detail = f": {errors}" if errors else ""
    return JobFailed(
        f"optimizer run {result.run_uuid} ended with status {result.status!r}{detail}",
        job_id=result.run_uuid,
        messages=result.messages,
        status=result.status,
    )


class _Poller:
    """The polling schedule and the 404 grace shared by the sync and async ``run``."""

    def __init__(self, run_uuid: str, timeout: float, poll_interval: float, max_interval: float) -> None:
        self.run_uuid = run_uuid
        self.backoff = Backoff(timeout, poll_interval, max_interval)
        self.timeout = timeout
        self.last_status = "submitted"

    def next_wait(self) -> float:
        return self.backoff.next_wait(self._expired)

    def _expired(self) -> JobTimeout:
        return JobTimeout(
            f"optimizer run {self.run_uuid} still {self.last_status!r} after {self.timeout} s; "
            f"resume with client.optimizer.results({self.run_uuid!r})",
            job_id=self.run_uuid,
            last_status=self.last_status,
        )

    def settle(self, result: OptimizerResult | None) -> OptimizerResult | None:
        """The final result, None to keep polling; raises for failures."""
        if result is None:
            if self.backoff.elapsed > NOT_FOUND_GRACE:
                raise NotFoundError(f"optimizer run {self.run_uuid} is not in the database", status=404)
            return None
        self.last_status = result.status
        if result.optimal:
            return result
        if result.running:
            return None
        raise _failure(result)


class _OptimizerBase:
    """What both optimizer classes share: the core handle, each call's checks, request and result
    (the helpers are the module's functions above)."""

    def __init__(self, handle: CoreHandle | Client | AsyncClient) -> None:
        self._handle = handle_of(handle)

    def _submit(self, scenario: Scenario | Mapping[str, Any]) -> Call[str]:
        """Validates with the scenario builder's rules (`ParameterError` with every problem,
        nothing sent), POSTs the job and returns its ``run_uuid``. A 400 answer raises
        `ValidationError` with ``input_errors`` (per section)."""
        document = _scenario_dict(scenario)

        def submitted(response: Response) -> str:
            return _run_uuid(_answer(self._handle, response), response)

        handle = self._handle
        return core_call(submitted, handle.request, handle.request_async, "POST", "optimizer_job", json=document).recover(
            ValidationError, _rejected
        )

    def _results(self, run_uuid: str) -> Call[OptimizerResult]:
        """The run in whatever state it is (a 404 raises `NotFoundError`; a run_uuid that is not a
        UUID raises `ParameterError` before anything is sent)."""
        args = {"run_uuid": _checked_run_uuid(run_uuid)}

        def answered(response: Response) -> OptimizerResult:
            return OptimizerResult(_answer(self._handle, response), response.status)

        handle = self._handle
        return core_call(
            answered, handle.request, handle.request_async, "GET", "optimizer_results", args=args, check_errors=False
        ).recover(ValidationError, _result_from_error)

    def _run(
        self, scenario: Scenario | Mapping[str, Any], *, timeout: float = 1200.0, poll_interval: float = 1.0, max_interval: float = 15.0
    ) -> Call[OptimizerResult]:
        """Submits and polls with backoff until the run is optimal (returned), fails (`JobFailed`
        with the messages) or ``timeout`` s pass (`JobTimeout` carrying ``job_id`` = run_uuid)."""

        def run() -> OptimizerResult:
            poller = _Poller(self._submit(scenario).run(), timeout, poll_interval, max_interval)
            while (final := poller.settle(_unless_missing(self._results(poller.run_uuid).run))) is None:
                time.sleep(poller.next_wait())
            return final

        async def run_async() -> OptimizerResult:
            import asyncio  # here, not at the top: only async callers should pay for importing it

            poller = _Poller(await self._submit(scenario).run_async(), timeout, poll_interval, max_interval)
            while (final := poller.settle(await _unless_missing_async(self._results(poller.run_uuid).run_async))) is None:
                await asyncio.sleep(poller.next_wait())
            return final

        return Call(run, run_async)

    def _simulated_load(
        self,
        latitude: float,
        longitude: float,
        doe_reference_name: str | Mapping[str, float],
        *,
        annual_kwh: float | None = None,
        monthly_totals_kwh: Sequence[float] | None = None,
        year: int | None = None,
        time_steps_per_hour: int | None = None,
    ) -> Call[pl.DataFrame]:
        """The service's load profile of a reference building type (or a blend
        ``{"Hospital": 0.75, "LargeOffice": 0.25}``, shares summing to 1), scaled to
        ``annual_kwh`` or ``monthly_totals_kwh`` (else the type's default at the site), for
        ``year`` (default 2017). A polars frame of ``timestamp`` (naive local time) and
        ``load_kw``, one row per time step. Every parameter is checked first (`ParameterError`
        listing every problem, nothing sent)."""
        names, shares = _blend(doe_reference_name)
        return core_call(
            _load_frame, _core.optimizer_simulated_load, _core.optimizer_simulated_load_async,
            self._handle.core, latitude, longitude, names, shares, annual_kwh, list(monthly_totals_kwh or []), year,
            time_steps_per_hour, self._handle.trace(),
        )

    def _urdb_rate(self, label: str) -> Call[dict[str, Any]]:
        """The full rate object of a Utility Rate Database label (what ``urdb_response`` holds);
        `NotFoundError` when the database has no such rate."""
        query = _urdb_query(getpage=_check_label(label))

        def found(response: Response) -> dict[str, Any]:
            return _rate_from_items(response.json(), f"label {label}")

        return self._handle.urdb_call(query).then(found)

    def _urdb_rate_by_name(self, utility: str, rate_name: str) -> Call[dict[str, Any]]:
        """The newest rate of ``utility`` whose name is part of ``rate_name`` (how the optimizer
        reads ``urdb_utility_name`` with ``urdb_rate_name``)."""
        if not utility or not rate_name:
            raise ParameterError("urdb_utility_name and urdb_rate_name must both be given")
        query = _urdb_query(ratesforutility=utility)

        def found(response: Response) -> dict[str, Any]:
            return _newest_named(response.json(), utility, rate_name)

        return self._handle.urdb_call(query).then(found)


def _rejected(error: ValidationError) -> NoReturn:
    raise _validation_error(error) from None


def _unless_missing(results: Callable[[], OptimizerResult]) -> OptimizerResult | None:
    """A run the database does not know yet (None) is still being stored, until `_Poller` says not."""
    try:
        return results()
    except NotFoundError:
        return None


async def _unless_missing_async(results: Callable[[], Awaitable[OptimizerResult]]) -> OptimizerResult | None:
    """`_unless_missing`, awaitable."""
    try:
        return await results()
    except NotFoundError:
        return None


class OptimizerService(_OptimizerBase):
    """``client.optimizer``: submit scenarios, read results, or run to completion."""

    submit = blocking(_OptimizerBase._submit)
    results = blocking(_OptimizerBase._results)
    run = blocking(_OptimizerBase._run)
    simulated_load = blocking(_OptimizerBase._simulated_load)
    urdb_rate = blocking(_OptimizerBase._urdb_rate)
    urdb_rate_by_name = blocking(_OptimizerBase._urdb_rate_by_name)


@async_twin_of(OptimizerService)
class AsyncOptimizerService(_OptimizerBase):
    """``async_client.optimizer``: the same calls, awaitable."""

    submit = awaitable(_OptimizerBase._submit)
    results = awaitable(_OptimizerBase._results)
    run = awaitable(_OptimizerBase._run)
    simulated_load = awaitable(_OptimizerBase._simulated_load)
    urdb_rate = awaitable(_OptimizerBase._urdb_rate)
    urdb_rate_by_name = awaitable(_OptimizerBase._urdb_rate_by_name)
