"""Conflicting and duplicate instructions among context files that load together.

``find_conflicts(chain)`` takes the files one working directory loads, in prompt order
(agent-dir file first, then the folders from the root down), and reports:

* ``conflicting-instructions`` (two files) / ``conflicting-instructions-in-file`` (one file),
  severity ``warning``: two instructions make incompatible choices on one dimension (see
  :mod:`pi_lsp.lint.choices`), or one says *never* and the other *always* (or a plain
  imperative) about the same action: in the same words, or in words whose action frames match
  (:mod:`pi_lsp.lint.frames`: "never commit directly to main" / "push your commits straight to
  the main branch"), including a prohibition against a permission ("pushing is off-limits" /
  "the agent is allowed to push") and an approval gate against a permission given without
  asking ("adding a package requires sign-off" / "feel free to add dependencies"). Weaker
  always/never pairs are not reported: :func:`polarity_candidates`
  lists them for a model judge. The finding sits on the later instruction and points at
  the earliest instruction it contradicts. Only instructions whose scopes overlap are compared
  (:mod:`pi_lsp.lint.scopes`): a Python rule and a TypeScript rule do not meet, nor does a
  rule "for the docs site" meet an unconditional one, except that an unconditional
  prohibition meets an action asked for under a mere precondition ("never touch the schema" /
  "when a feature needs a column, run the migration"); :func:`scoped_pairs` lists the pairs
  declined for a condition, for a judge to settle.
  Numbers whose subject no catalogue role names are compared too, across files, by their
  subject, unit and kind (:mod:`pi_lsp.lint.open_numbers`: "keep the heap under 64 KB" /
  "the heap budget is 48 KiB"), when both are confidently of one setting.
* ``acknowledged-override``, severity ``information``: the same, when the later instruction
  (its list item or its section) says that it overrides another rule ("this package overrides
  the root rule: use npm", "unlike the root AGENTS.md", "Exception: …"). The contradiction is
  intended; it is shown, quoting both sides, so that the reader sees both texts the model
  receives.
* ``duplicate-instruction``, severity ``information``: the same sentence (normalized, at least
  four words) in two loaded files; reported on each later copy, pointing at the first. A copied
  block (consecutive sentences repeating consecutive sentences of one earlier file) is one
  finding whose range covers the block.

A file longer than :data:`INSTRUCTION_BUDGET` characters is read for instructions up to the
last line break within the budget, and ``instructions-not-checked`` (``information``) says
where the check stopped: the cost of the check grows with the text, and a file that size
already fills a model's window. Given a time budget (the language server gives one: CPU time
of the reading thread), a file whose instructions take longer to read is left out of the
checks (and read again next time: a slow moment is not remembered), and
``instructions-out-of-time`` (``warning``) on it names the budget: one file never holds up
the diagnostics of the others.

Each later instruction is reported once per dimension it contradicts, so a file that repeats
``npm`` in ten commands does not produce ten findings for one ``use pnpm``, and once per
earlier instruction: "never use tabs" after "always use tabs" is one choice conflict, not
also a never/always one.
"""

from __future__ import annotations

import os
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from pi_lsp.lint import cues, vocabulary
from pi_lsp.lint.choices import (
    Choice,
    bounds_exclude,
    contradicts,
    dimension_label,
    values_compose,
    versions_exclude,
)
from pi_lsp.lint.frames import FramePair, frame_pairs, is_precondition
from pi_lsp.lint.instructions import BlockMemo, Instruction, OutOfTime, extract_instructions
from pi_lsp.lint.numbers import DEFAULT_GROUP, credentials_differ, setting_qualifier
from pi_lsp.lint.open_numbers import (
    OpenSetting,
    narrowing,
    open_settings,
    settings_conflict,
    settings_may_conflict,
)
from pi_lsp.lint.purposes import purpose_key, purpose_of, purposes_meet
from pi_lsp.lint.scopes import EVERYWHERE, Scope, declined_reason, scopes_overlap, share_scope
from pi_lsp.lint.versions import FLOOR_GROUP
from pi_lsp.resources.agent_dir import home_dir
from pi_lsp.resources.model import Finding, RelatedLocation, Severity, SourceRange
from pi_lsp.resources.shown_paths import reference_from

CONFLICT = "conflicting-instructions"
CONFLICT_IN_FILE = "conflicting-instructions-in-file"
ACKNOWLEDGED_OVERRIDE = "acknowledged-override"
DUPLICATE = "duplicate-instruction"
NOT_CHECKED = "instructions-not-checked"
OUT_OF_TIME = "instructions-out-of-time"

#: Characters of one context file read for instructions (256 KiB of text, ~65k tokens): read in
#: about 1.5 s of CPU time at ~6 s per MB (bench/large_context_bench.py), well within the
#: language server's time budget per file (``fileBudgetMs``, 4 s), so that a large file is
#: read up to the size budget (PI104) rather than given up on (PI105).
INSTRUCTION_BUDGET = 256 * 1024

_MIN_DUPLICATE_WORDS = 4
_MIN_ACTION_WORDS = 3


@lru_cache(maxsize=16384)
def _fewer_words(text: str, count: int) -> bool:
    """Whether ``text`` holds fewer than ``count`` words (split no further than that). Every
    instruction of the chain is asked on every edit, and most are unchanged: cached by text."""
    return len(text.split(maxsplit=count - 1)) < count


@dataclass(frozen=True, slots=True)
class _Placed:
    """An instruction with its position in the prompt."""

    order: int
    file_index: int
    instruction: Instruction


def _describe(choice: Choice) -> str:
    if choice.stance == "prefer":
        return f"use {choice.value}"
    return f"do not use {choice.value}"


@lru_cache(maxsize=1024)
def _reference(here: str, other: str, home: str) -> str:
    """``reference_from`` once per pair of files: it resolves both paths on disk, and a chain
    with many findings between two files would resolve them again for each finding."""
    return reference_from(here, other, home)


def _where_label(placed: _Placed, other: _Placed) -> str:
    path = placed.instruction.path
    if placed.file_index == other.file_index:
        return f"line {placed.instruction.where.start_line + 1}"
    return _reference(other.instruction.path, path, home_dir())


#: characters of an instruction quoted in a message
_QUOTED = 100


def clipped(text: str, limit: int) -> str:
    """``text`` on one line (runs of blanks as one space), cut to ``limit`` characters with
    an ellipsis when longer: how a sentence is quoted in a message or sent to the judge."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "\u2026"


def _quote(instruction: Instruction) -> str:
    return f"\u201c{clipped(instruction.text, _QUOTED)}\u201d"


def _choice_finding(later: _Placed, earlier: _Placed, new: Choice, old: Choice) -> Finding:
    label = dimension_label(new.dimension)
    earlier_at = _where_label(earlier, later)
    here, there = _describe(new), _describe(old)
    if later.instruction.override:
        this = "this file" if later.file_index != earlier.file_index else "this instruction"
        message = (
            f"Overrides the {label} of {earlier_at}, as {this} says it does: here "
            f"{_quote(later.instruction)} ({here}), in {earlier_at} {_quote(earlier.instruction)} "
            f"({there}). The model receives both; this one comes later in the prompt."
        )
    else:
        message = (
            f"Conflicting {label}: \u201c{here}\u201d here, but {earlier_at} says "
            f"\u201c{there}\u201d. This one comes later in the prompt, so the model is likely "
            "to follow it."
        )
    return _finding(later, earlier, message, new.dimension, f"{label}: {there}")


def _polarity_finding(later: _Placed, earlier: _Placed, pair: FramePair | None = None) -> Finding:
    """A never/always finding: on the same words, or (with ``pair``) on matching frames."""
    earlier_at = _where_label(earlier, later)
    here, there = _quote(later.instruction), _quote(earlier.instruction)
    if pair is None:
        action = later.instruction.action
        message = (
            f"Contradicts {earlier_at}: one says always, the other never, to \u201c{action}\u201d "
            f"({here} here, {there} there). This one "
            f"({later.instruction.polarity}) comes later in the prompt."
        )
        related = f"{earlier.instruction.polarity}: {action}"
    else:
        polarity, other = pair.later_frame.polarity, pair.earlier_frame.polarity
        message = (
            f"Contradicts {earlier_at}: {here} here ({polarity}), but {there} there "
            f"({other}), on the same action. This one comes later "
            "in the prompt."
        )
        related = f"{other}: {there}"
    return _finding(later, earlier, message, "polarity", related)


def _finding(
    later: _Placed,
    earlier: _Placed,
    message: str,
    dimension: str,
    related_message: str,
) -> Finding:
    override = later.instruction.override
    severity: Severity = "information" if override else "warning"
    if override:
        rule, role = ACKNOWLEDGED_OVERRIDE, "overridden instruction"
    else:
        same_file = later.file_index == earlier.file_index
        rule, role = (CONFLICT_IN_FILE if same_file else CONFLICT), "earlier instruction"
    return Finding(
        later.instruction.where,
        severity,
        rule,
        message,
        related=(RelatedLocation(earlier.instruction.where, f"{role} ({related_message})"),),
        data={"dimension": dimension, "override": override},
    )


class _ReadInstructions:
    """Instructions of the files read so far, by path and content (files load in many chains,
    and the code actions read the file the diagnostics came from): the most recent
    :data:`_REMEMBERED` are kept, holding :data:`_REMEMBERED_CHARACTERS` characters of text at
    most (the latest always: an editor that edits a large file makes a new text per keystroke,
    and every reading kept is more for the collector to walk). Only finished readings are
    kept: a file that ran out of time once (a slow start, another thread busy) is read again
    the next time it is asked for.
    A file that changed is read again only in the chunks of blocks that changed
    (:class:`~pi_lsp.lint.instructions.BlockMemo`)."""

    def __init__(self, size: int, blocks: int, characters: int) -> None:
        self._size = size
        self._blocks = blocks
        self._characters = characters
        #: characters of the texts kept
        self.held = 0
        #: chunk readings per catalogue (a user's settings may extend it), the last few
        self._memos: OrderedDict[str, BlockMemo] = OrderedDict()
        self._read: OrderedDict[tuple[str, str, str], tuple[Instruction, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def _memo(self, catalogue: str) -> BlockMemo:
        with self._lock:
            memo = self._memos.get(catalogue)
            if memo is None:
                memo = self._memos[catalogue] = BlockMemo(self._blocks)
                if len(self._memos) > _CATALOGUES:
                    self._memos.popitem(last=False)
            self._memos.move_to_end(catalogue)
            return memo

    def get(self, path: str, text: str, seconds: float | None) -> tuple[Instruction, ...] | None:
        # a reading depends on the catalogue it was read with (settings may extend it)
        key = (path, text, vocabulary.current().key)
        with self._lock:
            known = self._read.get(key)
            if known is not None:
                self._read.move_to_end(key)
                return known
        try:
            memo = self._memo(key[2])
            instructions = tuple(extract_instructions(path, text, seconds, memo))
        except OutOfTime:
            return None
        with self._lock:
            if key not in self._read:
                self.held += len(text)
            self._read[key] = instructions
            self._read.move_to_end(key)
            while len(self._read) > 1 and (
                len(self._read) > self._size or self.held > self._characters
            ):
                (_, dropped, _), _ = self._read.popitem(last=False)
                self.held -= len(dropped)
        return instructions


_REMEMBERED = 512
#: characters of text whose readings are kept: some thirty versions of a 110 KB file
_REMEMBERED_CHARACTERS = 4_000_000
#: chunks of blocks kept: a file at the size budget holds a few thousand
_REMEMBERED_BLOCKS = 32_768
#: catalogues whose chunk readings are kept (the shipped one and a project's extension or two)
_CATALOGUES = 4
_READ = _ReadInstructions(_REMEMBERED, _REMEMBERED_BLOCKS, _REMEMBERED_CHARACTERS)


def instructions_of(
    path: str, text: str, seconds: float | None = None, budget: int = INSTRUCTION_BUDGET
) -> tuple[Instruction, ...] | None:
    """The instructions in the part of ``text`` within the size budget (:func:`checked_part`),
    read once per content; ``None`` when reading them takes more than ``seconds`` of the
    calling thread's CPU time. The lint and the quick fixes read a file through this."""
    return _READ.get(path, checked_part(text, budget), seconds)


def checked_part(text: str, budget: int = INSTRUCTION_BUDGET) -> str:
    """The part of ``text`` read for instructions: all of it, or up to the last line break
    within ``budget`` characters."""
    if len(text) <= budget:
        return text
    cut = text.rfind("\n", 0, budget)
    return text[: cut + 1] if cut >= 0 else text[:budget]


def _not_checked(path: str, text: str, checked: str, budget: int) -> Finding:
    line = checked.count("\n")
    rest = len(text) - len(checked)
    return Finding(
        SourceRange(path, line, 0, line, 0),
        "information",
        NOT_CHECKED,
        f"Instructions are checked in the first {_size(budget)} of a context file only (the "
        f"instruction budget): the last {_size(rest)}, from line {line + 1} on, were not "
        "checked for conflicts or duplicates. Pi still sends the whole file to the model.",
        data={"budget": budget, "unchecked": rest},
    )


def _out_of_time(path: str, seconds: float) -> Finding:
    budget = f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:g} s"
    return Finding(
        SourceRange(path),
        "warning",
        OUT_OF_TIME,
        f"pi-lsp stopped reading this file after {budget} (its time budget per file): its "
        "instructions are left out of the conflict and duplicate checks. Pi still sends the "
        "whole file to the model.",
        data={"seconds": seconds},
    )


def _size(characters: int) -> str:
    return f"{characters / 1024:,.0f} KiB" if characters >= 1024 else f"{characters} characters"


def _place(
    chain: Sequence[tuple[str, str]], budget: int, seconds: float | None
) -> tuple[list[_Placed], list[Finding]]:
    placed: list[_Placed] = []
    over_budget: list[Finding] = []
    for file_index, (path, text) in enumerate(chain):
        checked = checked_part(text, budget)
        if checked is not text:
            over_budget.append(_not_checked(path, text, checked, budget))
        instructions = instructions_of(path, text, seconds, budget)
        if instructions is None:
            assert seconds is not None
            over_budget.append(_out_of_time(path, seconds))
            continue
        for instruction in instructions:
            placed.append(_Placed(len(placed), file_index, instruction))
    return placed, over_budget


#: what a role's ``applies`` says of a choice that holds in every language of the project
_ANY_LANGUAGE = frozenset({"any", "service"})


def _compared_scope(instruction: Instruction, choice: Choice) -> Scope:
    """The part of an instruction's scope that decides what its ``choice`` is compared with:
    its languages and condition (the folders of one chain always overlap, and the heading
    path only names where it is), and what the choice is for (:mod:`.purposes`: Mailchimp
    for newsletters does not meet Postmark for transactional mail). The languages of a
    choice *between* languages ("write TypeScript code, not JavaScript") are its values, not
    its scope; nor are the languages of the tools a sentence names, for a choice that holds
    in any language (a metrics backend, a migration tool: "Metrics go to Datadog through
    `statsd`" speaks of every service, not of Python)."""
    dimension = choice.dimension
    purpose = purpose_key(dimension, choice.purpose, vocabulary.current().key)
    scope = instruction.scope
    known = vocabulary.current().by_name.get(dimension)
    languages = frozenset() if dimension.startswith("language") else scope.languages
    if scope.languages_from_tools and known is not None and known.applies in _ANY_LANGUAGE:
        languages = frozenset()
    condition = scope.condition
    if known is not None and not condition:
        heading = scope.heading[-1] if scope.heading else ""
        qualifier = setting_qualifier(known.unit, instruction.normalized, heading, scope.folder)
        condition = f"for the {qualifier}" if qualifier else ""
    if known is not None and not condition and known.unit in _NUMERIC_UNITS:
        # "keep PRs under 1000 lines for docs-only PRs": a number for a narrower case
        condition = narrowing(instruction.text)
    return Scope(languages=languages, condition=condition, purpose=purpose)


class _ChoiceIndex:
    """The earliest instruction that made each choice, per scope, so a later choice finds the
    earliest instruction it contradicts *and overlaps in scope* by key instead of by comparing
    with every earlier instruction (one chain holds few distinct scopes)."""

    def __init__(self) -> None:
        #: (dimension, group) -> scope -> the first instruction preferring each value, in order
        self._preferred: dict[tuple[str, str], dict[Scope, dict[str, int]]] = {}
        #: (dimension, value) -> scope -> the first instruction preferring / rejecting that value
        self._prefer_value: dict[tuple[str, str], dict[Scope, int]] = {}
        self._reject_value: dict[tuple[str, str], dict[Scope, int]] = {}

    @staticmethod
    def _first(by_scope: dict[Scope, int] | None, scope: Scope) -> int | None:
        if not by_scope:
            return None
        found = [at for known, at in by_scope.items() if scopes_overlap(known, scope)]
        return min(found) if found else None

    def earliest_contradicting(self, new: Choice, scope: Scope = EVERYWHERE) -> int | None:
        """The position (in adding order) of the first instruction contradicting ``new`` whose
        scope overlaps ``scope``; for a preference, the first rejection of the same value
        before any preference of another value."""
        key = (new.dimension, new.value)
        if new.stance == "reject":
            return self._first(self._prefer_value.get(key), scope)
        rejected = self._first(self._reject_value.get(key), scope)
        if rejected is not None:
            # "do not use Tailwind" is the rule a later "use Tailwind" breaks, more plainly
            # than an earlier preference of another value
            return rejected
        candidates: list[int | None] = []
        for known, values in self._preferred.get((new.dimension, new.group), {}).items():
            if not scopes_overlap(known, scope):
                continue
            # the first preference of another value in the same group that does not work
            # together with it: values come in order of their first preference
            for value, position in values.items():
                if value != new.value and not values_compose(new.dimension, value, new.value):
                    candidates.append(position)
                    break
        candidates.extend(self._excluding_versions(new, scope))
        found = [c for c in candidates if c is not None]
        return min(found) if found else None

    def _excluding_versions(self, new: Choice, scope: Scope) -> list[int]:
        """The first instructions whose preference in the paired group of ``new``'s excludes
        it: a version floor above a pin (:func:`versions_exclude`), a numeric default that
        breaks a bound (:func:`bounds_exclude`)."""
        pairs: list[tuple[str, Callable[[Choice, Choice], bool]]] = []
        if new.group in ("", FLOOR_GROUP):
            pairs.append(("" if new.group == FLOOR_GROUP else FLOOR_GROUP, versions_exclude))
        if new.group in ("", DEFAULT_GROUP):
            pairs.append(("" if new.group == DEFAULT_GROUP else DEFAULT_GROUP, bounds_exclude))
        out: list[int] = []
        for other, excludes in pairs:
            for known, values in self._preferred.get((new.dimension, other), {}).items():
                if not scopes_overlap(known, scope):
                    continue
                for value, position in values.items():
                    old = Choice(new.dimension, value, "prefer", 0, 0, other)
                    if excludes(new, old):
                        out.append(position)
                        break
        return out

    def add(self, position: int, choices: Iterable[tuple[Choice, Scope]]) -> None:
        """File an instruction's ``choices``, each with its compared scope."""
        for choice, scope in choices:
            key = (choice.dimension, choice.value)
            if choice.stance == "reject":
                self._reject_value.setdefault(key, {}).setdefault(scope, position)
                continue
            self._prefer_value.setdefault(key, {}).setdefault(scope, position)
            group = self._preferred.setdefault((choice.dimension, choice.group), {})
            group.setdefault(scope, {}).setdefault(choice.value, position)


def _choice_conflicts(placed: list[_Placed], paired: set[tuple[int, int]]) -> list[Finding]:
    """Each instruction against the earliest earlier one it contradicts, per dimension, among
    those whose scope overlaps its own; a file that repeats a contradicting value (a command
    list after the sentence that chose it) is reported at its first mention only."""
    findings: list[Finding] = []
    with_choices = [p for p in placed if p.instruction.choices or p.instruction.overriding]
    #: rules and stated conventions; bare mentions (``Choice.weak``) apart, so that two
    #: mentions are never compared with each other
    index, mentions = _ChoiceIndex(), _ChoiceIndex()
    carved_out = _CarveOuts(placed)
    allowed = _Allowances(placed)
    #: (later file, earlier instruction, dimension, value) already reported
    told: set[tuple[int, int, str, str]] = set()
    for position, later in enumerate(with_choices):
        reported: set[str] = set()
        choices = later.instruction.choices
        # each choice's scope once: it is looked up with, then filed under it
        scopes = [_compared_scope(later.instruction, c) for c in choices]
        for at_choice, new in enumerate(choices + later.instruction.overriding):
            if new.dimension in reported:
                continue
            scope = (
                scopes[at_choice]
                if at_choice < len(scopes)
                else _compared_scope(later.instruction, new)
            )
            found = [index.earliest_contradicting(new, scope)]
            if not new.weak:
                found.append(mentions.earliest_contradicting(new, scope))
            at = min((f for f in found if f is not None), default=None)
            if at is not None and (
                carved_out(later, with_choices[at], new)
                or excepted(with_choices[at].instruction, new)
                or allowed(with_choices[at], new, scope.purpose)
                or _other_credential(later.instruction, with_choices[at].instruction, new)
            ):
                at = None
            if at is not None:
                earlier = with_choices[at]
                old = next(
                    c
                    for c in earlier.instruction.choices
                    if contradicts(new, c) and not (new.weak and c.weak)
                )
                reported.add(new.dimension)
                paired.add((later.order, earlier.order))
                key = (later.file_index, earlier.order, new.dimension, new.value)
                if key in told:
                    continue
                told.add(key)
                findings.append(_choice_finding(later, earlier, new, old))
        filed = list(zip(choices, scopes, strict=True))
        index.add(position, [(c, scope) for c, scope in filed if not c.weak])
        mentions.add(position, [(c, scope) for c, scope in filed if c.weak])
    return findings


def _other_credential(later: Instruction, earlier: Instruction, new: Choice) -> bool:
    """Whether two lifetimes are of different credentials (an access and a refresh token)."""
    known = vocabulary.current().by_name.get(new.dimension)
    return known is not None and credentials_differ(
        known.unit, later.normalized, earlier.normalized
    )


def excepted(earlier: Instruction, new: Choice) -> bool:
    """Whether the earlier instruction's own exception names the later value: "PRs are
    squash-merged, unless the PR is a release branch, which uses a merge commit" makes room
    for a later "release branches are merged with a merge commit"; "Vite everywhere apart from
    the legacy admin, which stays on webpack" for a later "build with webpack". The rule and
    its exception are one instruction, and the later one follows the exception."""
    exception = cues.EXCEPTION.search(earlier.text)
    if exception is None or any(
        c.dimension == new.dimension and c.value == new.value and c.stance == "reject"
        for c in earlier.choices
    ):
        return False
    tail = earlier.text[exception.end() :]
    return any(
        found.dimension.name == new.dimension and found.value == new.value
        for found in vocabulary.current().find(tail)
    )


class _CarveOuts:
    """Whether the earlier file itself makes room for a later choice: one of its sentences
    names the later file's folder (as a path from the earlier file's folder) together with
    the value the later file chooses ("the legacy `engines/billing_v1` keeps its Minitest
    suite" in the root, "Tests here are Minitest" in that engine). The sentences naming a
    folder are gathered once per pair of files."""

    def __init__(self, placed: list[_Placed]) -> None:
        self._placed = placed
        self._naming: dict[tuple[int, str], str] = {}

    def __call__(self, later: _Placed, earlier: _Placed, new: Choice) -> bool:
        later_folder = os.path.dirname(later.instruction.path)
        earlier_folder = os.path.dirname(earlier.instruction.path)
        if later_folder == earlier_folder:
            return False
        relative = os.path.relpath(later_folder, earlier_folder).replace(os.sep, "/").lower()
        if relative.startswith(".."):
            return False
        key = (earlier.file_index, relative)
        if key not in self._naming:
            named = _folder_named(relative)
            self._naming[key] = "\n".join(
                p.instruction.normalized
                for p in self._placed
                if p.file_index == earlier.file_index
                and relative in p.instruction.text.lower()
                and named.search(p.instruction.text) is not None
            )
        return new.value.lower() in self._naming[key]


def _folder_named(relative: str) -> re.Pattern[str]:
    """Where a sentence names the folder ``relative`` as a folder: a path of more than one
    part as it is, one part as a path ("ios/", "apps/ios", `` `ios` ``) or with a folder's noun
    ("the ios app", "the ios folder"), not as a word of a command ("fastlane ios beta")."""
    name = re.escape(relative)
    if "/" in relative:
        return re.compile(rf"(?<![\w.-]){name}(?![\w-])", re.IGNORECASE)
    return re.compile(
        rf"(?<![\w.-])(?:(?<=/){name}(?![\w-])|(?<=`){name}(?=`)|{name}/|{name}\s++(?:folder|director(?:y|ies)|"
        rf"package|app|project|engine|service|module|crate|workspace|tree)\b)",
        re.IGNORECASE,
    )


#: a sentence that allows a value rather than choosing it ("Dapper may be used for reporting
#: queries", "Mailgun is allowed for bulk mail")
_ALLOWING = re.compile(
    r"\b(?:may|can)\s++(?:also\s++)?(?:be\s++used|use)\b"
    r"|\b(?:is|are)\s++(?:also\s++)?(?:allowed|permitted|acceptable)\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=16384)
def _allows(text: str) -> bool:
    """Whether a sentence allows a value (:data:`_ALLOWING`), cached by text: the earlier
    files of a chain are asked again on every edit of a later one."""
    return _ALLOWING.search(text) is not None


class _Allowances:
    """Whether the earlier file itself allows the later value for the later choice's purpose:
    "Data access uses EF Core 8. Dapper may be used for read-only reporting queries." makes
    room for a later "The monthly statement report queries through Dapper" (reporting, both),
    not for "Use Dapper for the write path" nor for a Dapper with no purpose. A value is
    looked for by its name (a value whose name is an ordinary word is not named by a
    choosing verb in "Dapper may be used …"); the purposes a file allows a value for are
    gathered once per file and value."""

    def __init__(self, placed: list[_Placed]) -> None:
        self._placed = placed
        self._allowing: dict[int, list[Instruction]] = {}
        self._purposes: dict[tuple[int, str, str], list[str]] = {}

    def _allowed_for(self, file_index: int, dimension: str, value: str) -> list[str]:
        key = (file_index, dimension, value)
        known = self._purposes.get(key)
        if known is not None:
            return known
        if file_index not in self._allowing:
            self._allowing[file_index] = [
                p.instruction
                for p in self._placed
                if p.file_index == file_index and _allows(p.instruction.text)
            ]
        name = re.compile(rf"(?<![\w.-]){re.escape(value)}(?![\w-])", re.IGNORECASE)
        found: list[str] = []
        catalogue = vocabulary.current().key
        for instruction in self._allowing[file_index]:
            for match in name.finditer(instruction.text):
                purpose = purpose_of(
                    instruction.text, match.start(), match.end(), instruction.heading, dimension
                )
                allowed = purpose_key(dimension, purpose, catalogue)
                if allowed:
                    found.append(allowed)
        self._purposes[key] = found
        return found

    def __call__(self, earlier: _Placed, new: Choice, purpose: str) -> bool:
        if not purpose or new.stance != "prefer":
            return False
        return any(
            purposes_meet(purpose, allowed)
            for allowed in self._allowed_for(earlier.file_index, new.dimension, new.value)
        )


@dataclass(frozen=True, slots=True)
class DeclinedPair:
    """Two instructions whose choices contradict on ``dimension`` but that tier 1 does not
    compare, because their scopes may not overlap: ``reason`` is ``"conditional"`` (one of
    them applies only under a condition: "For the docs site, use npm" against "Use pnpm") or
    ``"conditions"`` (two different conditions). ``later`` comes later in the prompt. A judge
    decides whether they conflict."""

    later: Instruction
    earlier: Instruction
    dimension: str
    reason: str


def scoped_pairs(
    chain: Sequence[tuple[str, str]],
    budget: int = INSTRUCTION_BUDGET,
    seconds: float | None = None,
) -> list[DeclinedPair]:
    """The pairs of ``chain``'s instructions (``(path, text)`` in prompt order) that make
    contradicting choices but that tier 1 declined to compare for their conditions: the
    candidates for the tier-2 judge, one per pair of instructions (its first dimension), in
    the order of the later instruction. Pairs in different explicit languages are left out:
    those never conflict."""
    placed, _ = _place(chain, budget, seconds)
    with_choices = [p for p in placed if p.instruction.choices]
    by_dimension: dict[str, list[tuple[_Placed, Choice]]] = {}
    out: list[DeclinedPair] = []
    for later in with_choices:
        seen: set[int] = set()
        for new in later.instruction.choices:
            for earlier, old in by_dimension.get(new.dimension, ()):
                if len(seen) >= _SCOPED_PER_LATER:
                    break
                if earlier.order in seen or not contradicts(new, old):
                    continue
                reason = declined_reason(
                    _compared_scope(later.instruction, new),
                    _compared_scope(earlier.instruction, old),
                )
                if reason in ("conditional", "conditions", "purposes"):
                    seen.add(earlier.order)
                    out.append(
                        DeclinedPair(later.instruction, earlier.instruction, new.dimension, reason)
                    )
        for new in later.instruction.choices:
            known = by_dimension.setdefault(new.dimension, [])
            if len(known) < _SCOPED_PER_DIMENSION:
                known.append((later, new))
    return out


#: pairs one later instruction may bring to :func:`scoped_pairs`, and the earlier choices kept
#: per dimension to pair with: linear in the chain however often it repeats a choice
_SCOPED_PER_LATER = 3
_SCOPED_PER_DIMENSION = 64


def _share_scope(a: Instruction, b: Instruction) -> bool:
    return share_scope(a.scope, a.normalized, b.scope, b.normalized)


def _polarity_conflicts(placed: list[_Placed], paired: set[tuple[int, int]]) -> list[Finding]:
    """Never against an earlier always (or plain imperative) on the same action, and back:
    the same words, or action frames that match confidently (:func:`frame_pairs`). Each
    reported pair is added to ``paired``."""
    found: list[tuple[int, int, Finding]] = []
    reported: list[tuple[int, int]] = []
    #: action -> its rank (order of first appearance): findings come grouped by action
    rank: dict[str, int] = {}
    #: action -> the first "never" instruction, and the first that does it (always/imperative)
    first_never: dict[str, _Placed] = {}
    first_doing: dict[str, _Placed] = {}
    for later in placed:
        instruction = later.instruction
        action = instruction.action
        if _fewer_words(action, _MIN_ACTION_WORDS):
            continue
        rank.setdefault(action, len(rank))
        never = instruction.polarity == "never"
        doing = not never and (instruction.polarity == "always" or instruction.directive)
        earlier = first_doing.get(action) if never else first_never.get(action) if doing else None
        if (
            earlier is not None
            and (later.order, earlier.order) not in paired
            and _share_scope(instruction, earlier.instruction)
        ):
            found.append((rank[action], later.order, _polarity_finding(later, earlier)))
            reported.append((later.order, earlier.order))
        if never:
            first_never.setdefault(action, later)
        elif doing:
            first_doing.setdefault(action, later)
    findings = [finding for _, _, finding in sorted(found, key=lambda f: f[:2])]
    paired.update(reported)
    for pair in frame_pairs([p.instruction for p in placed]):
        key = (placed[pair.later_index].order, placed[pair.earlier_index].order)
        later, earlier = placed[pair.later_index], placed[pair.earlier_index]
        if pair.confident and key not in paired and _frames_share_scope(pair):
            findings.append(_polarity_finding(later, earlier, pair))
            paired.add(key)
    return findings


def _frames_share_scope(pair: FramePair) -> bool:
    """:func:`_share_scope` for a frame pair, where a precondition on the side that does the
    action does not keep it from an unconditional prohibition ("never touch the schema" /
    "when a feature needs a column, run the migration": the prohibition holds then too)."""
    later, earlier = pair.later, pair.earlier
    if _share_scope(later, earlier):
        return True
    if pair.later_frame.positive:
        doing, other, frame = later, earlier, pair.later_frame
    else:
        doing, other, frame = earlier, later, pair.earlier_frame
    return (
        frame.precondition
        and is_precondition(doing.scope.condition)
        and not other.scope.conditional
        and declined_reason(doing.scope, other.scope) == "conditional"
    )


def polarity_candidates(
    chain: Sequence[tuple[str, str]],
    budget: int = INSTRUCTION_BUDGET,
    seconds: float | None = None,
) -> list[FramePair]:
    """Pairs of instructions of ``chain`` (as for :func:`find_conflicts`) whose action frames
    have opposed modalities (:mod:`pi_lsp.lint.frames`) on one object but that tier 1 does not
    report: the verb classes differ, the qualifiers differ, one side holds under a condition,
    or a gate meets a permission that does not say it needs no approval (``reason`` says
    which). A model judge (tier 2) decides these; pairs that :func:`find_conflicts` reports
    are left out. ``later_index`` / ``earlier_index`` count instructions across the chain in
    prompt order."""
    placed, _ = _place(chain, budget, seconds)
    paired: set[tuple[int, int]] = set()
    _choice_conflicts(placed, paired)
    _polarity_conflicts(placed, paired)
    return [
        pair
        for pair in frame_pairs([p.instruction for p in placed])
        # a confident pair is left out only when it was reported: one whose scopes do not
        # overlap is a candidate too
        if (placed[pair.later_index].order, placed[pair.earlier_index].order) not in paired
    ]


def _conflicts(placed: list[_Placed]) -> list[Finding]:
    #: (later, earlier) pairs already reported: one finding per pair, not one per detector
    paired: set[tuple[int, int]] = set()
    choice_findings = _choice_conflicts(placed, paired)
    polarity_findings = _polarity_conflicts(placed, paired)
    return choice_findings + polarity_findings + _number_conflicts(placed, paired)


#: earlier settings kept per subject to compare with: linear in the chain however often a
#: subject comes back
_SETTINGS_PER_SUBJECT = 32
_NUMERIC_UNITS = frozenset({"duration", "size", "percent", "count"})


def _role_units(instruction: Instruction) -> set[str]:
    """The unit dimensions of the catalogue's numeric roles that read a number of
    ``instruction``: where a role reads one, the role decides."""
    by_name = vocabulary.current().by_name
    units: set[str] = set()
    for choice in instruction.choices:
        known = by_name.get(choice.dimension)
        if known is not None and known.unit in _NUMERIC_UNITS:
            units.add(known.unit)
    return units


def _unit_of(setting: OpenSetting) -> str:
    return "count" if setting.dimension.startswith("count") else setting.dimension


def _number_conflicts(placed: list[_Placed], paired: set[tuple[int, int]]) -> list[Finding]:
    """Two open settings (:mod:`pi_lsp.lint.open_numbers`) of one subject in two files whose
    values exclude each other ("keep the heap under 64 KB" / "the heap budget is 48 KiB"),
    where no catalogue role reads both numbers and no other detector paired the two
    instructions. The later instruction is reported once, against the earliest it
    contradicts."""
    findings: list[Finding] = []
    earlier_by_subject: dict[tuple[str, str], list[tuple[_Placed, OpenSetting]]] = {}
    for later in placed:
        instruction = later.instruction
        settings = open_settings(instruction.text, instruction.directive)
        if not settings:
            continue
        found = _earliest_excluding(later, settings, earlier_by_subject, paired)
        if found is not None:
            earlier, new, old = found
            paired.add((later.order, earlier.order))
            findings.append(_number_finding(later, earlier, new, old))
        for setting in settings:
            known = earlier_by_subject.setdefault(setting.key, [])
            if len(known) < _SETTINGS_PER_SUBJECT:
                known.append((later, setting))
    return findings


def _earliest_excluding(
    later: _Placed,
    settings: tuple[OpenSetting, ...],
    earlier_by_subject: dict[tuple[str, str], list[tuple[_Placed, OpenSetting]]],
    paired: set[tuple[int, int]],
) -> tuple[_Placed, OpenSetting, OpenSetting] | None:
    best: tuple[_Placed, OpenSetting, OpenSetting] | None = None
    instruction = later.instruction
    for new in settings:
        for earlier, old in earlier_by_subject.get(new.key, ()):
            if best is not None and best[0].order <= earlier.order:
                break
            other = earlier.instruction
            if earlier.file_index == later.file_index or (later.order, earlier.order) in paired:
                continue
            unit = _unit_of(new)
            if unit in _role_units(instruction) and unit in _role_units(other):
                continue
            folders = (instruction.scope.folder, other.scope.folder)
            if not settings_conflict(new, old, folders):
                continue
            if not _share_scope(instruction, other) or not _same_place(
                _setting_place(later.instruction, new, unit), _setting_place(other, old, unit)
            ):
                continue
            best = (earlier, new, old)
            break
    return best


@dataclass(frozen=True, slots=True)
class NumberPair:
    """Two instructions of different files with numbers of one head and unit whose values
    differ, that tier 1 is not sure are of one subject (:func:`settings_may_conflict`)."""

    later: Instruction
    earlier: Instruction


#: number pairs one later instruction may bring to the judge
_NUMBER_PAIRS_PER_LATER = 2


def number_pairs(
    chain: Sequence[tuple[str, str]],
    budget: int = INSTRUCTION_BUDGET,
    seconds: float | None = None,
) -> list[NumberPair]:
    """The pairs of ``chain``'s instructions whose open settings may conflict but were not
    reported: candidates for the tier-2 judge, in the order of the later instruction."""
    placed, _ = _place(chain, budget, seconds)
    paired: set[tuple[int, int]] = set()
    _choice_conflicts(placed, paired)
    _polarity_conflicts(placed, paired)
    _number_conflicts(placed, paired)
    earlier_by_subject: dict[tuple[str, str], list[tuple[_Placed, OpenSetting]]] = {}
    out: list[NumberPair] = []
    for later in placed:
        instruction = later.instruction
        settings = open_settings(instruction.text, instruction.directive)
        seen: set[int] = set()
        for new in settings:
            for earlier, old in earlier_by_subject.get(new.key, ()):
                if len(seen) >= _NUMBER_PAIRS_PER_LATER:
                    break
                key = (later.order, earlier.order)
                if earlier.file_index == later.file_index or key in paired:
                    continue
                if earlier.order in seen or not _share_scope(instruction, earlier.instruction):
                    continue
                folders = (instruction.scope.folder, earlier.instruction.scope.folder)
                if settings_may_conflict(new, old, folders):
                    seen.add(earlier.order)
                    out.append(NumberPair(instruction, earlier.instruction))
        for setting in settings:
            known = earlier_by_subject.setdefault(setting.key, [])
            if len(known) < _SETTINGS_PER_SUBJECT:
                known.append((later, setting))
    return out


#: a setting stated for every environment holds in each one ("exactly one replica in every
#: environment" meets "production runs at least 2 replicas")
_EVERY_ENVIRONMENT = re.compile(
    r"\b(?:(?:in\s++)?+(?:every|each|all|any)\s++(?:environments?+|envs?+|clusters?+|stages?+)|"
    r"everywhere)\b"
)
#: the place of a setting stated for every environment
_ANY_PLACE = "*"


def _setting_place(instruction: Instruction, setting: OpenSetting, unit: str) -> str:
    """The layer and environment a setting is for (a timeout "at the CDN", one "locally"),
    from the words it is stated in and its section's heading: see
    :func:`~pi_lsp.lint.numbers.setting_qualifier`. A count of what runs (replicas,
    workers) is one per environment as a time or a size is ("staging runs one replica",
    "production runs 3"); one stated for every environment is for any (:data:`_ANY_PLACE`)."""
    if _EVERY_ENVIRONMENT.search(setting.context):
        return _ANY_PLACE
    heading = instruction.scope.heading[-1] if instruction.scope.heading else ""
    place_unit = "size" if unit == "count" and setting.head in _RUNNING_COUNTS else unit
    return setting_qualifier(place_unit, setting.context, heading, instruction.scope.folder)


#: the counted things that run, so one count of them is kept per environment
_RUNNING_COUNTS = frozenset({"replica", "worker", "thread", "connection"})


def _same_place(a: str, b: str) -> bool:
    return a == b or _ANY_PLACE in (a, b)


def _number_finding(
    later: _Placed, earlier: _Placed, new: OpenSetting, old: OpenSetting
) -> Finding:
    earlier_at = _where_label(earlier, later)
    here, there = _quote(later.instruction), _quote(earlier.instruction)
    if later.instruction.override:
        message = (
            f"Overrides a number of {earlier_at}: {new.shown()} here ({here}), "
            f"{old.shown()} in {earlier_at} ({there}). The model receives both; this one "
            "comes later in the prompt."
        )
    else:
        message = (
            f"Conflicting numbers for one setting: {new.shown()} here ({here}), but "
            f"{earlier_at} says {old.shown()} ({there}). This one comes later in the prompt, "
            "so the model is likely to follow it."
        )
    return _finding(later, earlier, message, f"number: {new.head}", old.shown())


@dataclass(slots=True)
class _CopiedRun:
    """Consecutive instructions of one file that repeat consecutive ones of an earlier file."""

    copy: list[_Placed]
    original: list[_Placed]


def _copied_runs(placed: list[_Placed]) -> list[_CopiedRun]:
    """Every later copy of an instruction (of at least four words) found in an earlier file,
    grown into maximal runs: a run goes on while the next instruction repeats the one after
    the run's original (short sentences of a copied block included), so a copied block of
    sentences is one run however many sentences it holds."""
    runs: list[_CopiedRun] = []
    first: dict[str, _Placed] = {}
    run: _CopiedRun | None = None
    for item in placed:
        key = item.instruction.normalized
        if run is not None:
            last_copy, last_original = run.copy[-1], run.original[-1]
            following = last_original.order + 1
            if (
                item.order == last_copy.order + 1
                and item.file_index == last_copy.file_index
                and following < item.order
                and placed[following].file_index == last_original.file_index
                and placed[following].instruction.normalized == key
            ):
                run.copy.append(item)
                run.original.append(placed[following])
                first.setdefault(key, item)
                continue
            run = None
        if _fewer_words(key, _MIN_DUPLICATE_WORDS):
            continue
        seen = first.get(key)
        if seen is None:
            first[key] = item
        elif seen.file_index != item.file_index:
            run = _CopiedRun([item], [seen])
            runs.append(run)
    return runs


def _span(items: Sequence[_Placed]) -> SourceRange:
    return items[0].instruction.where.through(items[-1].instruction.where)


def _duplicates(placed: list[_Placed]) -> list[Finding]:
    findings: list[Finding] = []
    for run in _copied_runs(placed):
        original = _span(run.original)
        count = len(run.copy)
        place = _where_label(run.original[0], run.copy[0])
        if count == 1:
            message = (
                f"Same instruction as in {place}: the model reads it twice and its tokens are "
                "spent twice."
            )
        else:
            lines = f"lines {original.start_line + 1}\u2013{original.end_line + 1}"
            message = (
                f"Same {count} instructions as in {place} ({lines}): the model reads the block "
                "twice and its tokens are spent twice."
            )
        findings.append(
            Finding(
                _span(run.copy),
                "information",
                DUPLICATE,
                message,
                related=(RelatedLocation(original, "first copy"),),
                data={"instructions": count},
            )
        )
    return findings


def find_conflicts(
    chain: Sequence[tuple[str, str]],
    budget: int = INSTRUCTION_BUDGET,
    seconds: float | None = None,
) -> list[Finding]:
    """Conflicts and duplicates among ``chain``'s files (``(path, text)`` in prompt order),
    each file read up to ``budget`` characters and, with ``seconds``, for at most that long
    (a file that takes longer is left out, with a finding that says so)."""
    placed, over_budget = _place(chain, budget, seconds)
    return _conflicts(placed) + _duplicates(placed) + over_budget
