"""Globs matched against a path in one pass over its bytes, whatever the glob.

A glob turned into a backtracking regex costs up to ``n^k`` steps for ``k`` stars on an ``n``
byte path (``*a*a*a*a*b`` against a long run of ``a``); ``globset`` compiles to an automaton and
never does. This module does the same: the glob tokens of :mod:`pi_lsp.tools.glob_regex`
become a small nondeterministic automaton (one state per byte a token consumes), and matching
walks it as a deterministic one built lazily, one state set per step, so a path costs one table
look-up per byte once the states it meets are known, and at most one closure per byte before.

Each single-byte step is the byte set of the regex item :func:`glob_regex_source` writes for it
(``.``, ``[^/]``, a class, an escaped byte), read by compiling that item, so both agree on
every byte under every flag. Several globs can share one automaton; it then answers which of
them match (the last one wins, as in a rule file).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from pi_lsp.tools.glob_regex import (
    Alternates,
    AnyChar,
    CharClass,
    GlobOptions,
    Literal,
    RecursivePrefix,
    RecursiveSuffix,
    RecursiveZeroOrMore,
    Token,
    ZeroOrMore,
    byte_item_regex,
    glob_regex_source,
)

__all__ = ["GlobAutomaton", "GlobSpec"]

#: a cap on cached automaton states: past it the cache starts over (memory stays bounded,
#: matching stays linear)
_MAX_STATES = 10_000
_UNKNOWN = -1
_DEAD = 0


@dataclass(frozen=True, slots=True)
class GlobSpec:
    """One glob to match: its tokens, the options it was parsed with, and its case rule."""

    tokens: tuple[Token, ...]
    options: GlobOptions
    ignore_case: bool = False


@lru_cache(maxsize=1024)
def _byte_set(item: str, ignore_case: bool) -> bytes:
    """The 256 flags of the bytes the one-byte regex ``item`` matches."""
    flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    pattern = re.compile(item.encode("ascii"), flags)
    return bytes(1 if pattern.fullmatch(bytes((value,))) else 0 for value in range(256))


_ANY = "."
_SLASH = "/"


class _Builder:
    """Thompson construction: a state consumes one byte of a set, or splits, or accepts."""

    def __init__(self) -> None:
        self.sets: list[bytes | None] = []
        self.next: list[int] = []
        self.splits: list[list[int]] = []
        self.accepts: list[int] = []

    def _new(self, byte_set: bytes | None, following: int, accept: int = -1) -> int:
        self.sets.append(byte_set)
        self.next.append(following)
        self.splits.append([])
        self.accepts.append(accept)
        return len(self.sets) - 1

    def accept(self, index: int) -> int:
        return self._new(None, -1, index)

    def byte(self, item: str, ignore_case: bool, following: int) -> int:
        return self._new(_byte_set(item, ignore_case), following)

    def split(self, targets: list[int]) -> int:
        state = self._new(None, -1)
        self.splits[state] = targets
        return state

    def loop(self, item: str, ignore_case: bool, following: int) -> int:
        """``item*`` then ``following``."""
        state = self.split([])
        self.splits[state] = [self.byte(item, ignore_case, state), following]
        return state

    def tokens(self, spec: GlobSpec, tokens: Sequence[Token], following: int) -> int:
        for token in reversed(tokens):
            following = self.token(spec, token, following)
        return following

    def token(self, spec: GlobSpec, token: Token, following: int) -> int:
        case = spec.ignore_case
        if isinstance(token, Literal | AnyChar | CharClass):
            for item in reversed(byte_item_regex(token, spec.options)):
                following = self.byte(item, case, following)
            return following
        if isinstance(token, ZeroOrMore):
            return self.loop(byte_item_regex(AnyChar(), spec.options)[0], case, following)
        if isinstance(token, RecursivePrefix):  # (?:/?|.*/)
            below = self.loop(_ANY, case, self.byte(_SLASH, case, following))
            return self.split([following, below])
        if isinstance(token, RecursiveSuffix):  # /.*
            return self.byte(_SLASH, case, self.loop(_ANY, case, following))
        if isinstance(token, RecursiveZeroOrMore):  # (?:/|/.*/)
            inner = self.loop(_ANY, case, self.byte(_SLASH, case, following))
            return self.byte(_SLASH, case, self.split([following, inner]))
        return self.alternates(spec, token, following)

    def alternates(self, spec: GlobSpec, token: Alternates, following: int) -> int:
        starts = [
            self.tokens(spec, branch, following)
            for branch in token.branches
            # the regex keeps an empty branch only when the options allow empty alternates
            if spec.options.empty_alternates or glob_regex_source(branch, spec.options)
        ]
        return self.split(starts) if starts else following


class GlobAutomaton:
    """Globs matched together against whole paths (as ``fullmatch`` of their regexes)."""

    def __init__(self, specs: Sequence[GlobSpec]) -> None:
        builder = _Builder()
        starts: list[int] = []
        for index, spec in enumerate(specs):
            accept = builder.accept(index)
            if len(spec.tokens) == 1 and isinstance(spec.tokens[0], RecursivePrefix):
                starts.append(builder.loop(_ANY, spec.ignore_case, accept))  # the glob "**"
            else:
                starts.append(builder.tokens(spec, spec.tokens, accept))
        self._sets = builder.sets
        self._next = builder.next
        self._splits = builder.splits
        self._accepts = builder.accepts
        self._start = self._closure(starts)
        self._reset()

    def _reset(self) -> None:
        # state 0 is the dead state (no glob can match any more)
        self._ids: dict[frozenset[int], int] = {frozenset(): _DEAD}
        self._members: list[frozenset[int]] = [frozenset()]
        self._table: list[list[int]] = [[_DEAD] * 256]
        self._last: list[int] = [-1]
        self._start_id = self._intern(self._start)

    def _closure(self, states: Sequence[int]) -> frozenset[int]:
        """The states reachable from ``states`` without consuming a byte."""
        seen: set[int] = set()
        stack = list(states)
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            stack.extend(self._splits[state])
        return frozenset(seen)

    def _intern(self, members: frozenset[int]) -> int:
        known = self._ids.get(members)
        if known is not None:
            return known
        state = len(self._members)
        self._ids[members] = state
        self._members.append(members)
        self._table.append([_UNKNOWN] * 256)
        self._last.append(max((self._accepts[m] for m in members), default=-1))
        return state

    def _step(self, state: int, value: int) -> int:
        if len(self._members) > _MAX_STATES:
            members = self._members[state]
            self._reset()
            state = self._intern(members)
        targets = [
            self._next[member]
            for member in self._members[state]
            if (byte_set := self._sets[member]) is not None and byte_set[value]
        ]
        following = self._intern(self._closure(targets))
        self._table[state][value] = following
        return following

    def last_match(self, path: bytes) -> int | None:
        """The index of the last glob that matches all of ``path``, or ``None``."""
        state = self._start_id
        table = self._table
        for value in path:
            following = table[state][value]
            if following == _UNKNOWN:
                following = self._step(state, value)
                table = self._table  # a reset replaces the table
            if following == _DEAD:
                return None
            state = following
        index = self._last[state]
        return index if index >= 0 else None

    def fullmatch(self, path: bytes) -> bool:
        """Whether any of the globs matches all of ``path``."""
        return self.last_match(path) is not None
