"""Unit traps: values that are legal (or nearly) but almost certainly in the wrong unit get a
`UnitWarning` naming the unit. The rules (docs/design.md, "Unit traps"):

- PVWatts ``losses`` (estimator and local engine) is a percent: 0 < losses < 1 warns (0.14 is
  0.14 %, not 14 %).
- ``system_capacity`` is in kW: a fixed roof-mounted system (``array_type=1``) of 1,000 kW or
  more warns (4000 meant as 4,000 W is a 4 MW roof; such roofs are rare, so the warning is cheap).
- The optimizer's ``PV.losses`` is a fraction: a value from 1 to 99 warns (14 meant as 14 %).
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


def check_optimizer_value(section: str, key: str, value: Any) -> None:
    """The optimizer's unit traps: ``PV.losses`` is a fraction."""
    if (section, key) != ("PV", "losses"):
        return
    loss = _number(value)
    if loss is not None and 1 <= loss <= 99:
        _warn(
            f"PV.losses is a fraction (the optimizer's unit; the estimator's is a percent): {value!r} looks like "
            f"a percent; for {loss:g} % give {loss / 100:g}"
        )
