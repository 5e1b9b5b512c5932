"""Technical potential (deprecated service): configuration, jobs, polling, results, deletion.

The live service no longer functions; this client works with any server that speaks the
contract, the embedded `LocalService` included, and says so once per process with a
`DeprecationWarning`. Validation against the configuration, the request and the parsing happen
in the Rust core.
"""

from __future__ import annotations

import json
import warnings
from dataclasses import dataclass, field
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from sunflux import _core
from sunflux._errors import ParameterError
from sunflux._frames import to_polars
from sunflux._twins import Call, async_twin_of, awaitable, blocking, core_call, unchanged

if TYPE_CHECKING:
    import polars as pl

    from sunflux._handle import ServiceHandle

__all__ = [
    "InputField",
    "Resource",
    "Region",
    "Configuration",
    "Stats",
    "JobResult",
    "JobState",
    "TechnicalPotentialJob",
    "TechnicalPotentialService",
    "AsyncTechnicalPotentialJob",
    "AsyncTechnicalPotentialService",
]

DEPRECATION_MESSAGE = (
    "The technical potential service is deprecated and no longer functioning on the live host; "
    "sunflux talks to any server that speaks its contract (sunflux.LocalService included)."
)
_warned = False


def _warn_deprecated(wrappers: int = 0) -> None:
    """Warns once per process, at the user's line: the caller of the public method calling this,
    or of the ``wrappers`` functions around it (1 for a base method behind a `_twins` face)."""
    global _warned
    if not _warned:
        _warned = True
        warnings.warn(DEPRECATION_MESSAGE, DeprecationWarning, stacklevel=3 + wrappers)


@dataclass(frozen=True)
class InputField:
    """One filter a resource accepts: ``field_values`` are the offered values, if any.
    `TechnicalPotentialService.config` builds it; users do not construct it.

    Attributes
    ----------
    field_id : int
        The field's id.
    field_name : str
        The field's name, as a job's ``fields`` key.
    data_type : str
        The field's data type as the configuration names it.
    field_values : object
        The offered values (JSON, as the configuration gives them), or None.
    default_value : object
        The value a job gets when it leaves the field out (JSON), or None.
    """

    field_id: int
    field_name: str
    data_type: str
    field_values: Any = None
    default_value: Any = None


@dataclass(frozen=True)
class Resource:
    """A resource of a region: ``key`` such as ``fixlat`` or ``wind_t200``; power density in MW/km².
    `TechnicalPotentialService.config` builds it; users do not construct it.

    Attributes
    ----------
    id : int
        The resource's id, a job's ``resource``.
    key : str
        The resource's key (``fixlat``, ``wind_t200`` ...).
    label : str
        The resource's label.
    default_power_density : float or None
        The power density a job uses unless given one [MW/km^2].
    input_fields : list of InputField
        The filters a job on this resource accepts.
    """

    id: int
    key: str
    label: str
    default_power_density: float | None
    input_fields: list[InputField] = field(default_factory=list)


@dataclass(frozen=True)
class Region:
    """A region (a country or part of one) of a configuration, with the resources it offers.
    `TechnicalPotentialService.config` builds it; users do not construct it.

    Attributes
    ----------
    id : int
        The configuration entry's id, a job's ``region``.
    region_id : int
        The region's own id (the same number unless the configuration gives two).
    label : str
        The region's name.
    resources : list of Resource
        The resources offered in the region.
    """

    id: int
    region_id: int
    label: str
    resources: list[Resource] = field(default_factory=list)

    def resource(self, key_or_id: str | int) -> Resource:
        """The resource with this key, label (case-insensitive, as in ``submit``) or id.

        Parameters
        ----------
        key_or_id : str or int
            The resource's key, label or id.

        Returns
        -------
        Resource

        Raises
        ------
        ParameterError
            The region has no such resource (the message lists its keys).
        """
        token = str(key_or_id).strip().lower()
        for resource in self.resources:
            if token in (resource.key.lower(), resource.label.lower(), str(resource.id)):
                return resource
        raise ParameterError(f"region {self.label} has no resource {key_or_id!r} (it has {', '.join(r.key for r in self.resources)})")


class Configuration:
    """What a technical-potential server offers: ``regions`` with their resources and fields.
    `TechnicalPotentialService.config` returns it; users do not construct it.

    Attributes
    ----------
    regions : list of Region
        The regions, each with its resources and their input fields.
    version : str or None
        The service's version, as the answer gives it.
    inputs : dict
        The request's inputs, as the answer echoes them.
    """

    def __init__(self, core: _core.TechnicalPotentialConfiguration) -> None:
        self._core = core
        self.regions: list[Region] = [
            Region(region_id_, region_id, label, [Resource(*resource[:4], [InputField(*f) for f in resource[4]]) for resource in resources])
            for region_id_, region_id, label, resources in core.regions()
        ]
        self.version: str | None = core.version
        self.inputs: dict[str, Any] = core.inputs()

    def region(self, name_or_id: str | int) -> Region:
        """The region with this label or id.

        Parameters
        ----------
        name_or_id : str or int
            The region's label (case-insensitive), ``id`` or ``region_id``.

        Returns
        -------
        Region

        Raises
        ------
        ParameterError
            No region matches (the message lists the labels offered).
        """
        for region in self.regions:
            if str(name_or_id).lower() in (region.label.lower(), str(region.id), str(region.region_id)):
                return region
        raise ParameterError(f"no region {name_or_id!r} (offered: {', '.join(r.label for r in self.regions)})")

    def to_polars(self) -> pl.DataFrame:
        """One row per region × resource × input field.

        Returns
        -------
        polars.DataFrame
        """
        return to_polars(self._core.to_arrow())

    def __repr__(self) -> str:
        return f"Configuration({', '.join(f'{r.label} ({len(r.resources)} resources)' for r in self.regions)})"


@dataclass(frozen=True)
class Stats:
    """Totals (MW, MWh, km²), the resource range, and ``classes`` (a polars frame: min, max,
    nameplate_capacity_mw, ac_generation_mwh, land_area_sq_km; no rows when the answer lists no
    classes). `JobResult` builds it; users do not construct it.

    Attributes
    ----------
    total_nameplate_capacity_mw : float
        Total nameplate capacity [MW].
    total_ac_generation_mwh : float
        Total AC generation [MWh].
    total_land_area_sq_km : float
        Total land area [km^2].
    min : float or None
        The lowest resource value, in the job's ``units`` (`JobResult.units`).
    max : float or None
        The highest resource value, in the job's ``units``.
    classes : polars.DataFrame
        One row per resource class: min, max (resource units), nameplate_capacity_mw [MW],
        ac_generation_mwh [MWh], land_area_sq_km [km^2].
    """

    total_nameplate_capacity_mw: float
    total_ac_generation_mwh: float
    total_land_area_sq_km: float
    min: float | None
    max: float | None
    classes: pl.DataFrame

    def __eq__(self, other: object) -> bool:
        # The generated __eq__ would compare the polars frames with ==, which raises.
        if not isinstance(other, Stats):
            return NotImplemented
        scalars = (self.total_nameplate_capacity_mw, self.total_ac_generation_mwh, self.total_land_area_sq_km, self.min, self.max)
        other_scalars = (other.total_nameplate_capacity_mw, other.total_ac_generation_mwh, other.total_land_area_sq_km, other.min, other.max)
        return scalars == other_scalars and bool(self.classes.equals(other.classes))


class JobState:
    """A job's status: ``status`` (queued, started, finished), ``runtime_seconds``.
    A job's ``status()`` returns it; users do not construct it.

    Attributes
    ----------
    status : str
        ``"queued"``, ``"started"`` or ``"finished"``.
    runtime_seconds : float or None
        How long the job has run, as the service reports [s].
    disposition : str or None
        The job's disposition, as the service reports it.
    finished : bool
        Whether the job finished (its results are then known).
    """

    def __init__(self, core: _core.TechnicalPotentialJobResult) -> None:
        self._core = core
        self.status: str = core.status
        self.runtime_seconds: float | None = core.runtime_seconds
        self.disposition: str | None = core.disposition

    @property
    def finished(self) -> bool:
        """Whether the job finished (its results are then known)."""
        return self.status == "finished"

    def __repr__(self) -> str:
        return f"JobState({self.status!r}, runtime_seconds={self.runtime_seconds})"


class JobResult(JobState):
    """A finished job: ``cumulative`` and ``regional`` `Stats`, ``resource_type``, ``units``,
    ``map_data_deleted`` (True once the job's map assets were deleted; the summary stays).
    A job's ``wait()``, ``status()`` or ``result`` returns it; users do not construct it.

    Attributes
    ----------
    status : str
        ``"finished"``.
    runtime_seconds : float or None
        How long the job ran, as the service reports [s].
    disposition : str or None
        The job's disposition, as the service reports it.
    finished : bool
        True.
    map_data_deleted : bool
        True once the job's map assets were deleted (the summary stays).
    resource_type : str or None
        The resource's type, as the results give it.
    units : str or None
        The unit of the resource values (the ``min`` and ``max`` of the `Stats`).
    cumulative : Stats
        The totals over every region.
    regional : dict of str to Stats
        The totals per region name.
    outputs : dict
        The job's whole ``outputs`` document.
    """

    def __init__(self, core: _core.TechnicalPotentialJobResult) -> None:
        super().__init__(core)
        outputs = core.outputs()
        self.map_data_deleted: bool = bool(core.map_data_deleted)
        results = outputs.get("results") or {}
        self.resource_type: str | None = (results.get("resource_data") or {}).get("type")
        self.units: str | None = (results.get("resource_data") or {}).get("units")
        cumulative = results.get("cumulative_stats") or {}
        self.cumulative = self._stats(cumulative, None, "min", "max")
        self.regional: dict[str, Stats] = {
            name: self._stats(stats, name, "regional_min", "regional_max") for name, stats in (results.get("regional_stats") or {}).items()
        }
        self.outputs: dict[str, Any] = outputs

    def _stats(self, record: dict[str, Any], region: str | None, low: str, high: str) -> Stats:
        low_value, high_value = record.get(low), record.get(high)
        return Stats(
            float(record.get("total_nameplate_capacity_mw", 0.0)),
            float(record.get("total_ac_generation_mwh", 0.0)),
            float(record.get("total_land_area_sq_km", 0.0)),
            None if low_value is None else float(low_value),
            None if high_value is None else float(high_value),
            to_polars(self._core.classes(region)),
        )

    def __repr__(self) -> str:
        c = self.cumulative
        return f"JobResult({c.total_nameplate_capacity_mw:.1f} MW, {c.total_ac_generation_mwh:.0f} MWh, {c.total_land_area_sq_km:.1f} km², regions={list(self.regional)})"


class _JobBase:
    """What both job classes share: the handle, the job's identity, the last finished result
    and turning a poll's answer into a `JobState` or `JobResult`."""

    def __init__(self, handle: ServiceHandle, explorer: str, job_id: str) -> None:
        self._handle = handle
        self.explorer = explorer
        self.job_id = job_id
        self._result: JobResult | None = None

    def _poll(self, delete: bool) -> Call[_core.TechnicalPotentialJobResult]:
        return core_call(unchanged, _core.technical_potential_job, self._handle.transport, self.explorer, self.job_id, delete, trace=self._handle.trace())

    def _status(self) -> Call[JobState]:
        """One poll. A job in any status but queued, started or finished raises `JobFailed`.

        Returns
        -------
        JobState or JobResult
            A `JobResult` once the job has finished, else its `JobState`.

        Raises
        ------
        JobFailed
            The job is in a failure status.
        """
        return self._poll(False).then(self._state)

    def _wait(self, timeout: float = 600.0, poll_interval: float = 1.0, max_interval: float = 15.0) -> Call[JobResult]:
        """Polls until the job finishes: the interval starts at ``poll_interval`` s and grows by
        half each time up to ``max_interval`` (polling is not rate-limited, but politeness is free).
        Raises `JobTimeout` (with ``job_id``) after ``timeout`` s, `JobFailed` on a failure status.

        Parameters
        ----------
        timeout : float, default 600.0
            Seconds to wait for the job to finish.
        poll_interval : float, default 1.0
            The first pause between polls (s).
        max_interval : float, default 15.0
            The longest pause between polls (s).

        Returns
        -------
        JobResult
            The finished job's summary.

        Raises
        ------
        JobTimeout
            ``timeout`` s passed first.
        JobFailed
            The job reached a failure status.
        """
        return core_call(
            self._kept, _core.technical_potential_wait, self._handle.transport, self.explorer, self.job_id, timeout, poll_interval, max_interval,
            trace=self._handle.trace(),
        )

    def _delete(self) -> Call[JobResult]:
        """Destroys the job's map assets; the summary stays and reports ``map_data_deleted``.

        Returns
        -------
        JobResult
            The job's summary after the deletion.
        """
        return self._poll(True).then(self._kept)

    def _state(self, core: _core.TechnicalPotentialJobResult) -> JobState:
        if core.status == "finished":
            self._result = JobResult(core)
            return self._result
        return JobState(core)

    def _kept(self, core: _core.TechnicalPotentialJobResult) -> JobResult:
        """The result of a finished job (waited for or deleted), kept as the job's `result`."""
        self._result = JobResult(core)
        return self._result

    def _finished(self, state: JobState) -> JobResult:
        """The result of a finished job; `ParameterError` for a job that is not finished."""
        if not isinstance(state, JobResult):
            raise ParameterError(f"job {self.job_id} is {state.status}, not finished: call wait() first")
        return state

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.explorer!r}, {self.job_id!r})"


class TechnicalPotentialJob(_JobBase):
    """A submitted job. ``status()`` polls once, ``wait()`` polls with backoff until finished,
    ``result`` is the finished result, ``delete()`` destroys the job's map assets.
    `TechnicalPotentialService.submit` returns it; users do not construct it.

    Attributes
    ----------
    explorer : str
        The explorer the job runs on.
    job_id : str
        The job's id.
    result : JobResult
        The finished result (polls once if not known yet; raises if the job is not finished).
    """

    status = blocking(_JobBase._status)
    wait = blocking(_JobBase._wait)
    delete = blocking(_JobBase._delete)

    @property
    def result(self) -> JobResult:
        """The finished result (polls once if not known yet; raises if the job is not finished)."""
        return self._result if self._result is not None else self._finished(self.status())


@async_twin_of(TechnicalPotentialJob)
class AsyncTechnicalPotentialJob(_JobBase):
    """`TechnicalPotentialJob` for `AsyncClient`: the same calls, awaitable (``await job.result``).
    `AsyncTechnicalPotentialService.submit` returns it; users do not construct it.

    Attributes
    ----------
    explorer : str
        The explorer the job runs on.
    job_id : str
        The job's id.
    result : awaitable of JobResult
        The finished result (polls once if not known yet; raises if the job is not finished).
    """

    status = awaitable(_JobBase._status)
    wait = awaitable(_JobBase._wait)
    delete = awaitable(_JobBase._delete)

    @property
    def result(self) -> Awaitable[JobResult]:
        """The finished result, awaitable (polls once if not known yet; raises if the job is not finished)."""
        return self._result_now()

    async def _result_now(self) -> JobResult:
        return self._result if self._result is not None else self._finished(await self.status())


def _countries(countries: Any) -> Any:
    """A list of country names as the comma-joined text the core checks; anything else as is."""
    if isinstance(countries, (list, tuple)) and all(isinstance(name, str) for name in countries):
        return ",".join(countries)
    return countries


def _fields_json(fields: dict[str, Any]) -> str:
    try:
        return json.dumps(fields, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ParameterError(f"job fields must be JSON values (text, numbers, booleans, lists, dicts): {error}") from None


class _TechnicalPotentialBase:
    """What both service classes share: the handle, the configurations already read (one per
    explorer, for ``submit``'s checks) and the requests' arguments."""

    def __init__(self, handle: ServiceHandle) -> None:
        self._handle = handle
        self._configs: dict[str, Configuration] = {}

    def _config(self, explorer: str, *, countries: str | list[str] | None = None, wkt: str | None = None) -> Call[Configuration]:
        """Read an explorer's regions with their resources and input fields.

        Parameters
        ----------
        explorer : str
            The explorer's name (``"rede"`` on the embedded service).
        countries : str or list of str, optional
            Only the regions of these countries.
        wkt : str, optional
            Only the region containing this ``POINT(lon lat)`` (degrees).

        Returns
        -------
        Configuration
            The regions, each with its resources and their input fields (types, defaults, ranges).

        Raises
        ------
        ApiError
            The service refused the request.

        Warns
        -----
        DeprecationWarning
            The technical-potential service is deprecated upstream.
        """
        _warn_deprecated(wrappers=1)
        return core_call(
            Configuration, _core.technical_potential_config, self._handle.transport, explorer, _countries(countries), wkt,
            trace=self._handle.trace(),
        )

    def _known_config(self, explorer: str) -> Configuration | None:
        return self._configs.get(explorer) if isinstance(explorer, str) else None

    def _remember(self, explorer: str, config: Configuration) -> Configuration:
        self._configs[explorer] = config
        return config

    def _submit_args(
        self, explorer: str, config: Configuration, region: str | int, resource: str | int, fields: dict[str, Any]
    ) -> tuple[_core.Transport, str, _core.TechnicalPotentialConfiguration, str, str, str]:
        return (self._handle.transport, explorer, config._core, str(region), str(resource), _fields_json(fields))


class TechnicalPotentialService(_TechnicalPotentialBase):
    """``client.technical_potential``: the technical-potential explorer (configurations, jobs,
    results). The client builds it when it is made; users do not construct it."""

    config = blocking(_TechnicalPotentialBase._config)

    def submit(self, explorer: str, region: str | int, resource: str | int, **fields: Any) -> TechnicalPotentialJob:
        """Check a job's fields against its region and resource, fill the defaults, and submit it.

        Parameters
        ----------
        explorer : str
            The explorer's name.
        region : str or int
            The region's name or id, from `config`.
        resource : str or int
            The resource's name or id within the region.
        **fields
            The resource's input fields (JSON values), in the units its configuration states.

        Returns
        -------
        TechnicalPotentialJob
            The submitted job: poll it with ``status()``/``wait()``, read ``result``, ``delete()`` it.

        Raises
        ------
        ParameterError
            A field is unknown, of the wrong type or out of range (every problem at once); nothing
            was sent.
        ApiError
            The service refused the job.
        """
        _warn_deprecated()
        config = self._known_config(explorer) or self._remember(explorer, self.config(explorer))
        args = self._submit_args(explorer, config, region, resource, fields)
        job_id, _status = _core.technical_potential_submit(*args, trace=self._handle.trace()).wait()
        return TechnicalPotentialJob(self._handle, explorer, job_id)

    def job(self, explorer: str, job_id: str) -> TechnicalPotentialJob:
        """Re-attach to an existing job.

        Parameters
        ----------
        explorer : str
            The explorer the job was submitted to.
        job_id : str
            The job's id (``job.job_id`` of the submitted job).

        Returns
        -------
        TechnicalPotentialJob
            The job; nothing is sent until it is polled.
        """
        _warn_deprecated()
        return TechnicalPotentialJob(self._handle, explorer, job_id)


@async_twin_of(TechnicalPotentialService)
class AsyncTechnicalPotentialService(_TechnicalPotentialBase):
    """``async_client.technical_potential``: the same calls as `TechnicalPotentialService`, awaitable.
    The client builds it when it is made; users do not construct it."""

    config = awaitable(_TechnicalPotentialBase._config)

    async def submit(self, explorer: str, region: str | int, resource: str | int, **fields: Any) -> AsyncTechnicalPotentialJob:
        _warn_deprecated()
        config = self._known_config(explorer) or self._remember(explorer, await self.config(explorer))
        args = self._submit_args(explorer, config, region, resource, fields)
        job_id, _status = await _core.technical_potential_submit(*args, trace=self._handle.trace())
        return AsyncTechnicalPotentialJob(self._handle, explorer, job_id)

    def job(self, explorer: str, job_id: str) -> AsyncTechnicalPotentialJob:
        _warn_deprecated()
        return AsyncTechnicalPotentialJob(self._handle, explorer, job_id)
