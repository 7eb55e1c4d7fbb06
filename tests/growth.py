"""Complexity checks that do not depend on how fast or how busy the machine is.

A test that guards against a quadratic (or worse) slow path runs the same work at two sizes,
``factor`` apart, and compares the CPU time the process spent on each. Linear work grows about
``factor`` times, quadratic work ``factor ** 2`` times; the bound sits between them
(``factor ** 1.5``), so either side has a margin of ``sqrt(factor)``. CPU time
(``time.process_time``, every thread of this process) is not inflated by other processes taking
the cores, the cyclic garbage collector is paused while measuring, and a ratio over the bound is
measured again (up to three times) before the test fails, so one unlucky pair cannot fail it.

Absolute figures (how many milliseconds a user waits) belong in ``bench/`` and
``docs/benchmarks.md``, not here.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

ATTEMPTS = 3


@dataclass
class CpuTime:
    seconds: float = 0.0


@contextmanager
def cpu_time() -> Iterator[CpuTime]:
    """CPU seconds spent by this process inside the block, with the cyclic GC paused."""
    measured = CpuTime()
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    started = time.process_time()
    try:
        yield measured
    finally:
        measured.seconds = time.process_time() - started
        if was_enabled:
            gc.enable()


def growth_bound(factor: float) -> float:
    """Largest cost ratio accepted as linear for inputs ``factor`` times apart."""
    return float(factor**1.5)


def _within_bound(ratios: list[float], small: CpuTime, large: CpuTime, factor: float) -> bool:
    """Record one measured pair; whether its ratio passes."""
    ratios.append(large.seconds / max(small.seconds, 1e-6))
    return ratios[-1] <= growth_bound(factor)


def _verdict(ratios: list[float], factor: float) -> str:
    return (
        f"cost grew {', '.join(f'{r:.1f}x' for r in ratios)} for an input {factor}x larger "
        f"(linear is about {factor}x, quadratic {factor**2}x; the bound is "
        f"{growth_bound(factor):.1f}x)"
    )


def assert_linear_growth(
    small: Callable[[], object], large: Callable[[], object], factor: float
) -> None:
    """``large`` (the same work on an input ``factor`` times bigger) costs at most linearly more."""
    ratios: list[float] = []
    for _ in range(ATTEMPTS):
        with cpu_time() as small_cost:
            small()
        with cpu_time() as large_cost:
            large()
        if _within_bound(ratios, small_cost, large_cost, factor):
            return
    raise AssertionError(_verdict(ratios, factor))


async def assert_linear_growth_async(
    small: Callable[[], Awaitable[object]], large: Callable[[], Awaitable[object]], factor: float
) -> None:
    """:func:`assert_linear_growth` for coroutines (awaited on the running loop)."""
    ratios: list[float] = []
    for _ in range(ATTEMPTS):
        with cpu_time() as small_cost:
            await small()
        with cpu_time() as large_cost:
            await large()
        if _within_bound(ratios, small_cost, large_cost, factor):
            return
    raise AssertionError(_verdict(ratios, factor))
