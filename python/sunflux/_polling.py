"""The polling schedule of the jobs Python waits for (technical potential, optimizer runs): the
wait starts at ``poll_interval`` s and grows by half each time up to ``max_interval``, and past
``timeout`` s the caller's `JobTimeout` is raised. Both I/O styles use it; only the sleep differs."""

from __future__ import annotations

import time
from typing import Callable

#: Growth of the wait between polls.
GROWTH = 1.5


class Backoff:
    """One job's schedule, started when it is made."""

    def __init__(self, timeout: float, poll_interval: float, max_interval: float) -> None:
        self.started = time.monotonic()
        self.deadline = self.started + timeout
        self.interval = poll_interval
        self.max_interval = max_interval

    def next_wait(self, expired: Callable[[], Exception]) -> float:
        """Seconds to sleep before the next poll; raises ``expired()`` once the time is up."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise expired()
        wait = min(self.interval, remaining)
        self.interval = min(self.interval * GROWTH, self.max_interval)
        return wait
