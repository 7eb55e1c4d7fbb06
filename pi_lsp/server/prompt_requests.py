"""``pi/systemPrompt``: the prompt document for a working directory, spans and tokens."""

from __future__ import annotations

import os
from typing import Any

from pi_lsp.prompt.assemble import build_prompt
from pi_lsp.server.language_server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    @server.feature("pi/systemPrompt")
    def system_prompt(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        cwd = getattr(params, "cwd", None) or ls.state.root
        resources = ls.state.snapshot(os.path.abspath(cwd))
        return build_prompt(resources).to_json()
