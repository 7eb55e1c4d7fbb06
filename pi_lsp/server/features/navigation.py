"""Finding your way in a context file: heading symbols and the code lens with its prompt place."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lsprotocol import types

from pi_lsp.prompt.tokens import count_tokens
from pi_lsp.resources.context_files import CONTEXT_FILE_NAMES, loaded_as
from pi_lsp.server.convert import path_of, utf16_column
from pi_lsp.server.language_server import PiLanguageServer

if TYPE_CHECKING:
    from pi_lsp.server.state import WorkspaceState


def heading_symbols(text: str) -> list[types.DocumentSymbol]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(text)
    lines = text.split("\n")
    symbols = []
    for index, token in enumerate(tokens):
        if token.type != "heading_open" or token.map is None:
            continue
        title = tokens[index + 1].content if index + 1 < len(tokens) else ""
        line = token.map[0]
        width = utf16_column(lines[line], len(lines[line]))
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


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def place_in_prompt(state: WorkspaceState, path: str) -> str | None:
    """``"3rd of 5 in the prompt · 412 tokens"`` for a context file that loads."""
    if os.path.basename(path) not in CONTEXT_FILE_NAMES:
        return None
    files = state.snapshot(state.cwd_for(path)).context_files.files
    loaded = loaded_as(files, path)
    if loaded is None:
        return "not read by Pi (shadowed in this folder)"
    tokens = count_tokens(loaded.content)
    return f"{ordinal(files.index(loaded) + 1)} of {len(files)} in the prompt · {tokens} tokens"


def register(server: PiLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    def symbols(
        ls: PiLanguageServer, params: types.DocumentSymbolParams
    ) -> list[types.DocumentSymbol]:
        return heading_symbols(ls.state.text_of(path_of(params.text_document.uri)) or "")

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: PiLanguageServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        title = place_in_prompt(ls.state, path_of(params.text_document.uri))
        if title is None:
            return []
        where = types.Range(types.Position(0, 0), types.Position(0, 0))
        return [types.CodeLens(range=where, command=types.Command(title=title, command=""))]
