"""Progress of long calls (`climate.bulk`, `pvwatts.simulate_many`): tqdm when installed,
otherwise a plain line on stderr every tenth of the work; ``progress=False`` shows nothing."""

from __future__ import annotations

import sys
from typing import Any

from sunflux._errors import ParameterError


def progress_flag(progress: object) -> bool:
    """The ``progress=`` argument of every call with a bar: `True` or `False`, nothing else."""
    if not isinstance(progress, bool):
        raise ParameterError(f"progress must be True or False (got {type(progress).__name__})")
    return progress


class Progress:
    """A bar of ``total`` steps named ``label``, counting ``unit``."""

    def __init__(self, total: int, enabled: bool, label: str, unit: str) -> None:
        self.total = total
        self.done = 0
        progress_flag(enabled)
        self.bar: Any = None
        self.enabled = enabled
        self.label = label
        self.unit = unit
        if enabled:
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=total, desc=label, unit=unit)
            except ImportError:
                self.bar = None

    def advance(self, steps: int = 1, note: str = "") -> None:
        """``steps`` more are done (``note`` is added to the plain line)."""
        if steps <= 0:
            return
        before, self.done = self.done, self.done + steps
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(steps)
            return
        tenth = max(1, self.total // 10)
        if self.done == self.total or self.done // tenth > before // tenth:
            sys.stderr.write(f"{self.label}: {self.done}/{self.total} {self.unit}s{note}\n")

    def advance_to(self, done: int) -> None:
        """``done`` steps are done in all."""
        self.advance(done - self.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
