"""The progress a full rebuild shows in the editor's status bar, over stdio."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types

from tests.lsp.harness import WAIT, diagnostics_for, start_client


async def test_rebuild_progress_names_each_working_directory(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (tmp_path / "agent").mkdir()
    (tmp_path / "home").mkdir()
    (ws / "AGENTS.md").write_text("- Use npm to install packages.\n")
    (ws / "pkg" / "AGENTS.md").write_text("- Always use pnpm.\n")
    client = await start_client(tmp_path)
    try:
        await diagnostics_for(client, ws / "pkg" / "AGENTS.md")

        def loading() -> list[types.WorkDoneProgressReport] | None:
            for reports in client.progress_reports.values():
                begin = reports[0] if reports else None
                if (
                    isinstance(begin, types.WorkDoneProgressBegin)
                    and "loading" in begin.title
                    and isinstance(reports[-1], types.WorkDoneProgressEnd)
                ):
                    return [r for r in reports if isinstance(r, types.WorkDoneProgressReport)]
            return None

        async def ended() -> list[types.WorkDoneProgressReport]:
            while (reports := loading()) is None:
                await asyncio.sleep(0.05)
            return reports

        reports = await asyncio.wait_for(ended(), WAIT)
        shown = {r.message for r in reports}
        # the root by its own name, never a bare "." in the status bar
        assert shown == {"ws", "pkg"}
    finally:
        await client.shutdown_session()
