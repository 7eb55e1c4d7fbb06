"""YAML 1.2 with the core schema, read the way the npm ``yaml`` package (behind Pi) reads it.

ruamel.yaml does the scanning and parsing (a node graph with positions); the values are built
here, because ruamel's own constructors follow its schema, not the core schema that npm
``yaml`` applies by default: there ``1_000``, ``0b101``, ``-0x1``, ``2001-12-14`` and ``=`` stay
strings, ``010`` is ten, ``<<`` is an ordinary key, and control characters are accepted.

:func:`core_scalar` is the core schema's reading of a plain scalar; the frontmatter fast path
uses it too, so both paths agree on every value.
"""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import Reader
from ruamel.yaml.resolver import BaseResolver, VersionedResolver
from ruamel.yaml.scanner import Scanner, ScannerError
from ruamel.yaml.tag import Tag

from pi_lsp.js.json import js_number
from pi_lsp.js.text import utf16_len

__all__ = [
    "KeyPosition",
    "YamlDocument",
    "YamlProblem",
    "core_scalar",
    "join_surrogates",
    "js_key",
    "load_yaml",
    "pi_error_text",
]

# --- the core schema -----------------------------------------------------------------------------

_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INT = re.compile(r"[-+]?[0-9]+")
_OCT = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN = frozenset({".nan", ".NaN", ".NAN"})
#: first characters of the plain scalars that may resolve to something other than a string
_MAYBE_NOT_STRING = frozenset("0123456789+-.~nNtTfF")
_SURROGATE = re.compile("[\ud800-\udfff]")


def core_scalar(text: str) -> Any:
    """The value of a plain (unquoted, untagged) scalar under the YAML 1.2 core schema."""
    if not text:
        return None
    if text[0] not in _MAYBE_NOT_STRING:
        return text
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT.fullmatch(text):
        return int(text)
    if _OCT.fullmatch(text):
        return int(text[2:], 8)
    if _HEX.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return -math.inf if text[0] == "-" else math.inf
    if text in _NAN:
        return math.nan
    return text


def js_key(value: Any) -> str:
    """The property name JavaScript gives a mapping key (``String(key)``)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return js_number(value)
    if isinstance(value, list):
        return ",".join("" if item is None else js_key(item) for item in value)
    return "[object Object]"


def join_surrogates(text: str) -> str:
    """Pair up UTF-16 surrogate halves (``\\ud83d\\ude00`` escapes) into one character."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


# --- results -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KeyPosition:
    """A top-level key of the document: where the key starts and where its value ends.

    Lines and columns are 0-based and relative to the YAML text (columns in code points).
    """

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True, slots=True)
class YamlDocument:
    """A parsed document: the value (``None`` for an empty one) and its top-level keys."""

    value: Any
    keys: dict[str, KeyPosition]


class YamlProblem(Exception):
    """The text is not valid YAML; ``line``/``column`` are 0-based in the YAML text."""

    def __init__(self, problem: str, line: int, column: int) -> None:
        super().__init__(problem)
        self.problem = problem
        self.line = line
        self.column = column


def pi_error_text(problem: str, source: str, line: int, column: int) -> str:
    """The error text in the form the npm ``yaml`` package gives it (Pi shows it verbatim).

    ``{problem} at line L, column C:`` then the offending line with a caret under the column;
    ``L``/``C`` are 1-based and ``C`` counts UTF-16 units, as JavaScript does.
    """
    lines = source.split("\n")
    line_text = lines[line] if 0 <= line < len(lines) else ""
    col = utf16_len(line_text[:column]) + 1
    text = f"{problem} at line {line + 1}, column {col}"
    caret = column
    shown = line_text
    if caret >= 60 and len(shown) > 80:
        trim = min(caret - 39, len(shown) - 79)
        shown = "…" + shown[trim:]
        caret -= trim - 1
    if len(shown) > 80:
        shown = shown[:79] + "…"
    if line > 0 and not shown[:caret].strip(" "):
        previous = lines[line - 1]
        if len(previous) > 80:
            previous = previous[:79] + "…"
        shown = previous + "\n" + shown
    if shown.strip(" "):
        text += f":\n\n{shown}\n{' ' * caret}^\n"
    return text


# --- parsing -------------------------------------------------------------------------------------

_PLAIN_TAG = "tag:pi-lsp,2025:plain"
_YAML_TAG = "tag:yaml.org,2002:"


class _CoreResolver(VersionedResolver):
    """Marks untagged plain scalars; their type is decided by :func:`core_scalar`."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode and implicit[0]:
            return Tag(suffix=_PLAIN_TAG)
        return BaseResolver.resolve(self, kind, value, (False, False))


class _LenientReader(Reader):
    """npm ``yaml`` accepts control characters; so does this reader (NUL is refused earlier)."""

    def check_printable(self, data: Any) -> None:
        return None


_BREAKS = "\r\n\x85\u2028\u2029"


class _TabScanner(Scanner):
    """ruamel refuses tabs wherever it can; YAML 1.2 (and npm ``yaml``) accept them as
    separation inside a line: ``key:\tvalue``, ``a\tb`` in a plain scalar, ``x\t# note``, and
    on otherwise blank lines. Tabs as indentation (also of a continuation line) stay refused."""

    # --- possible simple keys in constant time per token
    # ruamel looks at every pending possible simple key for each token, and one is pending per
    # open flow collection (within 1024 characters), so ``[[[[…`` cost O(n²) before failing.
    # A key is only ever saved at the innermost open level, after the deeper levels closed and
    # dropped theirs, so insertion order is age order: the oldest key is first, stale keys
    # (on an earlier line or too far back) form a prefix, and the first key has the lowest
    # token number. An OrderedDict gives that first key in constant time.

    def reset_scanner(self) -> None:
        super().reset_scanner()
        self.possible_simple_keys = OrderedDict()

    def next_possible_simple_key(self) -> Any:
        for key in self.possible_simple_keys.values():
            return key.token_number
        return None

    def stale_possible_simple_keys(self) -> None:
        keys = self.possible_simple_keys
        reader = self.reader
        while keys:
            level = next(iter(keys))
            key = keys[level]
            if key.line == reader.line and reader.index - key.index <= 1024:
                return
            if key.required:
                raise ScannerError(
                    "while scanning a simple key",
                    key.mark,
                    "could not find expected ':'",
                    reader.get_mark(),
                )
            del keys[level]

    def scan_to_next_token(self) -> Any:
        peek = self.reader.peek
        forward = self.reader.forward
        if self.reader.index == 0 and peek() == "\ufeff":
            forward()
        while True:
            while True:
                char = peek()
                if char == " " or (char == "\t" and self._tab_is_separation()):
                    forward()
                else:
                    break
            if peek() == "#":
                while peek() not in "\0" + _BREAKS:
                    forward()
            if not self.scan_line_break():
                return None
            if not self.flow_level:
                self.allow_simple_key = True

    def _tab_is_separation(self) -> bool:
        if self.flow_level > 0 or self.reader.column > 0:
            return True
        ahead = 0
        while self.reader.peek(ahead) in " \t":
            ahead += 1
        return self.reader.peek(ahead) in "#\0" + _BREAKS

    def scan_plain_spaces(self, indent: Any, start_mark: Any) -> Any:
        peek = self.reader.peek
        forward = self.reader.forward
        length = 0
        while peek(length) in " \t":
            length += 1
        whitespace = self.reader.prefix(length)
        forward(length)
        if peek() not in _BREAKS:
            return [whitespace] if whitespace else []
        line_break = self.scan_line_break()
        self.allow_simple_key = True
        if self._at_document_marker():
            return None
        breaks: list[str] = []
        while peek() in " " + _BREAKS:
            if peek() == " ":
                forward()
                continue
            breaks.append(self.scan_line_break())
            if self._at_document_marker():
                return None
        chunks: list[str] = []
        if line_break != "\n":
            chunks.append(line_break)
        elif not breaks:
            chunks.append(" ")
        chunks.extend(breaks)
        return chunks

    def _at_document_marker(self) -> bool:
        prefix = self.reader.prefix(3)
        return prefix in ("---", "...") and self.reader.peek(3) in "\0 \t" + _BREAKS


_local = threading.local()


def _yaml() -> YAML:
    loader: YAML | None = getattr(_local, "yaml", None)
    if loader is None:
        loader = YAML(typ="safe", pure=True)
        loader.Resolver = _CoreResolver
        loader.Reader = _LenientReader
        loader.Scanner = _TabScanner
        _local.yaml = loader
    return loader


def load_yaml(source: str) -> YamlDocument:
    """Parse one YAML document; raises :class:`YamlProblem` with the first error's position."""
    nul = source.find("\x00")
    if nul != -1:
        column = nul - source.rfind("\n", 0, nul) - 1
        raise YamlProblem("NUL character is not allowed", source.count("\n", 0, nul), column)
    try:
        # Pi's YAML never ends in a line break (it stops before the closing ``---`` line); npm
        # ``yaml`` still ends a last block scalar with one, which ruamel does only if it is there
        node = _yaml().compose(source if source.endswith("\n") else source + "\n")
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = str(exc.problem or exc.context or "invalid YAML")
        if mark is None:
            raise YamlProblem(problem, 0, 0) from exc
        if mark.index >= len(source):
            # the end of the stream: point at the end of the text Pi parsed
            line_start = source.rfind("\n") + 1
            raise YamlProblem(problem, source.count("\n"), len(source) - line_start) from exc
        raise YamlProblem(problem, mark.line, mark.column) from exc
    except (YAMLError, RecursionError, ValueError) as exc:
        raise YamlProblem(f"invalid YAML ({type(exc).__name__})", 0, 0) from exc
    if node is None:
        return YamlDocument(None, {})
    builder = _Builder()
    try:
        value = builder.build(node)
    except RecursionError as exc:
        raise YamlProblem("data nested too deeply", 0, 0) from exc
    keys: dict[str, KeyPosition] = {}
    if isinstance(node, MappingNode):
        for key_node, value_node in node.value:
            name = js_key(builder.build(key_node))
            if name not in keys:
                keys[name] = _key_position(key_node, value_node)
    return YamlDocument(value, keys)


def _key_position(key_node: Node, value_node: Node) -> KeyPosition:
    start = key_node.start_mark
    end = value_node.end_mark
    end_line, end_column = end.line, end.column
    if end_column == 0 and end_line > start.line:
        # block values end at the start of the next line; keep the range on the value's lines
        end_line -= 1
        buffer = getattr(end, "buffer", None)
        if isinstance(buffer, str):
            line_start = buffer.rfind("\n", 0, max(end.index - 1, 0)) + 1
            end_column = max(end.index - 1 - line_start, 0)
    return KeyPosition(start.line, start.column, end_line, end_column)


class _Builder:
    """Turns ruamel's node graph into plain Python values (aliases share one object)."""

    def __init__(self) -> None:
        self._built: dict[int, Any] = {}

    def build(self, node: Node) -> Any:
        known = self._built.get(id(node), _MISSING)
        if known is not _MISSING:
            return known
        if isinstance(node, ScalarNode):
            value = self._scalar(node)
            self._built[id(node)] = value
            return value
        if isinstance(node, SequenceNode):
            items: list[Any] = []
            self._built[id(node)] = items
            items.extend(self.build(child) for child in node.value)
            return items
        if isinstance(node, MappingNode):
            mapping: dict[str, Any] = {}
            self._built[id(node)] = mapping
            seen: set[tuple[str, Any]] = set()
            for key_node, value_node in node.value:
                key = self.build(key_node)
                identity = _key_identity(key)
                if identity is not None:
                    if identity in seen:
                        mark = key_node.start_mark
                        raise YamlProblem("Map keys must be unique", mark.line, mark.column)
                    seen.add(identity)
                mapping[js_key(key)] = self.build(value_node)
            return mapping
        return None

    @staticmethod
    def _scalar(node: ScalarNode) -> Any:
        text: str = node.value
        tag = str(node.tag)
        if tag == _PLAIN_TAG:
            value = core_scalar(text)
            return join_surrogates(value) if isinstance(value, str) else value
        if not tag.startswith(_YAML_TAG):
            return join_surrogates(text)
        kind = tag[len(_YAML_TAG) :]
        converter = _EXPLICIT.get(kind)
        if converter is None:
            return join_surrogates(text)
        return converter(text)


def _explicit_number(text: str) -> Any:
    value = core_scalar(text)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else text


def _explicit_bool(text: str) -> Any:
    return True if text in _TRUE else False if text in _FALSE else text


_EXPLICIT: dict[str, Callable[[str], Any]] = {
    "str": join_surrogates,
    "null": lambda _text: None,
    "bool": _explicit_bool,
    "int": _explicit_number,
    "float": _explicit_number,
}


def _key_identity(key: Any) -> tuple[str, Any] | None:
    if key is None or isinstance(key, (str, bool, int, float)):
        return (type(key).__name__, key)
    return None


_MISSING = object()
