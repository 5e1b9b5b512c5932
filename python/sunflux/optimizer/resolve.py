"""``Scenario.resolve(client)``: a self-contained copy of a scenario, its references to outside
data replaced by the data, fetched once and kept in a disk cache so that a sweep of hundreds of
local solves fetches each input once.

- ``ElectricLoad.doe_reference_name`` (or ``blended_doe_reference_names`` with
  ``blended_doe_reference_percents``), scaled by ``annual_kwh`` or ``monthly_totals_kwh``, becomes
  ``loads_kw`` from the optimizer service's load endpoint with ``year`` 2017, the year the service
  sets for reference profiles; hourly values are repeated to ``Settings.time_steps_per_hour``, as
  the service does with them.
- ``SpaceHeatingLoad`` and ``DomesticHotWaterLoad`` ``doe_reference_name`` (or
  ``blended_doe_reference_names`` with ``blended_doe_reference_percents``; without them,
  ElectricLoad's, as the service falls back) and ``ProcessHeatLoad.industrial_reference_name`` (or
  its blend), scaled by ``annual_mmbtu`` or ``monthly_mmbtu`` of boiler fuel, become
  ``fuel_loads_mmbtu_per_hour`` from the load endpoint (``load_type`` of the section). The
  endpoint is asked with the addressable fraction 1 and no boiler efficiency: the service makes a
  reference load's heat as fuel × efficiency × ``addressable_load_fraction`` and a given fuel
  series' the same way, so the section keeps its fraction (12 monthly values become one per time
  step) and the efficiency cancels. ``CoolingLoad.doe_reference_name`` (its own or ElectricLoad's)
  with ``annual_tonhour`` or ``monthly_tonhour`` becomes ``thermal_loads_ton``; cooling given as
  fractions of the electric load, or by building without ton-hours, is left as it is. Hourly
  values repeated to ``Settings.time_steps_per_hour``, cached like the electric load.
- ``ElectricTariff.urdb_label`` (or ``urdb_utility_name`` with ``urdb_rate_name``) becomes
  ``urdb_response`` from the Utility Rate Database API; the label stays as a note of where the
  rate came from. A scenario that already holds a ``urdb_response`` keeps it, as the service uses
  it first.
- A sized ``Wind`` section (``max_kw`` > 0 or unset) without ``production_factor_series`` gets
  the one the service computes: SAM's windpower model of the service's turbine for
  ``size_class`` (or the class it picks from the average of ``loads_kw``) on the section's own
  ``wind_meters_per_sec``, ``wind_direction_degrees``, ``temperature_celsius`` and
  ``pressure_atmospheres`` when all four are given, else on the WIND Toolkit's 2012 resource at
  the class's hub height (or the two toolkit heights around it), fetched with
  ``client.optimizer.wind_resource``; hourly values divided by the turbine's size and repeated
  to ``Settings.time_steps_per_hour``. A site outside the toolkit's grid raises the service's
  ``ParameterError``.
- Each ``PV`` array without ``production_factor_series`` gets the one the service computes: the
  PV estimator v8's hourly AC output of a 1 kW system (W / 1000) with the array's ``tilt``,
  ``azimuth``, ``module_type``, ``array_type``, ``losses`` (× 100), ``dc_ac_ratio``, ``gcr``,
  ``inv_eff`` (× 100), ``radius`` and ``timeframe=hourly``, REopt.jl's defaults for what the array
  leaves out, on the data set the solar dataset query makes the service pick (NSRDB within 20
  miles, else the nearest); repeated to ``Settings.time_steps_per_hour``.
- On the grid, each of ``ElectricUtility.emissions_factor_series_lb_{CO2,NOx,SO2,PM25}_per_kwh``
  and ``renewable_energy_fraction_series`` left out gets the service's look-up: CO2 from Cambium
  (``client.optimizer.cambium_profile`` with the section's ``cambium_*`` inputs, the levelization
  over ``cambium_levelization_years`` or ``Financial.analysis_years``) unless ``co2_from_avert``
  or the site's AVERT region is Alaska's or Hawaii's, NOx, SO2 and PM2.5 from AVERT
  (``client.optimizer.avert_emissions_profile``), the clean-energy fraction from Cambium; all
  for ``ElectricLoad.year``'s weekdays, hourly values repeated to ``Settings.time_steps_per_hour``.
  A Cambium CO2 series comes with ``emissions_factor_CO2_decrease_fraction`` 0 when that is left
  out (the service's default for Cambium). Off grid none is fetched. An ``avert_emissions_region``
  other than the location's region raises `ParameterError` (the endpoint looks regions up by
  location only: give the series). Each ``Financial.{NOx,SO2,PM25}_{grid,onsite_fuelburn}_cost_per_tonne``
  and ``_cost_escalation_rate_fraction`` left out gets EASIUR's (``client.optimizer.easiur_costs``
  with ``om_cost_escalation_rate_fraction`` as the inflation; the grid costs not off grid). A site
  outside a look-up's coverage gets zeros, as the service uses, except EASIUR's with
  ``Settings.include_health_in_objective`` (`ParameterError`, as the service).

Cache: one JSON file per input under ``cache_dir`` (default `default_cache_dir()`), named by the
SHA-256 of its key: the service's base URL and every input of the request, never the API key.
The key is stored in the file and compared on read, so a collision or a damaged file is a miss;
files are written atomically. The reading, the fetching and the cache are Rust's
(``services/optimizer/resolve.rs``); this module chooses the folder and rebuilds the `Scenario`.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import TYPE_CHECKING

from sunflux import _core
from sunflux.optimizer._base import UnknownFieldWarning

if TYPE_CHECKING:
    from sunflux._client import Client
    from sunflux.optimizer.scenario import Scenario

__all__ = ["resolve", "default_cache_dir", "REFERENCE_PROFILE_YEAR", "CACHE_DIR_ENV_VAR"]

#: The year the service sets for every reference building profile (they start on a Sunday).
REFERENCE_PROFILE_YEAR: int = _core.OPTIMIZER_REFERENCE_YEAR
CACHE_DIR_ENV_VAR = "SUNFLUX_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$SUNFLUX_CACHE_DIR``, else ``$XDG_CACHE_HOME/sunflux/optimizer``, else
    ``~/.cache/sunflux/optimizer``.

    Returns
    -------
    pathlib.Path
        The folder (not created here).
    """
    if os.environ.get(CACHE_DIR_ENV_VAR):
        return Path(os.environ[CACHE_DIR_ENV_VAR])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "sunflux" / "optimizer"


def resolve(scenario: Scenario, client: Client, *, cache_dir: str | os.PathLike[str] | None | bool = True) -> Scenario:
    """A copy of ``scenario`` with reference loads and URDB rates replaced by their data (see
    the module's text). ``cache_dir``: a folder, True for `default_cache_dir()`, or None/False
    for no cache.

    Parameters
    ----------
    scenario : Scenario
        The scenario; it is left as it is.
    client : Client
        The client that fetches the data (the live service's or the embedded one's).
    cache_dir : str, path-like, bool or None, default True
        The cache folder; True for `default_cache_dir()`, None or False for no cache.

    Returns
    -------
    Scenario
        A copy with ``ElectricLoad.loads_kw`` (kW, one value per time step) in place of the
        reference building load, the heating loads' ``fuel_loads_mmbtu_per_hour`` (MMBtu/h of
        fuel) and ``CoolingLoad.thermal_loads_ton`` (tons) in place of theirs, ``ElectricTariff.urdb_response`` in place of the rate's
        label or names, ``PV.production_factor_series`` and ``Wind.production_factor_series``
        (kW/kW, one value per time step), and the grid emissions factors (lb/kWh), clean-energy
        fraction and EASIUR health costs ($/t) the service would fill.

    Raises
    ------
    ParameterError
        The load or tariff reference is incomplete, the Wind site is outside the WIND Toolkit, or
        an ``avert_emissions_region`` is not the site's region.
    ApiError
        The service refused a request (an unknown building type or rate).
    """
    if cache_dir is True:
        folder: Path | None = default_cache_dir()
    elif cache_dir is None or cache_dir is False:
        folder = None
    else:
        folder = Path(os.fspath(cache_dir))
    handle = client._handle
    document = _core.optimizer_resolve(handle.transport, handle.urdb_transport, scenario.to_dict(), folder, handle.trace()).wait()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnknownFieldWarning)
        return type(scenario).from_dict(document)
