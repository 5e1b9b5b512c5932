"""The CST production factor from a weather year: a documented stand-in, computed in Rust
(``sunflux._core``), for the parabolic-trough simulation the optimizer service runs with SAM.

The service fills ``CST.production_factor`` itself by running SAM's ``trough_physical_iph`` on the
site's NSRDB typical year; the in-process ``solve`` has no weather and refuses a CST without one.
``trough_production_factor`` computes it from any hourly weather year (a TMY file, a climate
download, a frame) with a steady-state energy balance of the trough field, so it can be put in the
scenario::

    weather = read_weather("tucson_tmy.csv")
    cst = CST(max_kw=10_000, can_serve_process_heat=True)
    cst.production_factor = trough_production_factor(weather, cst=cst)

The embedded service (``sunflux.LocalService``) does the same on its synthetic weather for a posted
job and says so in the job's ``messages["warnings"]["CST"]``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sunflux import _core
from sunflux._errors import ParameterError
from sunflux.optimizer._base import Section
from sunflux.pvwatts import Weather, read_weather


def trough_production_factor(
    weather: Any,
    *,
    latitude: float | None = None,
    longitude: float | None = None,
    tz: float | None = None,
    elevation: float | None = None,
    cst: Section | Mapping[str, Any] | None = None,
) -> list[float]:
    """The hourly production factor (kW thermal per kW of CST size) of a parabolic-trough field
    on a weather year, as ``CST.production_factor`` takes it.

    A stand-in for SAM's transient ``trough_physical_iph`` model, which the service runs
    (REopt.jl 0.56.4 ``run_ssc`` and ``normalize_response``) [1]_: in each hour the field's net
    heat per m² of aperture is the direct normal irradiance times the cosine of the incidence
    angle on a horizontal north–south axis tracking east–west [2]_, SAM's incidence angle modifier,
    end and row-shadowing losses and peak optical efficiency (0.72), less the receiver's heat loss
    (a Schott PTR70 evacuated tube [3]_ over the loop's fluid temperatures) and the piping's; the
    factor is that, negatives set to 0, over the rated power as the service defines it. Thermal
    inertia, startup and flow limits, freeze protection and defocusing are left out.

    Parameters
    ----------
    weather : Weather, path, bytes or table
        An hourly weather year: a `sunflux.pvwatts.Weather`, or anything `read_weather` reads (a
        TMY or climate-download CSV, a polars frame with ``dni``, ``temp_air``/``Temperature``,
        ``wind_speed`` and calendar columns, ...). Uses DNI [W/m²], dry-bulb temperature [°C] and
        wind speed [m/s]. A 29 February is dropped (the optimizer's year has 8760 hours).
    latitude, longitude : float, optional
        The site [degrees north, east], for a source without them.
    tz : float, optional
        Hours east of UTC of the stamps' standard time, for a source without it.
    elevation : float, optional
        Site elevation [m], for a source without it.
    cst : CST section or mapping, optional
        The scenario's CST: its ``inlet_temp_degF``/``outlet_temp_degF`` and ``SSC_Inputs``
        (``T_loop_in_des``, ``T_loop_out`` [°C], ``use_solar_mult_or_aperture_area``) set the loop
        temperatures and the rating as the service sets them. A CST section counts with its
        defaults (400 °F and 70 °F: a loop from 21 to 254 °C, as the API passes them); without
        temperatures (no ``cst``, or a mapping without them) the loop runs 70 → 450 °C, REopt.jl's
        own default. The field is rated at its design point (DNI 950 W/m²) unless
        ``use_solar_mult_or_aperture_area`` > 0.

    Returns
    -------
    list of float
        One factor per hour of the year (8760 for a year without 29 February), 0 at night.

    Raises
    ------
    ParameterError
        Weather that is not hourly or has values out of range, a site out of range, a loop outlet
        not above its inlet, or a ``tech_type`` other than ``"ptc"`` (the other types need SAM).

    References
    ----------
    .. [1] NREL, REopt.jl ``src/core/cst_ssc.jl``, https://github.com/NREL/REopt.jl.
    .. [2] J. A. Duffie and W. A. Beckman, *Solar Engineering of Thermal Processes*, 4th ed.,
       Wiley, 2013, eq. 1.7.5a.
    .. [3] F. Burkholder and C. Kutscher, "Heat Loss Testing of Schott's 2008 PTR70 Parabolic
       Trough Receiver", NREL/TP-550-45633, 2009.
    """
    if not isinstance(weather, Weather):
        weather = read_weather(weather, lat=latitude, lon=longitude, tz=tz, elevation=elevation)
    if weather.has_leap_day:
        weather = weather.without_leap_day()
    if cst is None:
        cst_json = None
    elif isinstance(cst, Section):
        cst_json = json.dumps(cst.to_dict(include_defaults=True))
    elif isinstance(cst, Mapping):
        cst_json = json.dumps(dict(cst))
    else:
        raise ParameterError(f"cst must be a CST section or a mapping, not {type(cst).__name__}")
    factor: list[float] = _core.optimizer_trough_production_factor(weather._core, cst_json)
    return factor
