"""A burst of edits over stdio is gathered into few rebuilds, and the last text wins.

The first edit after a quiet spell is rebuilt at once (``tests/unit/test_rebuild_schedule.py``
checks the timer); this checks that the rest of its burst is still gathered.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.lsp.harness import WAIT, open_document, replace_document, start_client, wait_until

DEBOUNCE_MS = 1000
CONFLICT = "- Use pnpm for every install.\n- Use yarn for every install.\n"
PLAIN = "- Write tests first.\n"


async def _status(client: LanguageClient) -> Any:
    return await asyncio.wait_for(client.protocol.send_request_async("pi/status", {}), WAIT)


async def _quiet(client: LanguageClient) -> int:
    """The rebuild count once the first rebuild ran and ``DEBOUNCE_MS`` passed without one."""
    while (await _status(client)).rebuilds < 1:
        await asyncio.sleep(0.02)
    await asyncio.sleep(DEBOUNCE_MS / 1000 + 0.2)
    return int((await _status(client)).rebuilds)


def _conflicts(diagnostics: list[types.Diagnostic]) -> int:
    return sum(1 for d in diagnostics if "Conflicting" in d.message)


async def test_a_burst_of_edits_is_gathered_and_the_last_text_wins(workspace: Path) -> None:
    agents = workspace / "ws" / "AGENTS.md"
    agents.write_text(PLAIN)
    client = await start_client(workspace, options={"debounceMs": DEBOUNCE_MS})
    try:
        open_document(client, agents)
        before = await _quiet(client)
        texts = [PLAIN + f"- Line {n}.\n" for n in range(8)] + [CONFLICT]
        for version, text in enumerate(texts, start=2):
            replace_document(client, agents, text, version)
            await asyncio.sleep(0.005)
        await wait_until(client, agents, lambda ds: _conflicts(ds) == 1)
        after = int((await _status(client)).rebuilds)
        # the first edit at once, the rest of the burst together (held back 0.2 s at most,
        # so a slow machine may split it once more)
        assert after - before <= 3, f"{after - before} rebuilds for one burst"
    finally:
        await client.shutdown_session()
