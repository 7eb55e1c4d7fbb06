"""Scoring reported conflicts against labelled pairs.

**Matching.** A reported pair (the line a finding sits on, the line it cites) matches a
labelled pair when its two lines are the pair's two lines in either order (``"line"``, strict),
or — the headline rule, ``"block"`` — when each of its lines is in the same file and the same
Markdown block (table row, list item, paragraph: :mod:`tests.lint_eval.blocks`) as one of the
pair's lines, the two sides crossing over. A finding on a restating line elsewhere in the
section or the file does not match. Exact matches are assigned first, so a loose match never
takes a label that an exact one would have.

**Counting**, per workspace, over the findings of the conflict rules:

* a finding that matches a conflict label not yet found is a true positive; one more on a
  label already found is *repeated* (shown, not counted against precision);
* any other is a false positive, filed by what it matches: an ``override`` label (an
  acknowledged override reported as a conflict), a ``negative`` pair, or nothing
  (``unlabelled``);
* a conflict label no finding matches is a false negative.

Per dimension, a conflict label's true positive or false negative counts under its dimension,
and a false positive on an override label under that label's dimension; the other false
positives carry no dimension. Each override label is also classed by what reported it:
``conflict`` (bad), the name of another rule that cites the pair (good), or ``silent``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from tests.lint_eval.blocks import BlockIndex
from tests.lint_eval.running import Reported
from tests.lint_eval.workspaces import Label, Ref, Workspace

MatchRule = Literal["block", "line"]
MATCH_RULES: tuple[MatchRule, ...] = ("block", "line")
FalseKind = Literal["override", "negative", "unlabelled"]
#: the dimension of false positives that match no dimensioned label
UNATTRIBUTED = "(not attributed)"
#: how an override label fared when no rule cited its pair
SILENT = "silent"
AS_CONFLICT = "conflict"


class Matcher:
    """Whether a reported pair matches a labelled pair, under one rule, in one case folder."""

    def __init__(self, folder: str, rule: MatchRule) -> None:
        self.rule = rule
        self.blocks = BlockIndex(folder)

    def same_place(self, a: Ref, b: Ref, *, exact: bool) -> bool:
        if a.path != b.path:
            return False
        if a.line == b.line:
            return True
        if exact or self.rule == "line":
            return False
        return self.blocks.block(a.path, a.line) == self.blocks.block(b.path, b.line)

    def matches(self, reported: Reported, label: Label, *, exact: bool = False) -> bool:
        x, y, p, q = reported.later, reported.earlier, label.first, label.second
        same = self.same_place
        return (same(x, p, exact=exact) and same(y, q, exact=exact)) or (
            same(x, q, exact=exact) and same(y, p, exact=exact)
        )


@dataclass(frozen=True, slots=True)
class FalseFinding:
    reported: Reported
    kind: FalseKind
    label: Label | None


@dataclass(slots=True)
class WorkspaceScore:
    workspace: Workspace
    found: list[tuple[Label, Reported]] = field(default_factory=list)
    repeated: list[tuple[Label, Reported]] = field(default_factory=list)
    false: list[FalseFinding] = field(default_factory=list)
    missed: list[Label] = field(default_factory=list)
    #: each override label with ``conflict``, the rule that reported it, or ``silent``
    overrides: list[tuple[Label, str]] = field(default_factory=list)


def score_workspace(
    workspace: Workspace, reported: Iterable[Reported], rule: MatchRule = "block"
) -> WorkspaceScore:
    matcher = Matcher(workspace.folder, rule)
    score = WorkspaceScore(workspace)
    findings = list(reported)
    conflicts = [r for r in findings if r.is_conflict]
    open_labels = workspace.of_kind("conflict")
    assigned: dict[int, Label] = {}
    for exact in (True, False):
        for index, finding in enumerate(conflicts):
            if index in assigned:
                continue
            label = next((c for c in open_labels if matcher.matches(finding, c, exact=exact)), None)
            if label is not None:
                assigned[index] = label
                open_labels.remove(label)
    score.found = [(label, conflicts[i]) for i, label in sorted(assigned.items())]
    score.missed = open_labels
    for index, finding in enumerate(conflicts):
        if index in assigned:
            continue
        again = next((c for c, _ in score.found if matcher.matches(finding, c)), None)
        if again is not None:
            score.repeated.append((again, finding))
            continue
        score.false.append(_false_finding(finding, workspace, matcher))
    for label in workspace.of_kind("override"):
        citing = [r for r in findings if matcher.matches(r, label)]
        outcome = SILENT
        if any(r.is_conflict for r in citing):
            outcome = AS_CONFLICT
        elif citing:
            outcome = citing[0].rule
        score.overrides.append((label, outcome))
    return score


def _false_finding(finding: Reported, workspace: Workspace, matcher: Matcher) -> FalseFinding:
    for kind in ("override", "negative"):
        label = next((x for x in workspace.of_kind(kind) if matcher.matches(finding, x)), None)
        if label is not None:
            return FalseFinding(finding, kind, label)
    return FalseFinding(finding, "unlabelled", None)


@dataclass(slots=True)
class Counts:
    """True positives, false positives by kind, false negatives, repeats."""

    true_positives: int = 0
    false_negatives: int = 0
    false_positives: Counter[str] = field(default_factory=Counter)
    repeated: int = 0
    #: override labels by outcome (``conflict``, a rule name, ``silent``)
    overrides: Counter[str] = field(default_factory=Counter)

    @property
    def labelled(self) -> int:
        return self.true_positives + self.false_negatives

    @property
    def fp(self) -> int:
        return sum(self.false_positives.values())

    @property
    def reported(self) -> int:
        return self.true_positives + self.fp

    @property
    def precision(self) -> float | None:
        """``None`` when nothing was reported."""
        return self.true_positives / self.reported if self.reported else None

    @property
    def recall(self) -> float | None:
        """``None`` when nothing is labelled."""
        return self.true_positives / self.labelled if self.labelled else None

    def as_dict(self) -> dict[str, object]:
        return {
            "labelled": self.labelled,
            "truePositives": self.true_positives,
            "falsePositives": self.fp,
            "falsePositivesByKind": {k: self.false_positives[k] for k in FALSE_KINDS},
            "falseNegatives": self.false_negatives,
            "repeated": self.repeated,
            "precision": self.precision,
            "recall": self.recall,
            "overrides": dict(sorted(self.overrides.items())),
        }


FALSE_KINDS: tuple[FalseKind, ...] = ("override", "negative", "unlabelled")


@dataclass(slots=True)
class SetScore:
    """A set's scores under one matching rule."""

    name: str
    rule: MatchRule
    workspaces: list[WorkspaceScore]
    total: Counts = field(default_factory=Counts)
    by_dimension: dict[str, Counts] = field(default_factory=dict)

    def dimension(self, name: str) -> Counts:
        return self.by_dimension.setdefault(name, Counts())


def score_set(
    name: str, scored: Iterable[tuple[Workspace, list[Reported]]], rule: MatchRule = "block"
) -> SetScore:
    result = SetScore(name, rule, [score_workspace(w, r, rule) for w, r in scored])
    for score in result.workspaces:
        for label, _ in score.found:
            result.total.true_positives += 1
            result.dimension(label.dimension).true_positives += 1
        for label in score.missed:
            result.total.false_negatives += 1
            result.dimension(label.dimension).false_negatives += 1
        for label, _ in score.repeated:
            result.total.repeated += 1
            result.dimension(label.dimension).repeated += 1
        for false in score.false:
            result.total.false_positives[false.kind] += 1
            overridden = false.label if false.kind == "override" else None
            attributed = overridden.dimension if overridden is not None else ""
            result.dimension(attributed or UNATTRIBUTED).false_positives[false.kind] += 1
        for label, outcome in score.overrides:
            result.total.overrides[outcome] += 1
            result.dimension(label.dimension).overrides[outcome] += 1
    return result
