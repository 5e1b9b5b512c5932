"""Where the optimizer's MILP solver lives: HiGHS's shared library from the ``highsbox`` package
(``highsbox/highs_dist/lib``), which the Rust engine loads on first use. Found without importing
the package (``importlib.util.find_spec``), so ``import sunflux`` stays fast."""

from __future__ import annotations

import importlib.util
import os

from sunflux import _core


def register_highs() -> None:
    """Tells the engine where ``highsbox``'s distribution folder is; without the package the
    engine reports, on the first MILP, that it needs it (``SUNFLUX_HIGHS_LIBRARY`` also works)."""
    spec = importlib.util.find_spec("highsbox")
    if spec is None or spec.origin is None:
        return
    _core.set_highs_location(os.path.join(os.path.dirname(spec.origin), "highs_dist"))
