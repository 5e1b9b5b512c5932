"""Small timing helpers shared by the benchmarks: interleaved rounds and percentiles."""

from __future__ import annotations

import statistics
import time
from typing import Callable


def per_call_samples(contenders: dict[str, Callable[[], object]], calls: int, rounds: int) -> dict[str, list[float]]:
    """Times each contender ``calls`` times per round, rotating the order every round; seconds per call."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    names = list(contenders)
    for round_index in range(rounds):
        order = names[round_index % len(names):] + names[: round_index % len(names)]
        for name in order:
            fn = contenders[name]
            for _ in range(calls):
                start = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - start)
    return samples


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index]


def median(values: list[float]) -> float:
    return statistics.median(values)


def best_of(fn: Callable[[], object], repeat: int) -> float:
    """The fastest of ``repeat`` runs, in seconds (for single long operations)."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best
