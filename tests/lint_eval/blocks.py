"""The Markdown block a line belongs to, for matching a finding to a label loosely.

A line's block is, first match wins: the table row it is on; else the innermost list item that
holds it (a nested item is a block of its own, apart from its parent); else the smallest other
block that holds it (paragraph, heading, code block, HTML block); else the line alone. Sections
are not blocks: a finding elsewhere under the same heading is a different statement.
"""

from __future__ import annotations

import os

from markdown_it import MarkdownIt

_PARSER = MarkdownIt("commonmark").enable("table")
_LEAVES = frozenset({"paragraph_open", "heading_open", "fence", "code_block", "html_block", "hr"})

Span = tuple[int, int]  # 0-based first line, end line exclusive


def block_spans(text: str) -> list[Span]:
    """For every line of ``text`` (0-based index), the span of its block."""
    count = text.count("\n") + 1
    rows: list[Span] = []
    items: list[Span] = []
    leaves: list[Span] = []
    for token in _PARSER.parse(text):
        if token.map is None:
            continue
        span = (token.map[0], token.map[1])
        if token.type == "tr_open":
            rows.append(span)
        elif token.type == "list_item_open":
            items.append(span)
        elif token.type in _LEAVES:
            leaves.append(span)
    out: list[Span] = []
    for line in range(count):
        smallest = _smallest(rows, line) or _smallest(items, line) or _smallest(leaves, line)
        out.append(smallest or (line, line + 1))
    return out


def _smallest(spans: list[Span], line: int) -> Span | None:
    holding = [s for s in spans if s[0] <= line < s[1]]
    return min(holding, key=lambda s: s[1] - s[0]) if holding else None


class BlockIndex:
    """Blocks of the files of one case folder, parsed once per file."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self._spans: dict[str, list[Span]] = {}

    def block(self, path: str, line: int) -> Span:
        """The block of 1-based ``line`` of ``path`` (relative to the folder)."""
        if path not in self._spans:
            try:
                with open(os.path.join(self.folder, path), encoding="utf-8") as handle:
                    self._spans[path] = block_spans(handle.read())
            except OSError:
                self._spans[path] = []
        spans = self._spans[path]
        return spans[line - 1] if 0 < line <= len(spans) else (line - 1, line)
