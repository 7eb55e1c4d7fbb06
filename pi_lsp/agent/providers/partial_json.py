"""Best-effort parsing of tool-call arguments while they stream in (Pi's ``parseStreamingJson``).

A provider receives the arguments of a tool call as JSON text in pieces. While the text is still
incomplete, :func:`parse_streaming_json` returns what can be read so far: an unfinished string
counts with the characters received, an unfinished object or array with the members that are
complete enough, a member whose value has not started is left out. Text that can never become
JSON (or a value that is not an object) gives ``{}``, as Pi does.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["parse_streaming_json"]

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NUMBER_PREFIX = re.compile(r"-?[0-9]*\.?[0-9]*(?:[eE][+-]?[0-9]*)?")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS = {"true": True, "false": False, "null": None}


class _Incomplete(Exception):
    """The text ended inside a value that cannot be shown yet (a bare ``tr`` or ``-``)."""


class _Invalid(Exception):
    """The text can never become JSON."""


class _Reader:
    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)

    def ws(self, i: int) -> int:
        match = _WS.match(self.s, i)
        return match.end() if match else i

    def value(self, i: int) -> tuple[Any, int, bool]:
        """Parse the value at ``i``: (value, end, complete). Raises at EOF before any value."""
        i = self.ws(i)
        if i >= self.n:
            raise _Incomplete
        char = self.s[i]
        if char == "{":
            return self.obj(i + 1)
        if char == "[":
            return self.array(i + 1)
        if char == '"':
            return self.string(i + 1)
        if char in "-0123456789":
            return self.number(i)
        for word, literal in _LITERALS.items():
            if self.s.startswith(word, i):
                return literal, i + len(word), True
            if word.startswith(self.s[i:]):
                raise _Incomplete
        raise _Invalid

    def string(self, i: int) -> tuple[str, int, bool]:
        out: list[str] = []
        while i < self.n:
            char = self.s[i]
            if char == '"':
                return "".join(out), i + 1, True
            if char == "\\":
                if i + 1 >= self.n:
                    break
                escape = self.s[i + 1]
                if escape == "u":
                    digits = self.s[i + 2 : i + 6]
                    if len(digits) < 4:
                        break
                    try:
                        out.append(chr(int(digits, 16)))
                    except ValueError:
                        raise _Invalid from None
                    i += 6
                    continue
                if escape not in _ESCAPES:
                    raise _Invalid
                out.append(_ESCAPES[escape])
                i += 2
                continue
            out.append(char)
            i += 1
        return "".join(out), self.n, False

    def number(self, i: int) -> tuple[int | float, int, bool]:
        prefix = _NUMBER_PREFIX.match(self.s, i)
        end = prefix.end() if prefix else i
        match = _NUMBER.match(self.s, i)
        if match is None:
            if end >= self.n:
                raise _Incomplete
            raise _Invalid
        text = match.group()
        value: int | float = float(text) if any(c in text for c in ".eE") else int(text)
        if end >= self.n:  # the number may go on
            return value, self.n, False
        if match.end() != end:
            raise _Invalid
        return value, end, True

    def obj(self, i: int) -> tuple[dict[str, Any], int, bool]:
        out: dict[str, Any] = {}
        i = self.ws(i)
        if i < self.n and self.s[i] == "}":
            return out, i + 1, True
        while True:
            i = self.ws(i)
            if i >= self.n:
                return out, self.n, False
            if self.s[i] != '"':
                raise _Invalid
            key, i, key_done = self.string(i + 1)
            if not key_done:
                return out, self.n, False
            i = self.ws(i)
            if i >= self.n:
                return out, self.n, False
            if self.s[i] != ":":
                raise _Invalid
            try:
                value, i, done = self.value(i + 1)
            except _Incomplete:
                return out, self.n, False
            out[key] = value
            if not done:
                return out, self.n, False
            i = self.ws(i)
            if i >= self.n:
                return out, self.n, False
            if self.s[i] == "}":
                return out, i + 1, True
            if self.s[i] != ",":
                raise _Invalid
            i += 1

    def array(self, i: int) -> tuple[list[Any], int, bool]:
        out: list[Any] = []
        i = self.ws(i)
        if i < self.n and self.s[i] == "]":
            return out, i + 1, True
        while True:
            try:
                value, i, done = self.value(i)
            except _Incomplete:
                return out, self.n, False
            out.append(value)
            if not done:
                return out, self.n, False
            i = self.ws(i)
            if i >= self.n:
                return out, self.n, False
            if self.s[i] == "]":
                return out, i + 1, True
            if self.s[i] != ",":
                raise _Invalid
            i += 1


def parse_streaming_json(text: str | None) -> dict[str, Any]:
    """The arguments object ``text`` holds so far; ``{}`` when nothing usable is there."""
    if not text or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        pass
    else:
        return value if isinstance(value, dict) else {}
    try:
        parsed = _Reader(text).value(0)[0]
    except (_Incomplete, _Invalid, RecursionError):
        return {}
    if not isinstance(parsed, dict):
        return {}
    return parsed
