"""When the server starts a rebuild: at once for a change after a quiet spell, after
``debounceMs`` for a change inside a burst, never later than ``MAX_HOLD`` after the first.

The schedule is read from the timer the server sets (its due time on the event loop), so the
test does not depend on how fast the machine is."""

from __future__ import annotations

import asyncio
import dataclasses

from pi_lsp.server.language_server import MAX_HOLD, PiLanguageServer


def _server(debounce_ms: int) -> tuple[PiLanguageServer, list[float]]:
    server = PiLanguageServer()
    server.state.settings = dataclasses.replace(server.state.settings, debounce_ms=debounce_ms)
    started: list[float] = []

    def start() -> None:  # what the real start does, without the rebuild
        server._timer = None
        server._held_since = None
        started.append(asyncio.get_running_loop().time())

    server._start_rebuild = start  # type: ignore[method-assign]
    server._built_once = True
    server._changed = set()
    return server, started


def _due_in(server: PiLanguageServer) -> float:
    assert server._timer is not None
    return server._timer.when() - asyncio.get_running_loop().time()


async def test_a_change_after_a_quiet_spell_is_due_at_once() -> None:
    server, _ = _server(debounce_ms=100)
    server.request_rebuild(["a.md"])
    assert _due_in(server) <= 0.001


async def test_a_change_inside_a_burst_waits_for_the_debounce() -> None:
    server, started = _server(debounce_ms=100)
    server.request_rebuild(["a.md"])
    server.request_rebuild(["b.md"])  # before the first timer ran: the same burst
    assert 0.05 < _due_in(server) <= 0.1
    await asyncio.sleep(0.15)
    assert len(started) == 1  # one rebuild for both
    assert server._changed == {"a.md", "b.md"}


async def test_a_long_burst_is_never_held_back_longer_than_the_hold() -> None:
    server, _ = _server(debounce_ms=10_000)
    loop = asyncio.get_running_loop()
    first = loop.time()
    server.request_rebuild(["a.md"])
    server._timer.cancel()  # type: ignore[union-attr]
    server._timer = None
    server.request_rebuild(["b.md"])  # a change right after: inside the debounce
    assert server._timer is not None
    assert server._timer.when() <= first + MAX_HOLD + 0.001


async def test_after_a_quiet_spell_the_next_change_is_due_at_once_again() -> None:
    server, started = _server(debounce_ms=30)
    server.request_rebuild(["a.md"])
    await asyncio.sleep(0.01)
    assert len(started) == 1
    await asyncio.sleep(0.05)  # quieter than the debounce
    server.request_rebuild(["b.md"])
    assert _due_in(server) <= 0.001
