"""``JSON.parse`` with positions and V8's error messages.

The reader for settings files and the trust store: it accepts exactly what ``JSON.parse``
accepts, reports an error with the text V8 (Node 22) gives, and remembers where every object
member sits, so an editor can link a setting to its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pi_lsp.js.text import utf16_len

__all__ = ["JsonDocument", "JsonMember", "JsonSyntaxError", "parse_json_document"]


class JsonSyntaxError(ValueError):
    """``JSON.parse`` would throw: ``message`` is V8's text, ``offset`` a code-point offset."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset


@dataclass(frozen=True, slots=True)
class JsonMember:
    """One ``"key": value`` of an object, located by code-point offsets in the source.

    ``path`` is the chain of keys from the top-level object (members inside arrays are not
    recorded); ``end`` is the offset just after the value.
    """

    path: tuple[str, ...]
    key_start: int
    key_end: int
    value_start: int
    end: int


@dataclass(frozen=True, slots=True)
class JsonDocument:
    value: Any
    members: tuple[JsonMember, ...]

    def top_level(self) -> dict[str, JsonMember]:
        """Top-level key → the member that supplies its value (the last duplicate wins)."""
        return {m.path[0]: m for m in self.members if len(m.path) == 1}


_WS = re.compile(r"[ \t\n\r]*")
_STRING_RUN = re.compile(r'[^"\\\x00-\x1f]*')
_DIGITS = re.compile(r"[0-9]*")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX = "0123456789abcdefABCDEF"
_SPECIAL_SOURCES = ("[object Object]", "undefined", "Infinity", "NaN")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTEXT = 10  # V8's kMaxContextCharacters
_POSITIONED = {
    "prop-or-rbrace": "Expected property name or '}' in JSON",
    "double-quoted-prop": "Expected double-quoted property name in JSON",
    "colon": "Expected ':' after property name in JSON",
    "comma-or-rbrace": "Expected ',' or '}' after property value in JSON",
    "comma-or-rbrack": "Expected ',' or ']' after array element in JSON",
    "unterminated-string": "Unterminated string in JSON",
    "bad-control": "Bad control character in string literal in JSON",
    "bad-escape": "Bad escaped character in JSON",
    "bad-unicode": "Bad Unicode escape in JSON",
    "minus": "No number after minus sign in JSON",
    "fraction": "Unterminated fractional number in JSON",
    "exponent": "Exponent part is missing a number in JSON",
    "trailing": "Unexpected non-whitespace character after JSON",
    "number": "Unexpected number in JSON",
    "string": "Unexpected string in JSON",
}


def _printable(text: str) -> str:
    """Lone surrogates as Node writes them to a UTF-8 stream (U+FFFD)."""
    return _LONE_SURROGATE.sub("\ufffd", text)


class _JsonParser:
    """An iterative ``JSON.parse`` (V8's algorithm) that records member positions."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)
        self.members: list[JsonMember] = []

    # -- errors -------------------------------------------------------------------------------

    def _v8_location(self, pos: int) -> str:
        head = self.s[:pos]
        line = 1
        last_break = 0
        i = 0
        while True:
            j = min((k for k in (head.find("\r", i), head.find("\n", i)) if k >= 0), default=-1)
            if j < 0:
                break
            if head[j] == "\r" and j + 1 < len(head) and head[j + 1] == "\n":
                j += 1
            line += 1
            last_break = j + 1
            i = j + 1
        column = 1 + utf16_len(head[last_break:])
        return f"at position {utf16_len(head)} (line {line} column {column})"

    def fail(self, pos: int, kind: str | None = None) -> JsonSyntaxError:
        """The error V8 reports at ``pos``; ``kind`` selects a positioned message, else V8 looks
        the message up from the character there."""
        if kind is None:
            if pos >= self.n:
                return JsonSyntaxError("Unexpected end of JSON input", pos)
            ch = self.s[pos]
            if ch == "-" or "0" <= ch <= "9":
                kind = "number"
            elif ch == '"':
                kind = "string"
            else:
                return JsonSyntaxError(self._unexpected_token(pos), pos)
        return JsonSyntaxError(f"{_POSITIONED[kind]} {self._v8_location(pos)}", pos)

    def _unexpected_token(self, pos: int) -> str:
        if self.s in _SPECIAL_SOURCES:
            return f'"{self.s}" is not valid JSON'
        units = self.s.encode("utf-16-le", "surrogatepass")
        length = len(units) // 2
        upos = utf16_len(self.s[:pos])

        def cut(start: int, end: int) -> str:
            return units[2 * start : 2 * end].decode("utf-16-le", "surrogatepass")

        token = _printable(cut(upos, upos + 1))
        if length < 2 * _CONTEXT + 1:
            return f"Unexpected token '{token}', \"{_printable(self.s)}\" is not valid JSON"
        if upos < _CONTEXT:
            snippet = _printable(cut(0, upos + _CONTEXT))
            return f"Unexpected token '{token}', \"{snippet}\"... is not valid JSON"
        if upos < length - _CONTEXT:
            snippet = _printable(cut(upos - _CONTEXT, upos + _CONTEXT))
            return f"Unexpected token '{token}', ...\"{snippet}\"... is not valid JSON"
        snippet = _printable(cut(upos - _CONTEXT, length))
        return f"Unexpected token '{token}', ...\"{snippet}\" is not valid JSON"

    # -- scanning -----------------------------------------------------------------------------

    def ws(self, i: int) -> int:
        match = _WS.match(self.s, i)
        return match.end() if match else i

    def string(self, i: int) -> tuple[str, int]:
        """Scan the string whose opening quote is at ``i``; returns (value, end)."""
        s, n = self.s, self.n
        i += 1
        parts: list[str] = []
        surrogate_escape = False
        while True:
            match = _STRING_RUN.match(s, i)
            if match and match.end() > i:
                parts.append(s[i : match.end()])
                i = match.end()
            if i >= n:
                raise self.fail(i, "unterminated-string")
            ch = s[i]
            if ch == '"':
                value = "".join(parts)
                if surrogate_escape:
                    value = value.encode("utf-16-le", "surrogatepass").decode(
                        "utf-16-le", "surrogatepass"
                    )
                return value, i + 1
            if ch != "\\":
                raise self.fail(i, "bad-control")
            i += 1
            if i >= n:
                raise self.fail(i)
            esc = s[i]
            if ord(esc) > 0xFF:
                raise self.fail(i)
            if esc in _ESCAPES:
                parts.append(_ESCAPES[esc])
                i += 1
            elif esc == "u":
                code = 0
                for _ in range(4):
                    i += 1
                    if i >= n or s[i] not in _HEX:
                        raise self.fail(i, "bad-unicode")
                    code = code * 16 + int(s[i], 16)
                i += 1
                surrogate_escape = surrogate_escape or 0xD800 <= code <= 0xDFFF
                parts.append(chr(code))
            else:
                raise self.fail(i, "bad-escape")

    def number(self, i: int) -> tuple[int | float, int]:
        s, n = self.s, self.n
        start = i
        if s[i] == "-":
            i += 1
        if i < n and s[i] == "0":
            i += 1
            if i < n and "0" <= s[i] <= "9":
                raise self.fail(i)
        else:
            end = _DIGITS.match(s, i)
            j = end.end() if end else i
            if j == i:
                raise self.fail(i, "minus")
            i = j
        is_float = False
        if i < n and s[i] == ".":
            is_float = True
            i += 1
            if not (i < n and "0" <= s[i] <= "9"):
                raise self.fail(i, "fraction")
            end = _DIGITS.match(s, i)
            i = end.end() if end else i
        if i < n and s[i] in "eE":
            is_float = True
            i += 1
            if i < n and s[i] in "+-":
                i += 1
            if not (i < n and "0" <= s[i] <= "9"):
                raise self.fail(i, "exponent")
            end = _DIGITS.match(s, i)
            i = end.end() if end else i
        text = s[start:i]
        return (float(text) if is_float else int(text)), i

    def literal(self, i: int, word: str) -> int:
        s, n = self.s, self.n
        if s.startswith(word, i):
            return i + len(word)
        remaining = n - i
        i += 1
        for k in range(min(len(word) - 1, remaining - 1)):
            if s[i] != word[1 + k]:
                raise self.fail(i)
            i += 1
        raise self.fail(i)

    # -- structure ----------------------------------------------------------------------------

    def parse(self) -> Any:
        s, n = self.s, self.n
        stack: list[_Frame] = []
        i = 0
        while True:
            # Produce one value, or open a container and go on to produce its first member.
            i = self.ws(i)
            ch = s[i] if i < n else ""
            value: Any
            if ch == '"':
                value, i = self.string(i)
            elif ch and (ch == "-" or "0" <= ch <= "9"):
                value, i = self.number(i)
            elif ch == "{":
                i = self.ws(i + 1)
                if i < n and s[i] == "}":
                    value, i = {}, i + 1
                else:
                    frame = _Frame({}, _child_path(stack))
                    stack.append(frame)
                    i = self._key(frame, i, "prop-or-rbrace")
                    continue
            elif ch == "[":
                i = self.ws(i + 1)
                if i < n and s[i] == "]":
                    value, i = [], i + 1
                else:
                    stack.append(_Frame([], None))
                    continue
            elif ch == "t":
                value, i = True, self.literal(i, "true")
            elif ch == "f":
                value, i = False, self.literal(i, "false")
            elif ch == "n":
                value, i = None, self.literal(i, "null")
            else:
                raise self.fail(i)
            # Hand the value to the enclosing containers, closing every one that ends here.
            while stack:
                frame = stack[-1]
                container = frame.container
                if isinstance(container, dict):
                    container[frame.key] = value
                    if frame.path is not None:
                        self.members.append(
                            JsonMember(
                                (*frame.path, frame.key),
                                frame.key_start,
                                frame.key_end,
                                frame.value_start,
                                i,
                            )
                        )
                    i = self.ws(i)
                    if i < n and s[i] == ",":
                        i = self._key(frame, self.ws(i + 1), "double-quoted-prop")
                        break
                    if not (i < n and s[i] == "}"):
                        raise self.fail(i, "comma-or-rbrace")
                else:
                    container.append(value)
                    i = self.ws(i)
                    if i < n and s[i] == ",":
                        i += 1
                        break
                    if not (i < n and s[i] == "]"):
                        raise self.fail(i, "comma-or-rbrack")
                value, i = container, i + 1
                stack.pop()
            else:
                end = self.ws(i)
                if end < n:
                    raise self.fail(end, "trailing")
                return value

    def _key(self, frame: _Frame, i: int, missing: str) -> int:
        """Scan ``"key" :`` at ``i`` into ``frame``; returns the offset after the colon."""
        if not (i < self.n and self.s[i] == '"'):
            raise self.fail(i, missing)
        frame.key_start = i
        frame.key, frame.key_end = self.string(i)
        i = self.ws(frame.key_end)
        if not (i < self.n and self.s[i] == ":"):
            raise self.fail(i, "colon")
        frame.value_start = self.ws(i + 1)
        return i + 1


@dataclass(slots=True)
class _Frame:
    """An open object or array; ``path`` locates an object reached through objects only."""

    container: Any
    path: tuple[str, ...] | None
    key: str = ""
    key_start: int = 0
    key_end: int = 0
    value_start: int = 0


def _child_path(stack: list[_Frame]) -> tuple[str, ...] | None:
    if not stack:
        return ()
    parent = stack[-1]
    if isinstance(parent.container, dict) and parent.path is not None:
        return (*parent.path, parent.key)
    return None


def parse_json_document(text: str) -> JsonDocument:
    """Parse ``text`` as ``JSON.parse`` would; raises :class:`JsonSyntaxError`."""
    parser = _JsonParser(text)
    try:
        value = parser.parse()
    except RecursionError:  # pragma: no cover - the parser is iterative
        raise JsonSyntaxError("Maximum call stack size exceeded", 0) from None
    return JsonDocument(value, tuple(parser.members))
