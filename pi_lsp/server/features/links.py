"""Document links: the files and folders a Markdown context file mentions, made clickable.

The engine (:mod:`pi_lsp.resources.path_refs`) finds the paths that exist; this module turns
their code-point ranges into the client's UTF-16 ranges and their targets into ``file:`` URIs
(with ``#L42`` when the text names a line, as ``src/app.py:42`` does).
"""

from __future__ import annotations

from lsprotocol import types
from pygls.capabilities import get_capability

from pi_lsp.resources.agent_dir import home_dir
from pi_lsp.resources.path_refs import PathRef, find_path_refs
from pi_lsp.server.convert import path_of, uri_of, utf16_column
from pi_lsp.server.language_server import PiLanguageServer

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdc")


def is_markdown(path: str) -> bool:
    return path.lower().endswith(MARKDOWN_SUFFIXES)


def link_of(ref: PathRef, lines: list[str], tooltips: bool = True) -> types.DocumentLink:
    where = ref.where
    line_text = lines[where.start_line] if where.start_line < len(lines) else ""
    target = uri_of(ref.target)
    if ref.line is not None:
        target += f"#L{ref.line}"
    tooltip = f"Open folder {ref.written}" if ref.is_dir else f"Open {ref.written}"
    return types.DocumentLink(
        range=types.Range(
            start=types.Position(where.start_line, utf16_column(line_text, where.start_column)),
            end=types.Position(where.end_line, utf16_column(line_text, where.end_column)),
        ),
        target=target,
        tooltip=tooltip if tooltips else None,
    )


def document_links(
    text: str, path: str, root: str | None, *, tooltips: bool = True
) -> list[types.DocumentLink]:
    """The links of the Markdown file ``path`` whose content is ``text``."""
    lines = text.split("\n")
    found = find_path_refs(text, path, home=home_dir(), root=root)
    return [link_of(ref, lines, tooltips) for ref in found]


def register(server: PiLanguageServer) -> None:
    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_LINK)
    def links(ls: PiLanguageServer, params: types.DocumentLinkParams) -> list[types.DocumentLink]:
        path = path_of(params.text_document.uri)
        if not is_markdown(path):
            return []
        text = ls.state.text_of(path)
        if text is None:
            return []
        tooltips = get_capability(
            ls.client_capabilities, "text_document.document_link.tooltip_support", False
        )
        return document_links(text, path, ls.state.root, tooltips=bool(tooltips))
