"""The language server: pygls handlers that adapt the engine; no business logic lives here.

Diagnostics are published for every file a finding names — open or not — after a short
debounce, and cleared when the problem goes away. Hover on a context file shows the resolved
instruction order; ``pi/systemPrompt`` returns the prompt document for a working directory.
"""

from __future__ import annotations

import asyncio
import logging
import os
from typing import Any
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from pi_lsp import __version__
from pi_lsp.lint.engine import Diagnostic
from pi_lsp.prompt.assemble import build_prompt
from pi_lsp.prompt.system_prompt import build_skill_entry
from pi_lsp.prompt.tokens import count_tokens
from pi_lsp.resources.context_files import CONTEXT_FILE_NAMES
from pi_lsp.resources.model import SourceRange
from pi_lsp.server.state import ServerSettings, WorkspaceState

log = logging.getLogger(__name__)

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}


def path_of(uri: str) -> str:
    return os.path.abspath(unquote(urlparse(uri).path))


def uri_of(path: str) -> str:
    from pathlib import Path

    return Path(path).as_uri()


def _utf16_column(line_text: str, column: int) -> int:
    prefix = line_text[:column]
    return len(prefix.encode("utf-16-le", "surrogatepass")) // 2


class PiLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("pi-lsp", __version__)
        self.state = WorkspaceState(root=os.getcwd())
        self._pending: asyncio.TimerHandle | None = None
        self._prompts: dict[str, str] = {}  # cwd -> last prompt text announced

    # --- positions --------------------------------------------------------------------------

    def lsp_range(self, where: SourceRange) -> types.Range:
        lines = (self.state.text_of(where.path) or "").split("\n")

        def position(line: int, column: int) -> types.Position:
            text = lines[line] if 0 <= line < len(lines) else ""
            return types.Position(line=max(line, 0), character=_utf16_column(text, column))

        return types.Range(
            start=position(where.start_line, where.start_column),
            end=position(where.end_line, where.end_column),
        )

    def lsp_diagnostic(self, diagnostic: Diagnostic) -> types.Diagnostic:
        finding = diagnostic.finding
        related = [
            types.DiagnosticRelatedInformation(
                location=types.Location(uri=uri_of(r.where.path), range=self.lsp_range(r.where)),
                message=r.message,
            )
            for r in finding.related
        ]
        return types.Diagnostic(
            range=self.lsp_range(finding.where),
            severity=SEVERITY[diagnostic.severity],
            code=diagnostic.rule.code,
            source="pi-lsp",
            message=f"{finding.message} [{diagnostic.rule.name}]",
            related_information=related or None,
        )

    # --- publishing -------------------------------------------------------------------------

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
            self.window_log_message(
                types.LogMessageParams(types.MessageType.Error, "pi-lsp: lint failed; see the log")
            )
            return
        for path in set(by_path) | self.state.published:
            version = self.state.buffers.get(path, (None, ""))[0]
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=uri_of(path),
                    version=version,
                    diagnostics=[self.lsp_diagnostic(d) for d in by_path.get(path, [])],
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

    # --- hover ------------------------------------------------------------------------------

    def skill_hover_text(self, path: str) -> str | None:
        """How a skill file appears to the model, and whether another skill beats it."""
        resources = self.state.snapshot(self.state.root)
        skill = next((s for s in resources.skills if s.file_path == path), None)
        beaten_by = next(
            (
                f.data.get("winnerPath")
                for f in resources.findings
                if f.rule == "skill-name-collision" and f.data.get("loserPath") == path
            ),
            None,
        )
        if skill is None and beaten_by is None:
            return None
        if skill is None:
            return f"Pi does not load this skill: a skill of the same name in `{beaten_by}` wins."
        entry = build_skill_entry(skill.name, skill.description, skill.file_path)
        lines = [f"**Skill `{skill.name}`** as the model sees it:", "", "```xml", entry, "```"]
        if not skill.visible:
            lines += [
                "",
                "Hidden from the model (`disable-model-invocation: true`): only "
                f"`/skill:{skill.name}` loads it.",
            ]
        return "\n".join(lines)

    def hover_text(self, path: str) -> str | None:
        if path.endswith(".md") and os.path.basename(path) not in CONTEXT_FILE_NAMES:
            return self.skill_hover_text(path)
        if os.path.basename(path) not in CONTEXT_FILE_NAMES:
            return None
        cwd = self.state.cwd_for(path)
        resources = self.state.snapshot(cwd)
        files = resources.context_files.files
        prompt_tokens = build_prompt(resources).tokens
        lines = [f"**Instruction order for `{resources.cwd}`** (as Pi builds the prompt)", ""]
        for index, file in enumerate(files, 1):
            tokens = count_tokens(file.content)
            share = tokens / prompt_tokens if prompt_tokens else 0
            mark = "**" if file.path == path else ""
            here = " ← this file" if file.path == path else ""
            lines.append(
                f"{index}. {mark}`{file.path}`{mark}{here} — {tokens} tokens "
                f"({share:.0%} of the prompt)"
            )
        loaded = next((f for f in files if f.path == path), None)
        if loaded is None:
            winner = next((f for f in files if path in f.shadows), None)
            lines += ["", f"Pi does not read this file: `{winner.path if winner else '?'}` wins."]
        elif loaded.shadows:
            shadowed = ", ".join(f"`{os.path.basename(s)}`" for s in loaded.shadows)
            lines += ["", f"Shadows {shadowed} in the same folder (Pi never reads them)."]
        return "\n".join(lines)

    # --- symbols and lenses -----------------------------------------------------------------

    def heading_symbols(self, path: str) -> list[types.DocumentSymbol]:
        from markdown_it import MarkdownIt

        text = self.state.text_of(path) or ""
        tokens = MarkdownIt("commonmark").parse(text)
        symbols = []
        for index, token in enumerate(tokens):
            if token.type != "heading_open" or token.map is None:
                continue
            title = tokens[index + 1].content if index + 1 < len(tokens) else ""
            line = token.map[0]
            width = len(text.split("\n")[line].encode("utf-16-le")) // 2
            where = types.Range(types.Position(line, 0), types.Position(line, width))
            symbols.append(
                types.DocumentSymbol(
                    name=title or token.markup,
                    kind=types.SymbolKind.String,
                    range=where,
                    selection_range=where,
                    detail=token.tag,
                )
            )
        return symbols

    def place_in_prompt(self, path: str) -> str | None:
        """``"3rd of 5 in the prompt · 412 tokens"`` for a context file that loads."""
        if os.path.basename(path) not in CONTEXT_FILE_NAMES:
            return None
        files = self.state.snapshot(self.state.cwd_for(path)).context_files.files
        for index, file in enumerate(files, 1):
            if file.path == path:
                tokens = count_tokens(file.content)
                return f"{_ordinal(index)} of {len(files)} in the prompt · {tokens} tokens"
        return "not read by Pi (shadowed in this folder)"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def create_server() -> PiLanguageServer:
    server = PiLanguageServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: PiLanguageServer, params: types.InitializeParams) -> None:
        root = params.root_uri and path_of(params.root_uri)
        if params.workspace_folders:
            root = path_of(params.workspace_folders[0].uri)
        if root:
            ls.state.root = root
        settings, problems = ServerSettings.from_options(params.initialization_options)
        ls.state.settings = settings
        for problem in problems:
            ls.window_log_message(types.LogMessageParams(types.MessageType.Warning, problem))

    @server.feature(types.INITIALIZED)
    def initialized(ls: PiLanguageServer, params: types.InitializedParams) -> None:
        ls.schedule_lint()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PiLanguageServer, params: types.DidOpenTextDocumentParams) -> None:
        doc = params.text_document
        ls.state.buffers[path_of(doc.uri)] = (doc.version, doc.text)
        ls.schedule_lint()

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PiLanguageServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = ls.workspace.get_text_document(params.text_document.uri)
        ls.state.buffers[path_of(doc.uri)] = (params.text_document.version, doc.source)
        ls.schedule_lint()

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PiLanguageServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.state.buffers.pop(path_of(params.text_document.uri), None)
        ls.schedule_lint()

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: PiLanguageServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule_lint()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: PiLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.schedule_lint()

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: PiLanguageServer, params: types.HoverParams) -> types.Hover | None:
        text = ls.hover_text(path_of(params.text_document.uri))
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(
        ls: PiLanguageServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol]:
        return ls.heading_symbols(path_of(params.text_document.uri))

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: PiLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        title = ls.place_in_prompt(path_of(params.text_document.uri))
        if title is None:
            return []
        where = types.Range(types.Position(0, 0), types.Position(0, 0))
        return [types.CodeLens(range=where, command=types.Command(title=title, command=""))]

    @server.feature("pi/systemPrompt")
    def system_prompt(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        cwd = getattr(params, "cwd", None) or ls.state.root
        resources = ls.state.snapshot(os.path.abspath(cwd))
        return build_prompt(resources).to_json()

    return server


def serve_stdio() -> None:
    create_server().start_io()


def serve_tcp(host: str, port: int) -> None:
    create_server().start_tcp(host, port)
