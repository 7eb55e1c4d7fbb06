"""Glob patterns turned into byte regexes with the rules of Rust's ``globset`` crate.

fd (behind Pi's ``find``) and the ``ignore`` crate (behind fd's ``.gitignore`` handling) both
parse globs with ``globset``. This module follows its grammar: ``?`` and ``*`` (which stop at
``/`` when ``literal_separator`` is set), ``**`` as a whole path component, ``[...]`` classes
(``!`` or ``^`` negates), ``{a,b}`` alternatives (nestable), and ``\\`` escapes. Matching runs on
the UTF-8 bytes of a path, as ``globset`` does, so ``?`` stands for one byte, not one character.
Error messages are ``globset``'s own, since fd prints them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

# --- tokens --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Literal:
    char: str


@dataclass(frozen=True, slots=True)
class AnyChar:
    """``?``"""


@dataclass(frozen=True, slots=True)
class ZeroOrMore:
    """``*``"""


@dataclass(frozen=True, slots=True)
class RecursivePrefix:
    """A leading ``**/`` (or the whole glob ``**``)."""


@dataclass(frozen=True, slots=True)
class RecursiveSuffix:
    """A trailing ``/**``."""


@dataclass(frozen=True, slots=True)
class RecursiveZeroOrMore:
    """An inner ``/**/``."""


@dataclass(frozen=True, slots=True)
class CharClass:
    negated: bool
    ranges: tuple[tuple[str, str], ...]


@dataclass(frozen=True, slots=True)
class Alternates:
    branches: tuple[tuple[Token, ...], ...]


Token = (
    Literal
    | AnyChar
    | ZeroOrMore
    | RecursivePrefix
    | RecursiveSuffix
    | RecursiveZeroOrMore
    | CharClass
    | Alternates
)


class GlobError(ValueError):
    """A glob that does not parse; the message reads like ``globset``'s."""

    def __init__(self, glob: str, reason: str) -> None:
        super().__init__(f"error parsing glob '{glob}': {reason}")
        self.glob = glob
        self.reason = reason


@dataclass(frozen=True, slots=True)
class GlobOptions:
    """The ``GlobBuilder`` switches fd and the ``ignore`` crate set."""

    literal_separator: bool = False
    backslash_escape: bool = True
    allow_unclosed_class: bool = False
    empty_alternates: bool = False


# --- parsing -------------------------------------------------------------------------------------

_UNCLOSED_CLASS = "unclosed character class; missing ']'"
_UNOPENED_ALTERNATES = "unopened alternate group; missing '{' (maybe escape '}' with '[}]'?)"
_UNCLOSED_ALTERNATES = "unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)"
_DANGLING_ESCAPE = "dangling '\\'"


class _Parser:
    def __init__(self, glob: str, options: GlobOptions) -> None:
        self.glob = glob
        self.options = options
        self.pos = 0
        self.prev: str | None = None
        self.cur: str | None = None
        self.alternates_stack: list[int] = []
        self.branches: list[list[Token]] = [[]]
        self.found_unclosed_class = False

    def error(self, reason: str) -> GlobError:
        return GlobError(self.glob, reason)

    def bump(self) -> str | None:
        self.prev = self.cur
        self.cur = self.glob[self.pos] if self.pos < len(self.glob) else None
        if self.cur is not None:
            self.pos += 1
        return self.cur

    def peek(self) -> str | None:
        return self.glob[self.pos] if self.pos < len(self.glob) else None

    def push(self, token: Token) -> None:
        self.branches[-1].append(token)

    def parse(self) -> tuple[Token, ...]:
        while (char := self.bump()) is not None:
            if char == "?":
                self.push(AnyChar())
            elif char == "*":
                self.parse_star()
            elif char == "[" and not self.found_unclosed_class:
                self.parse_class()
            elif char == "{":
                self.alternates_stack.append(len(self.branches))
                self.branches.append([])
            elif char == "}":
                self.pop_alternates()
            elif char == "," and self.alternates_stack:
                self.branches.append([])
            elif char == "\\":
                self.parse_backslash()
            else:
                self.push(Literal(char))
        if len(self.branches) > 1:
            raise self.error(_UNCLOSED_ALTERNATES)
        return tuple(self.branches[0])

    def pop_alternates(self) -> None:
        if not self.alternates_stack:
            raise self.error(_UNOPENED_ALTERNATES)
        start = self.alternates_stack.pop()
        branches = tuple(tuple(branch) for branch in self.branches[start:])
        del self.branches[start:]
        self.push(Alternates(branches))

    def parse_backslash(self) -> None:
        if not self.options.backslash_escape:
            self.push(Literal("\\"))
            return
        escaped = self.bump()
        if escaped is None:
            raise self.error(_DANGLING_ESCAPE)
        self.push(Literal(escaped))

    def parse_star(self) -> None:
        prev = self.prev
        if self.peek() != "*":
            self.push(ZeroOrMore())
            return
        self.bump()
        if not self.branches[-1]:
            following = self.peek()
            if following is not None and following != "/":
                self.push_two_stars()
            else:
                self.push(RecursivePrefix())
                self.bump()
            return
        in_alternates = len(self.branches) > 1
        if prev != "/" and (not in_alternates or prev not in (",", "{")):
            self.push_two_stars()
            return
        following = self.peek()
        if following is None:
            self.bump()
            is_suffix = True
        elif following in (",", "}") and in_alternates:
            is_suffix = True
        elif following == "/":
            self.bump()
            is_suffix = False
        else:
            self.push_two_stars()
            return
        previous_token = self.branches[-1].pop()
        if isinstance(previous_token, RecursivePrefix | RecursiveSuffix):
            self.push(previous_token)
        elif is_suffix:
            self.push(RecursiveSuffix())
        else:
            self.push(RecursiveZeroOrMore())

    def push_two_stars(self) -> None:
        self.push(ZeroOrMore())
        self.push(ZeroOrMore())

    def parse_class(self) -> None:
        saved = (self.pos, self.prev, self.cur)
        ranges: list[tuple[str, str]] = []
        negated = self.peek() in ("!", "^")
        if negated:
            self.bump()
        first = True
        in_range = False
        while True:
            char = self.bump()
            if char is None:
                if not self.options.allow_unclosed_class:
                    raise self.error(_UNCLOSED_CLASS)
                self.pos, self.prev, self.cur = saved
                self.found_unclosed_class = True
                self.push(Literal("["))
                return
            if char == "]" and not first:
                break
            if char == "-" and not first and not in_range:
                in_range = True
            elif in_range:
                self.extend_range(ranges, char)
                in_range = False
            else:
                ranges.append((char, char))
            first = False
        if in_range:
            ranges.append(("-", "-"))
        self.push(CharClass(negated, tuple(ranges)))

    def extend_range(self, ranges: list[tuple[str, str]], end: str) -> None:
        start = ranges[-1][0]
        if end < start:
            raise self.error(f"invalid range; '{start}' > '{end}'")
        ranges[-1] = (start, end)


def parse_glob(glob: str, options: GlobOptions = GlobOptions()) -> tuple[Token, ...]:
    """The tokens of ``glob``; raises :class:`GlobError` like ``globset`` would."""
    return _Parser(glob, options).parse()


# --- regex ---------------------------------------------------------------------------------------


def glob_regex_source(tokens: Sequence[Token], options: GlobOptions) -> str:
    """A Python regex (for bytes, full match) equivalent to ``globset``'s for these tokens."""
    if len(tokens) == 1 and isinstance(tokens[0], RecursivePrefix):
        return ".*"
    return "".join(_token_regex(token, options) for token in tokens)


def compile_regex(source: str, flags: int = re.DOTALL) -> re.Pattern[bytes]:
    return re.compile(source.encode("ascii"), flags)


def byte_item_regex(token: Literal | AnyChar | CharClass, options: GlobOptions) -> list[str]:
    """The regex items, one per byte consumed, a one-byte-at-a-time token stands for."""
    if isinstance(token, Literal):
        encoded = token.char.encode("utf-8", "surrogatepass")
        if len(encoded) == 1:
            return [_escape_char(token.char)]
        return [f"\\x{byte:02x}" for byte in encoded]
    if isinstance(token, AnyChar):
        return ["[^/]" if options.literal_separator else "."]
    return [_class_regex(token)]


def _token_regex(token: Token, options: GlobOptions) -> str:
    if isinstance(token, Literal | AnyChar | CharClass):
        return "".join(byte_item_regex(token, options))
    if isinstance(token, ZeroOrMore):
        return byte_item_regex(AnyChar(), options)[0] + "*"
    if isinstance(token, RecursivePrefix):
        return "(?:/?|.*/)"
    if isinstance(token, RecursiveSuffix):
        return "/.*"
    if isinstance(token, RecursiveZeroOrMore):
        return "(?:/|/.*/)"
    parts = ["".join(_token_regex(t, options) for t in branch) for branch in token.branches]
    kept = [part for part in parts if part or options.empty_alternates]
    return f"(?:{'|'.join(kept)})" if kept else ""


def _class_regex(token: CharClass) -> str:
    items = []
    for start, end in token.ranges:
        if start == end:
            items.append(_escape_char(start))
        else:
            items.append(f"{_escape_char(start)}-{_escape_char(end)}")
    return f"[{'^' if token.negated else ''}{''.join(items)}]"


def _escape_char(char: str) -> str:
    """The UTF-8 bytes of ``char`` as regex escapes (letters and digits stay readable)."""
    if char.isascii() and char.isalnum():
        return char
    return "".join(f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogatepass"))


# --- fd's smart case -----------------------------------------------------------------------------


def has_uppercase(tokens: Sequence[Token]) -> bool:
    """Whether fd's smart case makes this glob case-sensitive.

    fd checks the glob's regex for an uppercase literal character, or a character class whose
    byte ranges start or end on one (read as Latin-1, the way fd's check sees a byte class).
    """
    return any(_token_has_uppercase(token) for token in tokens)


def _token_has_uppercase(token: Token) -> bool:
    if isinstance(token, Literal):
        return token.char.isupper()
    if isinstance(token, CharClass):
        return any(chr(edge).isupper() for edge in _class_byte_edges(token))
    if isinstance(token, Alternates):
        return any(has_uppercase(branch) for branch in token.branches)
    return False


def _class_byte_edges(token: CharClass) -> Iterator[int]:
    """First and last byte of every range of the class as a byte regex compiles it."""
    ranges = sorted(_class_byte_ranges(token))
    merged: list[list[int]] = []
    for start, end in ranges:
        if merged and start <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    if token.negated:
        merged = _complement(merged)
    for start, end in merged:
        yield start
        yield end


def _class_byte_ranges(token: CharClass) -> Iterator[tuple[int, int]]:
    # A class item written as several escaped bytes is several byte items, as in a byte regex.
    for start, end in token.ranges:
        start_bytes = start.encode("utf-8", "surrogatepass")
        end_bytes = end.encode("utf-8", "surrogatepass")
        if start == end:
            yield from ((byte, byte) for byte in start_bytes)
            continue
        yield from ((byte, byte) for byte in start_bytes[:-1])
        yield (start_bytes[-1], end_bytes[0])
        yield from ((byte, byte) for byte in end_bytes[1:])


def _complement(ranges: list[list[int]]) -> list[list[int]]:
    out: list[list[int]] = []
    next_start = 0
    for start, end in ranges:
        if start > next_start:
            out.append([next_start, start - 1])
        next_start = end + 1
    if next_start <= 0xFF:
        out.append([next_start, 0xFF])
    return out
