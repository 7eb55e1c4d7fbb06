"""Pi's settings: global ``<agentDir>/settings.json`` deep-merged with the project's
``<cwd>/.pi/settings.json`` (read only when the project is trusted), spec §10.1 and §4.4.

Merging follows Pi: objects merge key by key, recursively, the project winning; any other value
(array, string, number, boolean, null) from the project replaces the global one. Each file gets
Pi's legacy-key migrations first. A file that cannot be read or parsed counts as ``{}`` and yields
a :class:`Finding` at the offending line and column; files are never written here.

This module also holds the JSON reader the trust store uses: it accepts exactly what
``JSON.parse`` accepts, reports errors with the text V8 (Node 22) gives, and remembers where
every object member sits so an editor can link a setting to its line.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from pi_lsp.js.json import js_string
from pi_lsp.resources.agent_dir import (
    CONFIG_DIR_NAME,
    LineIndex,
    decode_text,
    node_error_text,
    resolve_path,
)
from pi_lsp.resources.file_source import DISK, FileSource
from pi_lsp.resources.model import Finding, SourceRange

SettingsScope = Literal["global", "project"]
SettingsStatus = Literal["missing", "empty", "loaded", "invalid", "unreadable", "untrusted"]
DefaultProjectTrust = Literal["always", "never", "ask"]

SETTINGS_FILE_NAME = "settings.json"

# ---------------------------------------------------------------------------------------------
# JSON with positions and V8's error messages


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


def _utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


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
        column = 1 + _utf16_len(head[last_break:])
        return f"at position {_utf16_len(head)} (line {line} column {column})"

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
        upos = _utf16_len(self.s[:pos])

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


# ---------------------------------------------------------------------------------------------
# Settings files


@dataclass(frozen=True, slots=True)
class SettingsFile:
    """One settings file as Pi sees it (after migration); ``data`` is ``{}`` unless loaded."""

    scope: SettingsScope
    path: str
    status: SettingsStatus
    data: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    key_ranges: Mapping[str, SourceRange] = field(default_factory=lambda: MappingProxyType({}))
    findings: tuple[Finding, ...] = ()
    version: object = None

    @property
    def exists(self) -> bool:
        return self.status not in ("missing", "untrusted")

    def key_range(self, key: str) -> SourceRange | None:
        return self.key_ranges.get(key)


@dataclass(frozen=True, slots=True)
class Settings:
    """Merged settings plus, per top-level key, where its value came from."""

    merged: Mapping[str, Any]
    global_file: SettingsFile
    project_file: SettingsFile
    origins: Mapping[str, tuple[SourceRange, ...]]

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.global_file.findings + self.project_file.findings

    def get(self, key: str, default: Any = None) -> Any:
        return self.merged.get(key, default)

    def origin(self, key: str) -> tuple[SourceRange, ...]:
        """Where ``key``'s merged value comes from, the winning file first."""
        return self.origins.get(key, ())

    @property
    def default_project_trust(self) -> DefaultProjectTrust:
        """Pi reads ``defaultProjectTrust`` from the global file only."""
        return default_project_trust(self.global_file.data)


def global_settings_path(agent_dir: str) -> str:
    return os.path.join(resolve_path(agent_dir), SETTINGS_FILE_NAME)


def project_settings_path(cwd: str) -> str:
    return os.path.join(resolve_path(cwd), CONFIG_DIR_NAME, SETTINGS_FILE_NAME)


def default_project_trust(global_settings: Mapping[str, Any]) -> DefaultProjectTrust:
    value = global_settings.get("defaultProjectTrust")
    return value if value in ("always", "never") else "ask"


def migrate_settings(settings: dict[str, Any]) -> dict[str, str]:
    """Apply Pi's legacy-key migrations in place; returns ``{new key: old key}`` for the keys
    whose value moved, so their source line can still be found."""
    moved: dict[str, str] = {}
    if "queueMode" in settings and "steeringMode" not in settings:
        settings["steeringMode"] = settings.pop("queueMode")
        moved["steeringMode"] = "queueMode"
    if "transport" not in settings and isinstance(settings.get("websockets"), bool):
        settings["transport"] = "websocket" if settings.pop("websockets") else "sse"
        moved["transport"] = "websockets"
    skills = settings.get("skills")
    if isinstance(skills, dict):
        if "enableSkillCommands" in skills and "enableSkillCommands" not in settings:
            settings["enableSkillCommands"] = skills["enableSkillCommands"]
            moved["enableSkillCommands"] = "skills"
        directories = skills.get("customDirectories")
        if isinstance(directories, list) and directories:
            settings["skills"] = directories
        else:
            del settings["skills"]
    retry = settings.get("retry")
    if isinstance(retry, dict):
        provider = retry.get("provider")
        if isinstance(provider, list):
            provider = {str(i): v for i, v in enumerate(provider)}
        elif not isinstance(provider, dict):
            provider = None
        max_delay = retry.get("maxDelayMs")
        is_number = isinstance(max_delay, int | float) and not isinstance(max_delay, bool)
        if is_number and (provider is None or provider.get("maxRetryDelayMs") is None):
            retry["provider"] = {**(provider or {}), "maxRetryDelayMs": max_delay}
        retry.pop("maxDelayMs", None)
    return moved


def deep_merge(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Pi's ``deepMergeObjects``: objects merge recursively, anything else from ``overrides``
    replaces; the inputs are not modified."""
    result = copy.deepcopy(dict(base))
    for key, value in overrides.items():
        current = result.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            result[key] = deep_merge(current, value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def json_error_range(path: str, text: str, lines: LineIndex, error: JsonSyntaxError) -> SourceRange:
    """Where ``JSON.parse`` failed in ``text``: the offending character (empty at the end)."""
    line, column = lines.position(error.offset)
    return SourceRange.line(path, line, column, column + (1 if error.offset < len(text) else 0))


def _finding(where: SourceRange, rule: str, message: str, pi_text: str | None) -> Finding:
    """A warning (Pi goes on with ``{}``); ``pi_text`` is the error text in Pi's stderr line."""
    pi_message = None
    if pi_text is not None:
        pi_message = f"Warning: Invalid settings file {where.path}: {pi_text}"
    return Finding(where, "warning", rule, message, pi_message=pi_message)


def read_settings_file(
    path: str, scope: SettingsScope, *, source: FileSource = DISK
) -> SettingsFile:
    """Read one settings file the way Pi loads it (never writes it)."""
    if not (source.is_file(path) or os.path.exists(path)):
        return SettingsFile(scope, path, "missing")
    version = source.version(path)
    try:
        raw = source.read_bytes(path)
    except OSError as error:
        text = node_error_text(error, "open", path)
        finding = _finding(
            SourceRange(path),
            "settings-unreadable",
            f"Cannot read {scope} settings file {path}: {error.strerror or error}; using {{}}",
            text,
        )
        return SettingsFile(scope, path, "unreadable", findings=(finding,), version=version)
    if not raw:
        return SettingsFile(scope, path, "empty", version=version)
    text, _had_bom, _bad = decode_text(raw)
    lines = LineIndex(text)
    try:
        document = parse_json_document(text)
    except JsonSyntaxError as error:
        where = json_error_range(path, text, lines, error)
        finding = _finding(
            where,
            "settings-invalid-json",
            f"Invalid JSON in {scope} settings file at line {where.start_line + 1}, "
            f"column {where.start_column + 1}: "
            f"{error.message}; the file is ignored",
            error.message,
        )
        return SettingsFile(scope, path, "invalid", findings=(finding,), version=version)
    value = document.value
    if not isinstance(value, dict):
        kind = "an array" if isinstance(value, list) else "null" if value is None else "a value"
        finding = _finding(
            lines.range(path, 0, len(text)),
            "settings-not-object",
            f"{scope.capitalize()} settings file {path} must hold a JSON object, not {kind}; "
            "the file is ignored",
            # Pi's migration step fails on primitives; an array passes silently.
            None
            if isinstance(value, list)
            else f"Cannot use 'in' operator to search for 'queueMode' in {js_string(value)}",
        )
        return SettingsFile(scope, path, "invalid", findings=(finding,), version=version)
    data: dict[str, Any] = value
    moved = migrate_settings(data)
    members = document.top_level()
    ranges: dict[str, SourceRange] = {}
    for key in data:
        member = members.get(moved.get(key, key))
        if member is not None:
            ranges[key] = lines.range(path, member.key_start, member.end)
    return SettingsFile(
        scope,
        path,
        "loaded",
        MappingProxyType(data),
        MappingProxyType(ranges),
        version=version,
    )


def load_settings(
    cwd: str,
    agent_dir: str,
    *,
    project_trusted: bool,
    source: FileSource = DISK,
) -> Settings:
    """Global settings merged with the project's (only when ``project_trusted``)."""
    global_file = read_settings_file(global_settings_path(agent_dir), "global", source=source)
    project_path = project_settings_path(cwd)
    if project_trusted:
        project_file = read_settings_file(project_path, "project", source=source)
    else:
        project_file = SettingsFile("project", project_path, "untrusted")
    merged = deep_merge(global_file.data, project_file.data)
    origins: dict[str, tuple[SourceRange, ...]] = {}
    for key in merged:
        chain: list[SourceRange] = []
        in_project = key in project_file.data
        if in_project and (where := project_file.key_range(key)) is not None:
            chain.append(where)
        merges = isinstance(project_file.data.get(key), dict) and isinstance(
            global_file.data.get(key), dict
        )
        if (not in_project or merges) and (where := global_file.key_range(key)) is not None:
            chain.append(where)
        origins[key] = tuple(chain)
    return Settings(MappingProxyType(merged), global_file, project_file, MappingProxyType(origins))
