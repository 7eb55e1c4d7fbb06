"""Frontmatter of skills and prompt templates, split and parsed as Pi's ``parseFrontmatter`` does.

The text is normalized first (leading BOM dropped, CRLF and CR turned into LF). A frontmatter
block exists when the text starts with ``---`` and a later line starts with ``---``: the YAML is
everything between index 4 and that line, the body is everything after the closing ``---`` (its
first three characters, plus one) with surrounding whitespace trimmed. Without a block the body
is the whole normalized text, untrimmed.

Parsing follows YAML 1.2 with the core schema (:mod:`pi_lsp.resources.yaml_core`). Most
frontmatter is a handful of ``key: value`` lines; those are read by a line scanner that accepts
only forms whose meaning it knows exactly (plain, single- and double-quoted one-line values at
the top level) and hands everything else to the full YAML parser, so both give the same result.

Positions are 0-based lines of the normalized text (which has the same lines as the file) and
code-point columns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.js.text import JS_WHITESPACE, js_trim
from pi_lsp.resources.yaml_core import (
    KeyPosition,
    YamlProblem,
    core_scalar,
    join_surrogates,
    load_yaml,
    pi_error_text,
)

__all__ = [
    "FieldSpan",
    "Frontmatter",
    "FrontmatterError",
    "normalize_newlines",
    "parse_frontmatter",
    "strip_frontmatter",
]


@dataclass(frozen=True, slots=True)
class FieldSpan:
    """A top-level key and its value: from the key's first character to the value's end."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True, slots=True)
class Frontmatter:
    """A file split into frontmatter and body.

    ``data`` is the YAML mapping (``{}`` when there is no block, the block is empty, or its
    document is not a mapping). ``fields`` locates each top-level key of ``data``.
    ``start_line``/``end_line`` are the lines of the opening and closing ``---`` (both ``-1``
    without a block); ``body_line`` is the line where the (trimmed) body starts.
    """

    data: dict[str, Any]
    body: str
    has_frontmatter: bool
    fields: Mapping[str, FieldSpan] = field(default_factory=dict)
    start_line: int = -1
    end_line: int = -1
    body_line: int = 0

    @property
    def key_lines(self) -> dict[str, int]:
        """The line of each top-level key."""
        return {key: span.line for key, span in self.fields.items()}

    @property
    def block_lines(self) -> tuple[int, int] | None:
        """First and last line of the frontmatter block (the ``---`` lines), if there is one."""
        if not self.has_frontmatter:
            return None
        return (self.start_line, self.end_line)


class FrontmatterError(ValueError):
    """The frontmatter is not valid YAML.

    ``message`` reads like Pi's (the YAML library's text, ``… at line L, column C: …`` with
    ``L``/``C`` counted inside the YAML block, 1-based); ``line``/``column`` locate the problem
    in the file (0-based, code points) for an editor.
    """

    def __init__(self, message: str, problem: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.problem = problem
        self.line = line
        self.column = column


def normalize_newlines(text: str) -> str:
    """Drop a leading BOM and turn CRLF and lone CR into LF."""
    if text.startswith("\ufeff"):
        text = text[1:]
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def parse_frontmatter(text: str) -> Frontmatter:
    """Split ``text`` and parse its frontmatter; raises :class:`FrontmatterError`."""
    normalized = normalize_newlines(text)
    if not normalized.startswith("---"):
        return Frontmatter({}, normalized, False)
    end = normalized.find("\n---", 3)
    if end == -1:
        return Frontmatter({}, normalized, False)
    yaml_text = normalized[4:end]
    rest = normalized[end + 4 :]
    body = js_trim(rest)
    closing_line = normalized.count("\n", 0, end + 1)
    leading = len(rest) - len(rest.lstrip(JS_WHITESPACE))
    body_line = closing_line + rest.count("\n", 0, leading)
    yaml_line = normalized.count("\n", 0, 4)
    yaml_column = 4 - (normalized.rfind("\n", 0, 4) + 1)
    data: dict[str, Any] = {}
    fields: dict[str, FieldSpan] = {}
    if yaml_text:
        document = _scan_simple(yaml_text)
        if document is None:
            try:
                parsed = load_yaml(yaml_text)
            except YamlProblem as exc:
                message = pi_error_text(exc.problem, yaml_text, exc.line, exc.column)
                column = exc.column + (yaml_column if exc.line == 0 else 0)
                raise FrontmatterError(message, exc.problem, exc.line + yaml_line, column) from exc
            value, keys = parsed.value, parsed.keys
        else:
            value, keys = document
        if isinstance(value, dict):
            data = value
            fields = {
                key: _file_span(position, yaml_line, yaml_column)
                for key, position in keys.items()
                if key in data
            }
    return Frontmatter(data, body, True, fields, 0, closing_line, body_line)


def strip_frontmatter(text: str) -> str:
    """The body of ``text`` (Pi's ``stripFrontmatter``); raises :class:`FrontmatterError`."""
    return parse_frontmatter(text).body


def _file_span(position: KeyPosition, line_offset: int, column_offset: int) -> FieldSpan:
    column = position.column + (column_offset if position.line == 0 else 0)
    end_column = position.end_column + (column_offset if position.end_line == 0 else 0)
    return FieldSpan(
        position.line + line_offset, column, position.end_line + line_offset, end_column
    )


# --- the line scanner for simple frontmatter ----------------------------------------------------

_KEY_VALUE = re.compile(r"(?<![A-Za-z0-9_-])([A-Za-z_][A-Za-z0-9_-]*+):(?:[ \t]++(.*))?")
#: keys the core schema would turn into something else than the same string
_SPECIAL_KEYS = frozenset(
    {"null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE"}
)
#: characters a plain scalar may not start with, or that give it another meaning
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
# Each repetition below starts on a character the one before cannot match and never gives back
# what it took (possessive), so a line without its closing quote fails in one pass instead of
# trying every way to split the text between the two branches (2^n for n characters).
_DOUBLE_QUOTED = re.compile(r'(?<!\\)"([^"\\]*+(?:\\.[^"\\]*+)*+)"')
_SINGLE_QUOTED = re.compile(r"'([^']*+(?:''[^']*+)*+)'")
_AFTER_SCALAR = re.compile(r"[ \t]*+|[ \t]++#.*")
_ESCAPE = re.compile(r"\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))")
_SIMPLE_ESCAPES = {
    "0": "\x00",
    "a": "\x07",
    "b": "\x08",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\x0b",
    "f": "\x0c",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}


class _NotSimple(Exception):
    """The scanner met a form it does not handle: the full parser takes over."""


def _scan_simple(yaml_text: str) -> tuple[dict[str, Any], dict[str, KeyPosition]] | None:
    """``key: value`` lines at the top level, or ``None`` when the YAML needs the full parser."""
    if "\x00" in yaml_text:
        return None
    data: dict[str, Any] = {}
    keys: dict[str, KeyPosition] = {}
    try:
        for index, line in enumerate(yaml_text.split("\n")):
            if not line.strip(" ") or line[0] == "#":
                continue
            found = _KEY_VALUE.fullmatch(line)
            if found is None:
                return None
            key = found.group(1)
            if key in data or key in _SPECIAL_KEYS:
                return None
            raw = found.group(2)
            if raw is None:
                value: Any = None
                end = len(key) + 1
            else:
                value, end = _simple_value(raw, len(line) - len(raw))
            data[key] = value
            keys[key] = KeyPosition(index, 0, index, end)
    except _NotSimple:
        return None
    return data, keys


def _simple_value(raw: str, offset: int) -> tuple[Any, int]:
    """The value of a one-line scalar ``raw`` (starting at column ``offset``) and its end."""
    if not raw or raw[0] == "#":
        return None, offset
    first = raw[0]
    if first == '"':
        found = _DOUBLE_QUOTED.match(raw)
        if found is None or not _AFTER_SCALAR.fullmatch(raw, found.end()):
            raise _NotSimple
        content = found.group(1)
        if "\\" in content:
            content = _ESCAPE.sub(_unescape, content)
            if "\\u" in found.group(1):
                content = join_surrogates(content)
        return content, offset + found.end()
    if first == "'":
        found = _SINGLE_QUOTED.match(raw)
        if found is None or not _AFTER_SCALAR.fullmatch(raw, found.end()):
            raise _NotSimple
        return found.group(1).replace("''", "'"), offset + found.end()
    if first in _INDICATORS:
        raise _NotSimple
    text = raw
    for marker in (" #", "\t#"):
        cut = text.find(marker)
        if cut != -1:
            text = text[:cut]
    text = text.rstrip(" \t")
    if ": " in text or ":\t" in text or text.endswith(":"):
        raise _NotSimple
    return core_scalar(text), offset + len(text)


def _unescape(found: re.Match[str]) -> str:
    hex_digits = found.group(1) or found.group(2) or found.group(3)
    if hex_digits is not None:
        code = int(hex_digits, 16)
        if code > 0x10FFFF:
            raise _NotSimple
        return chr(code)
    replacement = _SIMPLE_ESCAPES.get(found.group(4))
    if replacement is None:
        raise _NotSimple
    return replacement
