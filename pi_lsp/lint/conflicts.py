"""Conflicting and duplicate instructions among context files that load together.

``find_conflicts(chain)`` takes the files one working directory loads, in prompt order
(agent-dir file first, then the folders from the root down), and reports:

* ``conflicting-instructions`` (two files) / ``conflicting-instructions-in-file`` (one file),
  severity ``warning``: two instructions make incompatible choices on one dimension (see
  :mod:`pi_lsp.lint.choices`), or one says *never* and the other *always* (or a plain
  imperative) about the same action. The finding sits on the later instruction and points at
  the earliest instruction it contradicts. When the later instruction, or its section, says
  that it overrides another rule ("this package overrides the root rule: use pnpm"), the
  contradiction is intentional: it is still reported, at severity ``information``, so that
  the reader can see both texts the model receives.
* ``duplicate-instruction``, severity ``information``: the same sentence (normalized, at least
  four words) in two loaded files; reported on each later copy, pointing at the first. A copied
  block (consecutive sentences repeating consecutive sentences of one earlier file) is one
  finding whose range covers the block.

Each later instruction is reported once per dimension it contradicts, so a file that repeats
``npm`` in ten commands does not produce ten findings for one ``use pnpm``, and once per
earlier instruction: "never use tabs" after "always use tabs" is one choice conflict, not
also a never/always one.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from pi_lsp.lint.choices import Choice, contradicts, dimension_label
from pi_lsp.lint.instructions import Instruction, extract_instructions
from pi_lsp.resources.model import Finding, RelatedLocation, Severity, SourceRange

CONFLICT = "conflicting-instructions"
CONFLICT_IN_FILE = "conflicting-instructions-in-file"
DUPLICATE = "duplicate-instruction"

_MIN_DUPLICATE_WORDS = 4
_MIN_ACTION_WORDS = 3


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


def _where_label(placed: _Placed, other: _Placed) -> str:
    path = placed.instruction.path
    if placed.file_index == other.file_index:
        return f"line {placed.instruction.where.start_line + 1}"
    return os.path.basename(os.path.dirname(path)) + "/" + os.path.basename(path)


def _choice_finding(later: _Placed, earlier: _Placed, new: Choice, old: Choice) -> Finding:
    label = dimension_label(new.dimension)
    earlier_at = _where_label(earlier, later)
    here, there = _describe(new), _describe(old)
    if later.instruction.override:
        message = (
            f"Overrides the {label} of {earlier_at}: \u201c{here}\u201d here, \u201c{there}\u201d "
            "there. The model receives both; this one comes later in the prompt."
        )
    else:
        message = (
            f"Conflicting {label}: \u201c{here}\u201d here, but {earlier_at} says "
            f"\u201c{there}\u201d. This one comes later in the prompt, so the model is likely "
            "to follow it."
        )
    return _finding(later, earlier, message, new.dimension, f"{label}: {there}")


def _polarity_finding(later: _Placed, earlier: _Placed) -> Finding:
    earlier_at = _where_label(earlier, later)
    action = later.instruction.action
    message = (
        f"Contradicts {earlier_at}: one says always, the other never, to \u201c{action}\u201d. "
        f"This one ({later.instruction.polarity}) comes later in the prompt."
    )
    return _finding(
        later, earlier, message, "polarity", f"{earlier.instruction.polarity}: {action}"
    )


def _finding(
    later: _Placed,
    earlier: _Placed,
    message: str,
    dimension: str,
    related_message: str,
) -> Finding:
    override = later.instruction.override
    severity: Severity = "information" if override else "warning"
    rule = CONFLICT_IN_FILE if later.file_index == earlier.file_index else CONFLICT
    return Finding(
        later.instruction.where,
        severity,
        rule,
        message,
        related=(
            RelatedLocation(earlier.instruction.where, f"earlier instruction ({related_message})"),
        ),
        data={"dimension": dimension, "override": override},
    )


def _opposed(a: Instruction, b: Instruction) -> bool:
    """Never vs always (or a plain imperative) on the same action."""
    if a.action != b.action or len(a.action.split()) < _MIN_ACTION_WORDS:
        return False
    polarities = {a.polarity, b.polarity}
    if "never" not in polarities or polarities == {"never"}:
        return False
    other = b if a.polarity == "never" else a
    return other.polarity == "always" or other.directive


@lru_cache(maxsize=512)
def _instructions_of(path: str, text: str) -> tuple[Instruction, ...]:
    """Instructions of one file, parsed once per content (files load in many chains)."""
    return tuple(extract_instructions(path, text))


def _place(chain: Sequence[tuple[str, str]]) -> list[_Placed]:
    placed: list[_Placed] = []
    for file_index, (path, text) in enumerate(chain):
        for instruction in _instructions_of(path, text):
            placed.append(_Placed(len(placed), file_index, instruction))
    return placed


def _conflicts(placed: list[_Placed]) -> list[Finding]:
    findings: list[Finding] = []
    #: (later, earlier) pairs already reported: one finding per pair, not one per detector
    paired: set[tuple[int, int]] = set()
    with_choices = [p for p in placed if p.instruction.choices]
    for index, later in enumerate(with_choices):
        reported: set[str] = set()
        for new in later.instruction.choices:
            if new.dimension in reported:
                continue
            for earlier in with_choices[:index]:
                old = next(
                    (c for c in earlier.instruction.choices if contradicts(new, c)),
                    None,
                )
                if old is not None:
                    findings.append(_choice_finding(later, earlier, new, old))
                    reported.add(new.dimension)
                    paired.add((later.order, earlier.order))
                    break
    by_action: dict[str, list[_Placed]] = {}
    for item in placed:
        by_action.setdefault(item.instruction.action, []).append(item)
    for items in by_action.values():
        for index, later in enumerate(items):
            earlier_match = next(
                (e for e in items[:index] if _opposed(e.instruction, later.instruction)), None
            )
            if earlier_match is not None and (later.order, earlier_match.order) not in paired:
                findings.append(_polarity_finding(later, earlier_match))
    return findings


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
        if len(key.split()) < _MIN_DUPLICATE_WORDS:
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


def find_conflicts(chain: Sequence[tuple[str, str]]) -> list[Finding]:
    """Conflicts and duplicates among ``chain``'s files (``(path, text)`` in prompt order)."""
    placed = _place(chain)
    return _conflicts(placed) + _duplicates(placed)
