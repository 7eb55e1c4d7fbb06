"""Whether processes are still around: for tests that check a cancel or a kill left none."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterable


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody has reaped yet counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):  # reaped while we looked
        return False


async def all_gone(pids: Iterable[int], within: float = 5.0) -> bool:
    """Whether every process is gone within ``within`` seconds (a killed process on a busy
    machine takes a moment to be scheduled and die)."""
    pids = list(pids)
    deadline = time.monotonic() + within
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.02)
    return True
