"""Engine values to LSP values: URIs, code-point positions to UTF-16, findings to diagnostics.

The one place where the engine's (line, code-point column) positions become the client's.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from urllib.parse import unquote, urlparse

from lsprotocol import types

from pi_lsp.js.text import utf16_len
from pi_lsp.lint.engine import Diagnostic
from pi_lsp.resources.model import SourceRange

SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "information": types.DiagnosticSeverity.Information,
    "hint": types.DiagnosticSeverity.Hint,
}

_CHECKOUT_RULES_DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
#: Where the rules are documented: the checkout's docs/rules.md when pi-lsp runs from one
#: (editable installs), else the published copy. A setting (``rulesDocUrl``) overrides it.
DEFAULT_RULES_DOC_URL = (
    _CHECKOUT_RULES_DOC.as_uri()
    if _CHECKOUT_RULES_DOC.is_file()
    else "https://github.com/pi-lsp/pi-lsp/blob/main/docs/rules.md"
)


def rule_doc_url(base: str, code: str, name: str) -> str:
    """The link to one rule's section (the heading ``## PI101 conflicting-instructions``)."""
    return f"{base}#{code.lower()}-{name}"


TextOf = Callable[[str], "str | None"]


def path_of(uri: str) -> str:
    return os.path.abspath(unquote(urlparse(uri).path))


def uri_of(path: str) -> str:
    return Path(path).as_uri()


def utf16_column(line_text: str, column: int) -> int:
    """The UTF-16 offset of code-point ``column`` in ``line_text``."""
    return utf16_len(line_text[:column])


def code_point_column(line_text: str, character: int) -> int:
    """The code-point column of UTF-16 offset ``character`` in ``line_text`` (clamped)."""
    units = 0
    for index, char in enumerate(line_text):
        if units >= character:
            return index
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line_text)


@lru_cache(maxsize=16)
def _lines(text: str) -> tuple[str, ...]:
    """The lines of ``text``, split once for all the ranges converted in it (a file with
    hundreds of diagnostics was split again for each one)."""
    return tuple(text.split("\n"))


def lsp_range(where: SourceRange, text: str | None) -> types.Range:
    lines = _lines(text or "")

    def position(line: int, column: int) -> types.Position:
        line_text = lines[line] if 0 <= line < len(lines) else ""
        return types.Position(line=max(line, 0), character=utf16_column(line_text, column))

    return types.Range(
        start=position(where.start_line, where.start_column),
        end=position(where.end_line, where.end_column),
    )


def lsp_location(where: SourceRange, text_of: TextOf) -> types.Location:
    return types.Location(uri=uri_of(where.path), range=lsp_range(where, text_of(where.path)))


def lsp_diagnostic(
    diagnostic: Diagnostic, text_of: TextOf, rules_doc: str = DEFAULT_RULES_DOC_URL
) -> types.Diagnostic:
    finding = diagnostic.finding
    related = [
        types.DiagnosticRelatedInformation(
            location=lsp_location(r.where, text_of), message=r.message
        )
        for r in finding.related
    ]
    rule = diagnostic.rule
    return types.Diagnostic(
        range=lsp_range(finding.where, text_of(finding.where.path)),
        severity=SEVERITY[diagnostic.severity],
        code=rule.code,
        code_description=types.CodeDescription(href=rule_doc_url(rules_doc, rule.code, rule.name)),
        source="pi-lsp",
        message=f"{finding.message} [{rule.name}]",
        related_information=related or None,
        data={"rule": rule.name, **finding.data} if finding.data else {"rule": rule.name},
    )
