"""Unit traps: values that are legal (or nearly) but almost certainly in the wrong unit get a
`UnitWarning` naming the unit. The rules (docs/design.md, "Unit traps"):

- PVWatts ``losses`` (estimator and local engine) is a percent: 0 < losses < 1 warns (0.14 is
  0.14 %, not 14 %).
- ``system_capacity`` is in kW: a fixed roof-mounted system (``array_type=1``) of 1,000 kW or
  more warns (4000 meant as 4,000 W is a 4 MW roof; such roofs are rare, so the warning is cheap).
- The optimizer's ``PV.losses`` is a fraction: a value from 1 to 99 warns (14 meant as 14 %).
- The optimizer's energy rates (``ElectricTariff``, $/kWh) above 3 $/kWh warn (28 meant as 28 ¢).
- The optimizer's storage energy costs (``ElectricStorage``, $/kWh) above 0 and below 5 $/kWh warn
  (0.3 meant as 0.3 $/Wh, that is 300 $/kWh).
- The optimizer's loads (``ElectricLoad``, kW) with a peak of 50,000 kW or more warn (91,324 meant
  as 91,324 W).
"""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any

from sunflux._errors import UnitWarning

__all__ = ["check_pvwatts_system", "check_optimizer_value"]

#: A roof-mounted system this large (kW) is far more likely a size in W.
ROOF_CAPACITY_KW = 1000.0
#: An energy rate above this ($/kWh) is far more likely in ¢/kWh: real tariffs, critical-peak
#: prices included, stay under about 2 $/kWh.
ENERGY_RATE_MAX = 3.0
#: A storage energy cost below this ($/kWh, above 0) is far more likely in $/Wh: installed
#: batteries cost hundreds of $/kWh (0 stays quiet: a free battery is a common what-if).
STORAGE_COST_MIN = 5.0
#: A load peak this large (kW, 50 MW) is far more likely in W: the optimizer's sites are
#: buildings and campuses; larger ones exist but are rare, so the warning is cheap.
LOAD_PEAK_MAX_KW = 50_000.0

#: The optimizer fields each rule reads: (section, field).
ENERGY_RATE_FIELDS = frozenset(
    ("ElectricTariff", name) for name in (
        "monthly_energy_rates", "blended_annual_energy_rate", "wholesale_rate",
        "export_rate_beyond_net_metering_limit", "tou_energy_rates_per_kwh",
    )
)
STORAGE_COST_FIELDS = frozenset(("ElectricStorage", name) for name in ("installed_cost_per_kwh", "replace_cost_per_kwh"))
LOAD_FIELDS = frozenset(("ElectricLoad", name) for name in ("loads_kw", "critical_loads_kw"))
_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def _number(value: Any) -> float | None:
    """The value as a float for a unit trap, or None: not a number, or an int beyond a float's
    range (the call's own check refuses that one by name)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def _warn(message: str) -> None:
    """Warns at the first frame outside sunflux (the user's call), whatever the depth."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    warnings.warn(message, UnitWarning, stacklevel=level)


def check_pvwatts_system(system_capacity: Any, losses: Any, array_type: Any, where: str = "") -> None:
    """The PVWatts unit traps of one system (``where`` names it in a batch, e.g. ``systems[3]: ``)."""
    loss = _number(losses)
    if loss is not None and 0 < loss < 1:
        _warn(
            f"{where}losses is a percent: losses={losses!r} means {loss:g} % of losses; "
            f"for {loss * 100:g} % give losses={loss * 100:g}"
        )
    capacity = _number(system_capacity)
    if capacity is not None and capacity >= ROOF_CAPACITY_KW and array_type == 1:
        _warn(
            f"{where}system_capacity is in kW: {system_capacity!r} is a {capacity / 1000:g} MW roof-mounted system "
            f"(array_type=1); for {capacity:g} W give system_capacity={capacity / 1000:g}"
        )


def _numbers(value: Any) -> list[float]:
    """The numbers of a scalar or of a list of them (anything else: none)."""
    items = value if isinstance(value, (list, tuple)) else [value]
    return [number for number in map(_number, items) if number is not None]


def check_optimizer_value(section: str, key: str, value: Any) -> None:
    """The optimizer's unit traps of one field's value (a number or a list of numbers)."""
    field = (section, key)
    if field == ("PV", "losses"):
        loss = _number(value)
        if loss is not None and 1 <= loss <= 99:
            _warn(
                f"PV.losses is a fraction (the optimizer's unit; the estimator's is a percent): {value!r} looks like "
                f"a percent; for {loss:g} % give {loss / 100:g}"
            )
    elif field in ENERGY_RATE_FIELDS:
        highest = max(_numbers(value), default=0.0)
        if highest > ENERGY_RATE_MAX:
            _warn(
                f"{section}.{key} is in $/kWh: {highest:g} $/kWh is above any real tariff and looks like ¢/kWh; "
                f"for {highest:g} ¢/kWh give {highest / 100:g}"
            )
    elif field in STORAGE_COST_FIELDS:
        cost = _number(value)
        if cost is not None and 0 < cost < STORAGE_COST_MIN:
            _warn(
                f"{section}.{key} is in $/kWh: {value!r} $/kWh is far below any battery's cost and looks like $/Wh; "
                f"for {cost:g} $/Wh give {cost * 1000:g}"
            )
    elif field in LOAD_FIELDS:
        peak = max(_numbers(value), default=0.0)
        if peak >= LOAD_PEAK_MAX_KW:
            _warn(
                f"{section}.{key} is in kW: a peak of {peak:,.0f} kW is a {peak / 1000:,.1f} MW site and looks like W; "
                f"for a {peak / 1000:,.1f} kW peak divide the values by 1000"
            )
