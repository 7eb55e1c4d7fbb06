"""The pygls server object: workspace state plus publishing of diagnostics and prompt changes.

Feature modules (hover, navigation, …) register their handlers on it in ``server.py``; this
module holds what several of them share and no business logic of its own.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterable

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from pi_lsp import __version__
from pi_lsp.prompt.assemble import build_prompt
from pi_lsp.server.convert import lsp_diagnostic, uri_of
from pi_lsp.server.state import WorkspaceState

log = logging.getLogger(__name__)


class PiLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("pi-lsp", __version__)
        self.state = WorkspaceState(root=os.getcwd())
        self._pending: asyncio.TimerHandle | None = None
        self._prompts: dict[str, str] = {}  # cwd -> last prompt text announced

    def log_to_client(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(kind, message))

    # --- publishing -------------------------------------------------------------------------

    def request_rebuild(self, changed: Iterable[str] | None = None) -> None:
        """Rebuild soon because ``changed`` paths changed (``None``: anything may have)."""
        self.schedule_lint()

    def schedule_lint(self) -> None:
        loop = asyncio.get_running_loop()
        if self._pending is not None:
            self._pending.cancel()
        delay = self.state.settings.debounce_ms / 1000
        self._pending = loop.call_later(delay, self.publish_all)

    def publish_all(self) -> None:
        self._pending = None
        try:
            by_path = self.state.lint()
        except Exception:  # one bad file must never take the server down
            log.exception("lint failed")
            self.log_to_client("pi-lsp: lint failed; see the log", types.MessageType.Error)
            return
        rules_doc = self.state.settings.rules_doc_url
        for path in set(by_path) | self.state.published:
            version = self.state.buffers.get(path, (None, ""))[0]
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=uri_of(path),
                    version=version,
                    diagnostics=[
                        lsp_diagnostic(d, self.state.text_of, rules_doc)
                        for d in by_path.get(path, [])
                    ],
                )
            )
        self.state.published = set(by_path)
        self.notify_prompt_changes()

    def notify_prompt_changes(self) -> None:
        """Tell the client which working directories now get a different system prompt."""
        changed = []
        for cwd, resources in self.state.snapshots.items():
            text = build_prompt(resources).text
            if self._prompts.get(cwd) != text:
                self._prompts[cwd] = text
                changed.append(cwd)
        if changed:
            self.protocol.notify("pi/systemPromptChanged", {"cwds": sorted(changed)})
