"""``pi/systemPrompt``: the prompt document for a working directory, spans and tokens."""

from __future__ import annotations

import os
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.server.language_server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    @server.feature("pi/systemPrompt")
    def system_prompt(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        cwd = getattr(params, "cwd", None) or ls.state.root
        if not isinstance(cwd, str):
            raise JsonRpcInvalidParams(f"cwd must be a path, got {cwd!r}")
        return ls.state.prompt(os.path.abspath(cwd)).to_json()
