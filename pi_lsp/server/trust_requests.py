"""(Being written.)"""

from __future__ import annotations

from pi_lsp.server.language_server import PiLanguageServer


def register(server: PiLanguageServer) -> None:
    """Nothing registered yet."""
