"""The polling schedule of the jobs Python waits for (technical potential; the optimizer run polls in Rust): the
wait starts at ``poll_interval`` s and grows by half each time up to ``max_interval``
(``_core.Backoff``), and past ``timeout`` s the caller's `JobTimeout` is raised. Both I/O styles use it; only the sleep differs."""

from __future__ import annotations

from typing import Callable

from sunflux import _core


class Backoff:
    """One job's schedule, started when it is made: the pauses come from `_core.Backoff`, the one
    schedule of the crate (``services/poll.rs``, which the climate fetch also uses)."""

    def __init__(self, timeout: float, poll_interval: float, max_interval: float) -> None:
        self._schedule = _core.Backoff(poll_interval, max_interval, timeout)

    def next_wait(self, expired: Callable[[], Exception]) -> float:
        """Seconds to sleep before the next poll; raises ``expired()`` once the time is up."""
        wait = self._schedule.next_pause()
        if wait is None:
            raise expired()
        return wait
