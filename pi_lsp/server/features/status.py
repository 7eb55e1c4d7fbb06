"""``pi/status``: what the server is doing — for status items, bug reports and benches."""

from __future__ import annotations

from typing import Any

from pi_lsp import __version__
from pi_lsp.server.language_server import PiLanguageServer


def status(ls: PiLanguageServer) -> dict[str, Any]:
    last = ls.last_rebuild
    settings = ls.state.settings
    return {
        "version": __version__,
        "root": ls.state.root,
        "workingDirectories": sorted(ls.state.snapshots),
        "rebuilds": ls.rebuilds,
        "lastRebuild": None
        if last is None
        else {
            "ms": round(last[0], 3),
            "reason": None if last[1] is None else sorted(last[1]),
        },
        "clientWatches": ls.client_watches,
        "watchedFolders": list(ls.watched_folders),
        "openBuffers": len(ls.state.buffers),
        "settings": {
            "agentDir": settings.agent_dir,
            "modelWindow": settings.model_window,
            "debounceMs": settings.debounce_ms,
            "severities": settings.severities,
            "rulesDocUrl": settings.rules_doc_url,
            "judge": settings.judge,
            "judgeModel": settings.judge_model,
            "judgeIdleMs": settings.judge_idle_ms,
        },
    }


def register(server: PiLanguageServer) -> None:
    @server.feature("pi/status")
    def server_status(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        return status(ls)
