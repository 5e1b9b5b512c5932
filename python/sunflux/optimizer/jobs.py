"""Optimizer jobs: ``client.optimizer.submit / results / run`` and the `OptimizerResult`; the
optimizer's inputs from outside: ``client.optimizer.simulated_load`` (reference building loads),
``client.optimizer.urdb_rate`` (Utility Rate Database rates) and the grid emissions and health-cost
look-ups ``avert_emissions_profile``, ``cambium_profile`` and ``easiur_costs``.

The job contract (the live service's, followed by the embedded one): POST ``…/job/`` answers
201 ``{"run_uuid": …}`` or 400 with ``messages.input_errors``; GET ``…/job/<uuid>/results/``
answers 200 with ``status`` ``"Optimizing..."``, ``"optimal"`` or ``"An error occurred. See
messages for more."``, 400 with ``status: "error"``, or 404 "not in database" right after the
POST (a race the client waits out for a short grace period). The calls, the reading of the
answers and the run's polling are Rust's (``services/optimizer/``); this module is their face.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from sunflux import _core
from sunflux._errors import ParameterError
from sunflux._frames import to_polars
from sunflux._twins import Call, async_twin_of, awaitable, blocking, core_call
from sunflux.optimizer import _summary
from sunflux.optimizer._document import ResultDocument
from sunflux.optimizer.outputs import Outputs, Record
from sunflux.optimizer.scenario import Scenario
from sunflux.optimizer.validation import validate_scenario_dict

if TYPE_CHECKING:
    import polars as pl

    from sunflux._handle import ServiceHandle

__all__ = ["OptimizerResult", "OptimizerService", "AsyncOptimizerService", "Record", "RUNNING_STATUSES", "OPTIMAL"]

OPTIMAL = _core.OPTIMIZER_OPTIMAL
#: Statuses of a run that is still going.
RUNNING_STATUSES = frozenset(_core.OPTIMIZER_RUNNING_STATUSES)
#: The first pause between polls of `OptimizerService.run` (s); each later one is half again as
#: long (the crate's one schedule, ``services/poll.rs``) up to `MAX_POLL_INTERVAL`.
FIRST_POLL_INTERVAL = 0.05
#: The longest pause between polls of a run (s).
MAX_POLL_INTERVAL = 15.0
#: How long a 404 right after POST is taken as "not stored yet" rather than "no such run".
NOT_FOUND_GRACE = 30.0
#: The version of the Utility Rate Database API asked for (the one the optimizer reads).
URDB_API_VERSION = _core.URDB_API_VERSION


def _blend(doe_reference_name: str | Mapping[str, float]) -> tuple[list[Any], list[Any]]:
    """(names, shares): one name with no shares, or a blend ``{name: share}``."""
    if isinstance(doe_reference_name, Mapping):
        return list(doe_reference_name), list(doe_reference_name.values())
    return [doe_reference_name], []


def _load_frame(core: _core.SimulatedLoad) -> pl.DataFrame:
    return to_polars(core.table())


def _wind_frame(core: _core.WindResource) -> pl.DataFrame:
    return to_polars(core.table())


def _avert(profile: _core.AvertEmissionsProfile) -> _core.AvertEmissionsProfile:
    return profile


def _cambium(profile: _core.CambiumProfile) -> _core.CambiumProfile:
    return profile


def _easiur(costs: _core.EasiurCosts) -> _core.EasiurCosts:
    return costs


class OptimizerResult(ResultDocument):
    """A run in whatever state it is: ``status``, ``messages`` (info, warnings, errors),
    ``inputs``, ``outputs`` (attribute access, typed for the common fields:
    ``outputs.PV.size_kw`` is a float, see `sunflux.optimizer.outputs`), ``series()`` (every time
    series of the outputs as one polars frame), ``summary()`` (one row of sizes and costs) and
    ``raw`` (the dict).

    The results document stays parsed on the Rust side: ``series()``, ``summary()`` and
    ``simulate_outages()`` read it there, and its year-long lists become Python objects only
    when ``raw``, ``inputs`` or ``outputs`` is first read. ``OptimizerResult(document)`` also
    takes a results dict kept from elsewhere (the live service's JSON, for example).

    Parameters
    ----------
    raw : mapping
        The results document (a dict with ``run_uuid``, ``status``, ``messages``, ``inputs``,
        ``outputs``), or the core's parsed document.
    http_status : int, default 200
        The HTTP status of the answer the document came in.

    Attributes
    ----------
    run_uuid : str
        The run's id.
    status : str
        The run's status as the service gives it (``"optimal"`` when solved).
    messages : dict
        The run's ``info``, ``warnings`` and ``errors``.
    http_status : int
        The HTTP status of the answer.
    optimal : bool
        True when the run finished with an optimal solution.
    running : bool
        True while the run is still queued or being optimized (poll again).
    raw : dict
        The whole results document (converted on first read).
    inputs : Record
        The run's inputs, the service's defaults filled in.
    outputs : Outputs
        The run's outputs, typed in `sunflux.optimizer.outputs`.
    """

    @functools.cached_property
    def raw(self) -> dict[str, Any]:
        """The whole results document as a dict (converted on first read)."""
        raw: dict[str, Any] = self._document.to_dict()
        return raw

    @functools.cached_property
    def inputs(self) -> Record:
        """The run's inputs, the service's defaults filled in (converted on first read)."""
        return Record(self._document.part_dict("inputs"), "inputs")

    @functools.cached_property
    def outputs(self) -> Outputs:
        """The run's outputs (converted on first read; typed in `sunflux.optimizer.outputs`)."""
        return Outputs(self._document.part_dict("outputs"), "outputs")

    @property
    def optimal(self) -> bool:
        """True when the run finished with an optimal solution."""
        return self.status == OPTIMAL

    @property
    def running(self) -> bool:
        """True while the run is still queued or being optimized (poll again)."""
        return self.status in RUNNING_STATUSES

    def series(self, tz: float | None = None) -> pl.DataFrame:
        """Every series of the outputs (lists of one value per time step) as Float64 columns named
        ``Section.field``, after a ``timestamp`` column: the start of each time step from 1 January
        of ``inputs.ElectricLoad.year`` (2017, the reference profiles' year, when absent) at
        ``time_steps_per_hour``, µs, tz-aware in the site's standard time. The optimizer works in
        local standard time without saying which; ``tz`` (hours east of UTC) names it, otherwise
        sunflux takes the standard time of the nearest place it knows within 400 km of
        ``inputs.Site`` (or the nautical zone, longitude / 15), and UTC without a site.

        Parameters
        ----------
        tz : float, optional
            The site's standard time as hours east of UTC (e.g. -7.0); by default found from
            ``inputs.Site`` as above.

        Returns
        -------
        polars.DataFrame
            ``timestamp`` (Datetime, µs, tz-aware) then one Float64 column per output series in
            the service's units (``ElectricLoad.load_series_kw`` in kW,
            ``ElectricStorage.soc_series_fraction`` as 0 to 1, and so on), one row per time step.
        """
        return to_polars(self._document.series(tz))

    def summary(self) -> pl.DataFrame:
        """One row: ``run_uuid``, ``status``, the size of every technology (``PV.size_kw``,
        ``ElectricStorage.size_kwh``, …; ``PV[<name>].size_kw`` per array when there are
        several), ``Financial.lcc``, ``lcc_bau``, ``npv``, initial capital costs, payback and
        IRR, the year-one bill (``ElectricTariff.year_one_bill_before_tax`` and ``_bau``) and its
        parts, and the ``Site`` emissions the run reports. Numbers are Float64, null where the run
        does not report them. `sunflux.optimizer.summaries` stacks many; the columns are listed in
        docs/design.md, "Optimizer jobs".

        Returns
        -------
        polars.DataFrame
            One row; sizes in kW or kWh, costs and bills in $, payback in years, IRR as a
            fraction, emissions in the service's units (tonnes CO2 and so on).
        """
        return _summary.summary(self)

    def simulate_outages(self, *, microgrid_only: bool = False) -> dict[str, Any]:
        """Hours the sized system survives an outage starting at each time step, with the
        service's ``resilience_stats`` keys (see ``sunflux.optimizer.outages``).

        Parameters
        ----------
        microgrid_only : bool, default False
            Simulate only the outage microgrid of the multiple-outage form
            (``Outages.*_upgraded``, ``generator_microgrid_size_kw``).

        Returns
        -------
        dict
            ``resilience_by_time_step`` (hours survived by an outage starting at each time step),
            ``resilience_hours_min``, ``resilience_hours_max``, ``resilience_hours_avg`` (hours),
            ``outage_durations`` (hours, 1 to the floor of the maximum plus 1) and
            ``probs_of_surviving`` (0 to 1, the share of starts surviving each duration).

        Raises
        ------
        ParameterError
            The result is not optimal, has no critical load series, or (with ``microgrid_only``)
            has no ``Outages`` section.
        """
        from sunflux.optimizer.outages import simulate_outages

        return simulate_outages(self, microgrid_only=microgrid_only)

    def __repr__(self) -> str:
        if self.optimal:
            lcc = self._document.number_at(["outputs", "Financial", "lcc"])
            npv = self._document.number_at(["outputs", "Financial", "npv"])
            return f"OptimizerResult({self.run_uuid}, optimal, lcc={lcc}, npv={npv})"
        return f"OptimizerResult({self.run_uuid}, status={self.status!r})"


def _scenario_json(scenario: Scenario | Mapping[str, Any]) -> bytes:
    """The scenario's JSON once the builder's rules accept it (`ParameterError` with every problem)."""
    if not isinstance(scenario, (Scenario, Mapping)):
        raise ParameterError(f"scenario must be a Scenario or a dict (got {type(scenario).__name__})")
    document = scenario.to_dict() if isinstance(scenario, Scenario) else dict(scenario)
    problems = validate_scenario_dict(document)
    if problems:
        raise ParameterError(problems)
    try:
        return json.dumps(document).encode()
    except (TypeError, ValueError) as error:
        raise ParameterError(f"scenario must be JSON-serialisable: {error}") from None


def _result(state: tuple[_core.ResultDocument, int]) -> OptimizerResult:
    return OptimizerResult(*state)


class _OptimizerBase:
    """What both optimizer classes share: the service handle, each call's checks, request and result
    (the calls themselves are Rust's, ``_core.optimizer_*``)."""

    def __init__(self, handle: ServiceHandle) -> None:
        self._handle = handle

    def _submit(self, scenario: Scenario | Mapping[str, Any]) -> Call[str]:
        """Validates with the scenario builder's rules (`ParameterError` with every problem,
        nothing sent), POSTs the job and returns its ``run_uuid``. A 400 answer raises
        `ValidationError` with ``input_errors`` (per section).

        Parameters
        ----------
        scenario : Scenario or mapping
            The scenario, or its dict as the service's JSON reads.

        Returns
        -------
        str
            The run's ``run_uuid``.

        Raises
        ------
        ParameterError
            The scenario breaks the builder's rules (every problem listed) or is not JSON.
        ValidationError
            The service answered 400 (its ``input_errors``).
        ApiError
            Any other refusal (`AuthError`, `RateLimitError`, `ServerError` ...).
        """
        return core_call(
            str, _core.optimizer_submit, self._handle.transport, _scenario_json(scenario), self._handle.trace()
        )

    def _results(self, run_uuid: str) -> Call[OptimizerResult]:
        """The run in whatever state it is (a 404 raises `NotFoundError`; a run_uuid that is not a
        UUID raises `ParameterError` before anything is sent).

        Parameters
        ----------
        run_uuid : str
            The run's id, as `submit` returned it.

        Returns
        -------
        OptimizerResult
            The run; check ``running``/``optimal``, its ``status`` or ``messages``.

        Raises
        ------
        ParameterError
            ``run_uuid`` is not a UUID.
        NotFoundError
            The service has no such run.
        """
        return core_call(
            _result, _core.optimizer_results, self._handle.transport, run_uuid, self._handle.trace()
        )

    def _run(
        self,
        scenario: Scenario | Mapping[str, Any],
        *,
        timeout: float = 1200.0,
        poll_interval: float = FIRST_POLL_INTERVAL,
        max_interval: float = MAX_POLL_INTERVAL,
    ) -> Call[OptimizerResult]:
        """Submits and polls with backoff [1]_ until the run is optimal (returned), fails (`JobFailed`
        with the messages) or ``timeout`` s pass (`JobTimeout` carrying ``job_id`` = run_uuid).

        The first poll follows the POST at once; the pauses between polls start at
        ``poll_interval`` s (0.05) and grow by half after each poll up to ``max_interval`` s (15),
        so a run is seen at most about half its duration plus ``poll_interval`` after it ends (a
        run of the embedded service that takes 0.3 s is seen by 0.41 s, not after a first 1 s
        pause), and a long one is polled every 15 s after its first half minute: 17 polls in its
        first minute, 8 more than pauses starting at 1 s would make.

        Parameters
        ----------
        scenario : Scenario or mapping
            The scenario, or its dict as the service's JSON reads.
        timeout : float, default 1200.0
            Seconds to wait for the run to end.
        poll_interval : float, default 0.05
            The first pause between polls (s).
        max_interval : float, default 15.0
            The longest pause between polls (s).

        Returns
        -------
        OptimizerResult
            The optimal run.

        Raises
        ------
        ParameterError
            The scenario breaks the builder's rules (nothing sent).
        ValidationError
            The service refused the scenario (400, its ``input_errors``).
        JobFailed
            The run ended without an optimal solution (its messages).
        JobTimeout
            ``timeout`` s passed first; ``job_id`` is the run_uuid.

        References
        ----------
        .. [1] NREL, REopt API, ``job`` and ``job/<run_uuid>/results`` endpoints,
           https://github.com/NREL/REopt_API.
        """
        return core_call(
            _result, _core.optimizer_run, self._handle.transport, _scenario_json(scenario),
            timeout, poll_interval, max_interval, NOT_FOUND_GRACE, self._handle.trace(),
        )

    def _simulated_load(
        self,
        latitude: float,
        longitude: float,
        doe_reference_name: str | Mapping[str, float] | None = None,
        *,
        load_type: str = "electric",
        annual_kwh: float | None = None,
        monthly_totals_kwh: Sequence[float] | None = None,
        annual_mmbtu: float | None = None,
        monthly_mmbtu: Sequence[float] | None = None,
        annual_tonhour: float | None = None,
        monthly_tonhour: Sequence[float] | None = None,
        annual_fraction: float | None = None,
        monthly_fraction: Sequence[float] | None = None,
        addressable_load_fraction: float | Sequence[float] | None = None,
        boiler_efficiency: float | None = None,
        chiller_cop: float | None = None,
        year: int | None = None,
        time_steps_per_hour: int | None = None,
        cooling_doe_ref_name: str | Mapping[str, float] | None = None,
    ) -> Call[pl.DataFrame]:
        """The service's load profile of a reference building type [1]_ (or a blend
        ``{"Hospital": 0.75, "LargeOffice": 0.25}``, shares summing to 1) for ``load_type``,
        scaled to the given energy (else the type's default at the site), for ``year`` (default
        2017). A polars frame of ``timestamp`` (naive local time) and the load in the service's
        unit, named by it: ``load_kw`` (electric), ``load_mmbtu_per_hour`` (boiler fuel of the
        heating types; ``heating`` adds ``space_load_mmbtu_per_hour`` and
        ``dhw_load_mmbtu_per_hour``), ``load_ton`` (cooling, thermal tons) or ``load_fraction``
        (cooling as a fraction of the electric load). Each type takes only its own parameters,
        as the service does. Every parameter is checked first (`ParameterError` listing every
        problem, nothing sent).

        An electric load asked with ``cooling_doe_ref_name`` adds the service's
        ``cooling_defaults`` for those buildings as columns: ``cooling_fraction_of_total_electric``
        (the buildings' cooling electricity over their total electricity, the service's hourly
        ``fraction_of_total_electric_profile`` repeated to the steps), ``cooling_load_ton`` (that
        share of ``load_kw`` in thermal tons: ``load_kw · fraction · COP / 3.51685``, the COP the
        default of the peak cooling electricity) and ``cooling_chiller_cop`` (the existing
        chiller's default COP, one value repeated).

        Parameters
        ----------
        latitude : float
            Site latitude (degrees north).
        longitude : float
            Site longitude (degrees east).
        doe_reference_name : str or mapping of str to float, optional
            A DOE commercial reference building type (``"Hospital"``, ``"LargeOffice"`` ...), or a
            blend of types to shares (0 to 1, summing to 1). For ``process_heat``, an industrial
            type (``"Chemical"``, ``"Warehouse"`` or a FlatLoad), sent as
            ``industrial_reference_name``. Not needed for a cooling fraction.
        load_type : str, default "electric"
            ``"electric"``, ``"heating"`` (space heating plus domestic hot water, split as the
            building type splits them), ``"space_heating"``, ``"domestic_hot_water"``,
            ``"process_heat"`` or ``"cooling"``.
        annual_kwh : float, optional
            Electric: the year's total energy (kWh) to scale to.
        monthly_totals_kwh : sequence of float, optional
            Electric: twelve monthly totals (kWh) to scale to, instead of ``annual_kwh``.
        annual_mmbtu : float, optional
            Heating types: the year's boiler fuel (MMBtu) to scale to.
        monthly_mmbtu : sequence of float, optional
            Heating types: twelve monthly fuel totals (MMBtu), instead of ``annual_mmbtu``.
        annual_tonhour : float, optional
            Cooling: the year's thermal cooling energy (ton-hours) to scale to.
        monthly_tonhour : sequence of float, optional
            Cooling: twelve monthly totals (ton-hours); they win over ``annual_tonhour``, as in
            the service. Cooling by building type needs one of the two.
        annual_fraction : float, optional
            Cooling: the cooling load as one fraction (0 to 1) of the electric load.
        monthly_fraction : sequence of float, optional
            Cooling: twelve monthly fractions (0 to 1) of the electric load.
        addressable_load_fraction : float or sequence of float, optional
            Heating types: the share of the fuel the heating technologies can serve (0 to 1), or
            twelve monthly shares with ``monthly_mmbtu``; the answer's fuel is this share.
        boiler_efficiency : float, optional
            Heating types: the existing boiler's efficiency (0 to 1); the service turns fuel into
            heat with it and back, so the fuel series does not depend on it.
        chiller_cop : float, optional
            Cooling: the existing chiller's COP (accepted as the service accepts it).
        year : int, optional
            The calendar year of the profile (default 2017).
        time_steps_per_hour : int, optional
            Electric: 1, 2 or 4 (default 1). The service answers heating and cooling hourly.
        cooling_doe_ref_name : str or mapping of str to float, optional
            Electric: the building type (or blend of types to shares summing to 1, sent as
            ``cooling_pct_share``) whose cooling share of the electric load to add (the columns
            above); without ``doe_reference_name`` the electric load is theirs too, as in the
            service.

        Returns
        -------
        polars.DataFrame
            ``timestamp`` (naive local time) and the load column(s) above, one row per time
            step.

        Raises
        ------
        ParameterError
            A parameter is out of range, unknown, or not one of ``load_type``'s (every problem
            listed, nothing sent).
        ApiError
            The service refused the request.

        References
        ----------
        .. [1] M. Deru et al., "U.S. Department of Energy Commercial Reference Building Models
           of the National Building Stock", NREL/TP-5500-46861, 2011.
        """
        names, shares = _blend(doe_reference_name) if doe_reference_name is not None else ([], [])
        cooling_names, cooling_shares = _blend(cooling_doe_ref_name) if cooling_doe_ref_name is not None else ([], [])
        if addressable_load_fraction is None:
            addressable: list[Any] = []
        elif isinstance(addressable_load_fraction, Sequence) and not isinstance(addressable_load_fraction, str):
            addressable = list(addressable_load_fraction)
        else:
            addressable = [addressable_load_fraction]
        return core_call(
            _load_frame, _core.optimizer_simulated_load,
            self._handle.transport, latitude, longitude, names, shares, annual_kwh, list(monthly_totals_kwh or []), year,
            time_steps_per_hour, self._handle.trace(),
            load_type=load_type, annual_mmbtu=annual_mmbtu, monthly_mmbtu=list(monthly_mmbtu or []),
            annual_tonhour=annual_tonhour, monthly_tonhour=list(monthly_tonhour or []), annual_fraction=annual_fraction,
            monthly_fraction=list(monthly_fraction or []), addressable_load_fraction=addressable,
            boiler_efficiency=boiler_efficiency, chiller_cop=chiller_cop,
            cooling_doe_ref_names=cooling_names, cooling_pct_shares=cooling_shares,
        )

    def _wind_resource(
        self, latitude: float, longitude: float, *, hub_height: int = 100, year: int = 2012
    ) -> Call[pl.DataFrame]:
        """A site-year of the WIND Toolkit [1]_ at one height, as the optimizer service downloads it
        for a Wind section without production (its SRW download): a polars frame of
        ``temperature_c`` (°C), ``pressure_atm`` (atm), ``wind_speed_m_per_s`` (m/s) and
        ``wind_direction_deg`` (degrees from north), one row per hour from 1 January. Every
        parameter is checked first (`ParameterError` listing every problem, nothing sent).

        Parameters
        ----------
        latitude : float
            Site latitude (degrees north).
        longitude : float
            Site longitude (degrees east).
        hub_height : int, default 100
            Height above ground (m): 10, 40, 60, 80, 100, 120, 140, 160 or 200.
        year : int, default 2012
            2007 to 2014 (the optimizer service asks for 2012).

        Returns
        -------
        polars.DataFrame
            The four columns above, one row per time step of the file.

        Raises
        ------
        ParameterError
            A parameter is out of range (every problem listed, nothing sent).
        ApiError
            The service refused the request (a site outside the toolkit).

        References
        ----------
        .. [1] C. Draxl et al., "The Wind Integration National Dataset (WIND) Toolkit", Applied
           Energy 151, 355-366, 2015.
        """
        return core_call(
            _wind_frame, _core.wind_toolkit_srw,
            self._handle.transport, latitude, longitude, hub_height, year, self._handle.trace(),
        )

    def _avert_emissions_profile(self, latitude: float, longitude: float, *, load_year: int = 2017) -> Call[_core.AvertEmissionsProfile]:
        """The EPA AVERT [1]_ hourly grid emissions factors of the site's region, as the optimizer
        service fills ``ElectricUtility.emissions_factor_series_lb_{CO2,NOx,SO2,PM25}_per_kwh``
        (the API's ``avert_emissions_profile/``). Every parameter is checked first
        (`ParameterError` listing every problem, nothing sent).

        Parameters
        ----------
        latitude : float
            Site latitude (degrees north).
        longitude : float
            Site longitude (degrees east).
        load_year : int, default 2017
            The year of the load; the series are shifted to start on its weekday.

        Returns
        -------
        AvertEmissionsProfile
            ``avert_region`` and ``avert_region_abbr``, ``avert_meters_to_region`` (0 inside it),
            the four ``emissions_factor_series_lb_*_per_kwh`` (lb/kWh, 8760 hourly values),
            ``units``, ``description`` and, from the embedded service, ``data_source`` (its
            numbers are a synthetic stand-in).

        Raises
        ------
        ParameterError
            A parameter is out of range, or the site is outside AVERT's regions (the service's
            message).

        References
        ----------
        .. [1] U.S. EPA, "AVoided Emissions and geneRation Tool (AVERT)", https://www.epa.gov/avert.
        """
        return core_call(
            _avert, _core.optimizer_avert_emissions_profile,
            self._handle.transport, latitude, longitude, load_year, self._handle.trace(),
        )

    def _cambium_profile(
        self,
        latitude: float,
        longitude: float,
        *,
        metric_col: str = "lrmer_co2e",
        scenario: str = "Mid-case",
        location_type: str = "GEA Regions 2023",
        start_year: int = 2025,
        lifetime: int = 25,
        grid_level: str = "enduse",
        load_year: int = 2017,
    ) -> Call[_core.CambiumProfile]:
        """A Cambium [1]_ levelized hourly profile of the site's region, as the optimizer service
        fills ``ElectricUtility.emissions_factor_series_lb_CO2_per_kwh`` (a CO2 ``metric_col``,
        lb/kWh) and ``renewable_energy_fraction_series`` (``cef_load`` or ``cef_gen``, a fraction)
        (the API's ``cambium_profile/``). The defaults are the service's for
        ``ElectricUtility.cambium_*``. Every parameter is checked first (`ParameterError` listing
        every problem, nothing sent).

        Parameters
        ----------
        latitude : float
            Site latitude (degrees north).
        longitude : float
            Site longitude (degrees east).
        metric_col : str, default "lrmer_co2e"
            The metric: a CO2 rate (``lrmer_co2e``, long-run marginal CO2e) or ``cef_load`` /
            ``cef_gen`` (clean-energy fraction).
        scenario : str, default "Mid-case"
            The Cambium scenario.
        location_type : str, default "GEA Regions 2023"
            ``"GEA Regions 2023"`` or ``"Nations"``.
        start_year : int, default 2025
            The first year of the levelization (2025 to 2050).
        lifetime : int, default 25
            Years averaged from ``start_year`` (the service passes ``cambium_levelization_years``,
            by default ``Financial.analysis_years``).
        grid_level : str, default "enduse"
            ``"enduse"`` (with distribution losses) or ``"busbar"``.
        load_year : int, default 2017
            The year of the load; the series are shifted to start on its weekday.

        Returns
        -------
        CambiumProfile
            ``location``, ``metric_col``, ``data_series`` (8760 hourly values), ``units``,
            ``description`` and, from the embedded service, ``data_source``.

        Raises
        ------
        ParameterError
            A parameter is out of range, or the service cannot look the site up (outside the
            contiguous states; the service's message).

        References
        ----------
        .. [1] P. Gagnon et al., "Cambium 2023 Data", NREL, https://scenarioviewer.nrel.gov.
        """
        return core_call(
            _cambium, _core.optimizer_cambium_profile,
            self._handle.transport, latitude, longitude, scenario, location_type, start_year, lifetime, metric_col,
            grid_level, load_year, self._handle.trace(),
        )

    def _easiur_costs(self, latitude: float, longitude: float, *, inflation: float = 0.025) -> Call[_core.EasiurCosts]:
        """The EASIUR [1]_ health costs of NOx, SO2 and PM2.5 emitted at the site, as the optimizer
        service fills ``Financial.{NOx,SO2,PM25}_{grid,onsite_fuelburn}_cost_per_tonne`` and
        ``_cost_escalation_rate_fraction`` (the API's ``easiur_costs/``). Every parameter is
        checked first (`ParameterError` listing every problem, nothing sent).

        Parameters
        ----------
        latitude : float
            Site latitude (degrees north).
        longitude : float
            Site longitude (degrees east).
        inflation : float, default 0.025
            Added to the real cost growth (the service passes
            ``Financial.om_cost_escalation_rate_fraction``; 0.025 is its commercial default).

        Returns
        -------
        EasiurCosts
            The nine costs ($/metric ton) and escalation rates (nominal annual fractions) under
            the service's names, ``units_costs``, ``units_escalation`` and, from the embedded
            service, ``data_source``.

        Raises
        ------
        ParameterError
            A parameter is out of range, or the site is outside EASIUR's grid (the service's
            message).

        References
        ----------
        .. [1] J. Heo, P. J. Adams, H. O. Gao, "Public Health Costs of Primary PM2.5 and Inorganic
           PM2.5 Precursor Emissions in the United States", Environ. Sci. Technol. 50, 6061-6070, 2016.
        """
        return core_call(
            _easiur, _core.optimizer_easiur_costs,
            self._handle.transport, latitude, longitude, inflation, self._handle.trace(),
        )

    def _urdb_rate(self, label: str) -> Call[dict[str, Any]]:
        """The full rate object of a Utility Rate Database [1]_ label (what ``urdb_response`` holds);
        `NotFoundError` when the database has no such rate.

        Parameters
        ----------
        label : str
            The rate's URDB label (a 24-character hex id).

        Returns
        -------
        dict
            The rate object as the URDB API returns it (energy rates in $/kWh, demand rates in
            $/kW, fixed charges in $/month).

        Raises
        ------
        NotFoundError
            The database has no rate with this label.

        References
        ----------
        .. [1] NREL/OpenEI, "Utility Rate Database API", https://openei.org/services/doc/rest/util_rates.
        """
        handle = self._handle
        return core_call(dict, _core.optimizer_urdb_rate, handle.urdb_transport, label, handle.trace())

    def _urdb_rate_by_name(self, utility: str, rate_name: str) -> Call[dict[str, Any]]:
        """The newest rate of ``utility`` whose name is part of ``rate_name`` (how the optimizer
        reads ``urdb_utility_name`` with ``urdb_rate_name``).

        Parameters
        ----------
        utility : str
            The utility's name as the database spells it.
        rate_name : str
            A string containing the rate's name.

        Returns
        -------
        dict
            The rate object as the URDB API returns it.

        Raises
        ------
        NotFoundError
            The database has no matching rate.
        """
        handle = self._handle
        return core_call(
            dict, _core.optimizer_urdb_rate_by_name, handle.urdb_transport, utility, rate_name, handle.trace()
        )


class OptimizerService(_OptimizerBase):
    """``client.optimizer``: submit scenarios, read results, or run to completion. The client
    builds it when it is made; users do not construct it."""

    submit = blocking(_OptimizerBase._submit)
    results = blocking(_OptimizerBase._results)
    run = blocking(_OptimizerBase._run)
    simulated_load = blocking(_OptimizerBase._simulated_load)
    urdb_rate = blocking(_OptimizerBase._urdb_rate)
    urdb_rate_by_name = blocking(_OptimizerBase._urdb_rate_by_name)
    wind_resource = blocking(_OptimizerBase._wind_resource)
    avert_emissions_profile = blocking(_OptimizerBase._avert_emissions_profile)
    cambium_profile = blocking(_OptimizerBase._cambium_profile)
    easiur_costs = blocking(_OptimizerBase._easiur_costs)


@async_twin_of(OptimizerService)
class AsyncOptimizerService(_OptimizerBase):
    """``async_client.optimizer``: the same calls, awaitable. The client builds it when it is made;
    users do not construct it."""

    submit = awaitable(_OptimizerBase._submit)
    results = awaitable(_OptimizerBase._results)
    run = awaitable(_OptimizerBase._run)
    simulated_load = awaitable(_OptimizerBase._simulated_load)
    urdb_rate = awaitable(_OptimizerBase._urdb_rate)
    urdb_rate_by_name = awaitable(_OptimizerBase._urdb_rate_by_name)
    wind_resource = awaitable(_OptimizerBase._wind_resource)
    avert_emissions_profile = awaitable(_OptimizerBase._avert_emissions_profile)
    cambium_profile = awaitable(_OptimizerBase._cambium_profile)
    easiur_costs = awaitable(_OptimizerBase._easiur_costs)
