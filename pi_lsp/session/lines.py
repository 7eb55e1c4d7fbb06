"""The lines of a session file, parsed as Pi parses them, with every skipped line reported.

Pi reads the whole file as UTF-8 (invalid bytes become U+FFFD), trims it, splits it on ``\\n``
and ``JSON.parse``s each non-blank line, silently skipping the ones that fail (spec §8.3).
Here the same lines are kept, but each skipped one becomes a warning with its line number;
a last line without its newline that does not parse is called out as torn (a write cut short
by a crash), since that is almost always what it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pi_lsp.js_json import JsonParseError, parse_json
from pi_lsp.resources.agent_dir import decode_text
from pi_lsp.resources.js_text import JS_WHITESPACE, js_trim
from pi_lsp.resources.model import Finding, SourceRange

__all__ = ["ParsedLines", "parse_session_bytes"]

_PREVIEW = 60


@dataclass(slots=True)
class ParsedLines:
    """The JSON objects of a file in order, and where each one came from.

    ``lines[i]`` is the 0-based line of ``records[i]``. ``ends_with_newline`` is false when the
    file is non-empty and its last byte is not ``\\n`` (Pi appends one before writing more).
    """

    path: str
    records: list[dict[str, Any]] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    ends_with_newline: bool = True
    torn_last_line: bool = False


def _preview(text: str) -> str:
    text = js_trim(text)
    return text if len(text) <= _PREVIEW else text[:_PREVIEW] + "…"


def parse_session_bytes(path: str, data: bytes) -> ParsedLines:
    """Parse the bytes of a session file (``path`` only labels the findings)."""
    result = ParsedLines(path, ends_with_newline=not data or data.endswith(b"\n"))
    # decode_text drops a leading BOM, as JavaScript's trim() of the whole text does
    text, _had_bom, first_bad = decode_text(data)
    lines = text.split("\n")
    nonblank = [i for i, line in enumerate(lines) if js_trim(line)]
    if not nonblank:
        return result
    first, last = nonblank[0], nonblank[-1]
    if first_bad is not None:
        bad_line = text.count("\n", 0, first_bad)
        result.findings.append(
            _warning(
                path,
                bad_line,
                "session-invalid-utf8",
                f"line {bad_line + 1} is not valid UTF-8; the bad bytes are read as U+FFFD",
            )
        )
    for index in nonblank:
        line = lines[index]
        # Pi trims the whole text: JavaScript whitespace before the first and after the last
        # line is gone; inside, only JSON's own whitespace may surround a value.
        if index == first:
            line = line.lstrip(JS_WHITESPACE)
        if index == last:
            line = line.rstrip(JS_WHITESPACE)
        try:
            value = parse_json(line)
        except JsonParseError as error:
            torn = index == len(lines) - 1 and not result.ends_with_newline
            if torn:
                result.torn_last_line = True
                message = (
                    f"line {index + 1} is incomplete (the file ends without a newline and the "
                    "line is not valid JSON, as after a crash during a write); it is skipped"
                )
                rule = "session-torn-last-line"
            else:
                message = (
                    f"line {index + 1} is not valid JSON and is skipped ({error}): {_preview(line)}"
                )
                rule = "session-line-not-json"
            result.findings.append(_warning(path, index, rule, message))
            continue
        if not isinstance(value, dict):
            result.findings.append(
                _warning(
                    path,
                    index,
                    "session-line-not-object",
                    f"line {index + 1} is JSON but not an object and is skipped: {_preview(line)}",
                )
            )
            continue
        result.records.append(value)
        result.lines.append(index)
    return result


def _warning(path: str, line: int, rule: str, message: str) -> Finding:
    return Finding(SourceRange.line(path, line), "warning", rule, message)
