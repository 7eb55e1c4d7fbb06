"""Precision and recall of the conflict check over the labeled workspaces in tests/lint_cases.

Each case folder holds ``agent/`` (the agent dir, optional), ``project/`` (the workspace) with
context files, an empty file named ``cwd`` in the working directory, and ``labels.json``:
``{"description": …, "conflicts": [{"later": "path:line", "earlier": "path:line",
"override": true?}]}`` with paths relative to the case folder and 1-based lines. An empty
list marks a near miss; a pair marked ``"override"`` is expected under
``acknowledged-override`` at information, any other under a conflict rule as a warning. The
chain is built as Pi builds it: the agent dir's file, then the file Pi picks in every folder
from ``project/`` down to the cwd
(:func:`tests.lint_eval.workspaces.build_chain`, which ``python -m tests.lint_eval`` shares).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import pytest

from pi_lsp.lint.conflicts import (
    ACKNOWLEDGED_OVERRIDE,
    CONFLICT,
    CONFLICT_IN_FILE,
    find_conflicts,
)
from tests.lint_eval.workspaces import SET_FOLDERS, build_chain

CASES_DIR = SET_FOLDERS["cases"]
CASES = sorted(
    name for name in os.listdir(CASES_DIR) if os.path.isdir(os.path.join(CASES_DIR, name))
)

Pair = tuple[str, str]


@dataclass(frozen=True)
class Outcome:
    expected: set[Pair]
    reported: set[Pair]
    wrong_severity: set[Pair]


def evaluate(name: str) -> Outcome:
    case = os.path.join(CASES_DIR, name)
    with open(os.path.join(case, "labels.json"), encoding="utf-8") as handle:
        labels = json.load(handle)
    expected = {(c["later"], c["earlier"]) for c in labels["conflicts"]}
    overrides = {(c["later"], c["earlier"]) for c in labels["conflicts"] if c.get("override")}
    chain = build_chain(case)
    reported: set[Pair] = set()
    wrong: set[Pair] = set()
    for finding in find_conflicts([(f.path, f.content) for f in chain]):
        if finding.rule not in (CONFLICT, CONFLICT_IN_FILE, ACKNOWLEDGED_OVERRIDE):
            continue
        earlier = finding.related[0].where
        pair = (
            f"{os.path.relpath(finding.where.path, case)}:{finding.where.start_line + 1}",
            f"{os.path.relpath(earlier.path, case)}:{earlier.start_line + 1}",
        )
        reported.add(pair)
        # an acknowledged override has its own rule, at information; a conflict is a warning
        want = (ACKNOWLEDGED_OVERRIDE, "information") if pair in overrides else ("", "warning")
        got = (finding.rule if finding.rule == ACKNOWLEDGED_OVERRIDE else "", finding.severity)
        if pair in expected and got != want:
            wrong.add(pair)
    return Outcome(expected, reported, wrong)


def test_there_are_enough_cases() -> None:
    assert len(CASES) >= 40
    near_misses = 0
    for name in CASES:
        with open(os.path.join(CASES_DIR, name, "labels.json"), encoding="utf-8") as handle:
            near_misses += not json.load(handle)["conflicts"]
    assert near_misses >= 15


def test_precision_and_recall(capsys: pytest.CaptureFixture[str]) -> None:
    true_positives = false_positives = false_negatives = 0
    problems: list[str] = []
    for name in CASES:
        outcome = evaluate(name)
        hits = outcome.expected & outcome.reported
        true_positives += len(hits)
        false_positives += len(outcome.reported - outcome.expected)
        false_negatives += len(outcome.expected - outcome.reported)
        for pair in sorted(outcome.reported - outcome.expected):
            problems.append(f"{name}: unexpected {pair[0]} -> {pair[1]}")
        for pair in sorted(outcome.expected - outcome.reported):
            problems.append(f"{name}: missed {pair[0]} -> {pair[1]}")
        for pair in sorted(outcome.wrong_severity):
            problems.append(f"{name}: wrong rule or severity {pair[0]}")
    precision = true_positives / max(true_positives + false_positives, 1)
    recall = true_positives / max(true_positives + false_negatives, 1)
    with capsys.disabled():
        print(
            f"\nlint cases: {len(CASES)}, labeled conflicts: {true_positives + false_negatives}, "
            f"reported: {true_positives + false_positives}, precision {precision:.3f}, "
            f"recall {recall:.3f}"
        )
        for problem in problems:
            print("  " + problem)
    assert precision >= 0.9
    assert recall >= 0.8
    assert not any("wrong rule or severity" in p for p in problems)
