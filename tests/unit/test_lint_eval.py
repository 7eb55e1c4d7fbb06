"""The scorer of ``python -m tests.lint_eval`` on tiny workspaces written here: what counts as
a true positive, a false positive of each kind, a miss, a repeat; blocks; the frozen set's
privacy; and one run through the real lint."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.lint_eval.blocks import BlockIndex, block_spans
from tests.lint_eval.evaluation import SetEvaluation
from tests.lint_eval.report import as_json, render_markdown, render_text
from tests.lint_eval.running import Reported, lint_workspace
from tests.lint_eval.scoring import (
    AS_CONFLICT,
    MATCH_RULES,
    SILENT,
    score_set,
    score_workspace,
)
from tests.lint_eval.workspaces import Ref, Workspace, build_chain, load_set, load_workspace

ROOT = """\
# Tools

- Use pnpm for every package in this
  repository, never another package manager.
- Format with Prettier.

Tests run with Vitest.
"""
PACKAGE = """\
# Legacy

- Use npm here.
- Lint with ESLint.
"""


def workspace(tmp_path: Path, labels: Mapping[str, object], name: str = "case") -> Workspace:
    case = tmp_path / name
    (case / "project" / "pkg").mkdir(parents=True)
    (case / "project" / "AGENTS.md").write_text(ROOT)
    (case / "project" / "pkg" / "AGENTS.md").write_text(PACKAGE)
    (case / "project" / "pkg" / "cwd").write_text("")
    (case / "project" / "other").mkdir()
    (case / "project" / "other" / "AGENTS.md").write_text("- Use yarn.\n")  # not on the chain
    (case / "labels.json").write_text(json.dumps({"description": "d", **labels}))
    return load_workspace(str(case))


def conflict(later: str, earlier: str, dimension: str = "package manager") -> dict[str, str]:
    return {"later": later, "earlier": earlier, "dimension": dimension, "why": "w"}


def found(later: str, earlier: str, rule: str = "conflicting-instructions") -> Reported:
    return Reported(rule, "warning", Ref.parse(later), Ref.parse(earlier), "m")


PKG, ROOT_PNPM = "project/pkg/AGENTS.md:3", "project/AGENTS.md:3"


def test_a_finding_on_the_labelled_lines_is_a_true_positive_in_either_order(
    tmp_path: Path,
) -> None:
    case = workspace(tmp_path, {"conflicts": [conflict(PKG, ROOT_PNPM)]})
    for finding in (found(PKG, ROOT_PNPM), found(ROOT_PNPM, PKG)):
        score = score_workspace(case, [finding], "line")
        assert [label.first for label, _ in score.found] == [Ref.parse(PKG)]
        assert not score.false and not score.missed


def test_a_finding_in_the_same_block_matches_only_under_the_block_rule(tmp_path: Path) -> None:
    case = workspace(tmp_path, {"conflicts": [conflict(PKG, ROOT_PNPM)]})
    wrapped = found(PKG, "project/AGENTS.md:4")  # the bullet's second line
    assert score_workspace(case, [wrapped], "block").found
    strict = score_workspace(case, [wrapped], "line")
    assert not strict.found and strict.missed and strict.false[0].kind == "unlabelled"
    same_section = found(PKG, "project/AGENTS.md:5")  # the next bullet: another block
    assert not score_workspace(case, [same_section], "block").found
    other_file = found("project/other/AGENTS.md:1", ROOT_PNPM)
    assert not score_workspace(case, [other_file], "block").found


def test_false_positives_are_filed_by_what_they_match(tmp_path: Path) -> None:
    labels = {
        "conflicts": [],
        "overrides": [conflict(PKG, ROOT_PNPM)],
        "negatives": [{"a": "project/pkg/AGENTS.md:4", "b": "project/AGENTS.md:5", "why": "w"}],
    }
    case = workspace(tmp_path, labels)
    findings = [
        found(PKG, ROOT_PNPM),
        found("project/AGENTS.md:5", "project/pkg/AGENTS.md:4"),
        found("project/pkg/AGENTS.md:4", "project/AGENTS.md:7"),
    ]
    score = score_workspace(case, findings)
    assert [f.kind for f in score.false] == ["override", "negative", "unlabelled"]
    assert score.overrides[0][1] == AS_CONFLICT
    total = score_set("s", [(case, findings)]).total
    assert (total.true_positives, total.fp, total.false_negatives) == (0, 3, 0)
    assert total.precision == 0.0 and total.recall is None
    assert dict(total.false_positives) == {"override": 1, "negative": 1, "unlabelled": 1}


def test_an_override_under_its_own_rule_is_good_and_not_a_false_positive(tmp_path: Path) -> None:
    case = workspace(tmp_path, {"conflicts": [], "overrides": [conflict(PKG, ROOT_PNPM)]})
    score = score_workspace(case, [found(PKG, ROOT_PNPM, rule="acknowledged-override")])
    assert score.overrides[0][1] == "acknowledged-override" and not score.false
    assert score_workspace(case, []).overrides[0][1] == SILENT


def test_misses_repeats_and_per_dimension_counts(tmp_path: Path) -> None:
    labels = {
        "conflicts": [
            conflict(PKG, ROOT_PNPM),
            conflict("project/pkg/AGENTS.md:4", "project/AGENTS.md:5", "linter"),
        ]
    }
    case = workspace(tmp_path, labels)
    findings = [found(PKG, ROOT_PNPM), found(PKG, "project/AGENTS.md:4")]
    result = score_set("s", [(case, findings)])
    total = result.total
    assert (total.true_positives, total.repeated, total.fp, total.false_negatives) == (1, 1, 0, 1)
    assert (total.precision, total.recall) == (1.0, 0.5)
    assert result.by_dimension["package manager"].recall == 1.0
    assert result.by_dimension["linter"].recall == 0.0
    assert result.by_dimension["linter"].precision is None


def test_an_exact_match_takes_its_label_before_a_loose_one(tmp_path: Path) -> None:
    case = workspace(tmp_path, {"conflicts": [conflict(PKG, ROOT_PNPM)]})
    loose, exact = found(PKG, "project/AGENTS.md:4"), found(PKG, ROOT_PNPM)
    score = score_workspace(case, [loose, exact])
    assert score.found[0][1] is exact and score.repeated[0][1] is loose


def test_blocks_are_rows_innermost_items_and_paragraphs() -> None:
    text = "- a\n  wrapped\n  - nested\n\npara\ngraph\n\n| h |\n|---|\n| r1 |\n| r2 |\n"
    spans = block_spans(text)
    assert spans[0] == spans[1] != spans[2]  # an item and its wrapped line; the nested item
    assert spans[4] == spans[5] != spans[0]
    assert spans[9] != spans[10]  # two table rows


def test_the_chain_is_the_cwd_s_and_the_lint_runs_as_check_does(tmp_path: Path) -> None:
    unreported = conflict("project/pkg/AGENTS.md:1", "project/AGENTS.md:1", "headings")
    case = workspace(tmp_path, {"conflicts": [conflict(PKG, ROOT_PNPM), unreported]})
    assert [Path(f.path).relative_to(case.folder).as_posix() for f in build_chain(case.folder)] == [
        "project/AGENTS.md",
        "project/pkg/AGENTS.md",
    ]
    reported = lint_workspace(case)
    assert all("other" not in str(r.later) + str(r.earlier) for r in reported)
    score = score_workspace(case, reported)
    assert [str(label.first) for label, _ in score.found] == [PKG]
    assert score.missed == [case.labels[1]]


def test_a_frozen_set_shows_no_case_line_or_text(tmp_path: Path) -> None:
    labels = {"conflicts": [conflict(PKG, ROOT_PNPM), conflict(PKG, "project/AGENTS.md:7")]}
    case = workspace(tmp_path, labels, name="secret-case-name")
    linted = [(case, [found(PKG, ROOT_PNPM), found("project/pkg/AGENTS.md:4", ROOT_PNPM)])]
    scores = {rule: score_set("test", linted, rule) for rule in MATCH_RULES}
    for frozen in (True, False):
        evaluation = SetEvaluation("test", frozen, scores)
        shown = "\n".join(
            [
                render_text([evaluation]),
                render_markdown([evaluation], "today"),
                str(as_json([evaluation])),
            ]
        )
        secrets = ("secret-case-name", "Use npm", "AGENTS.md:3", "Vitest")
        assert any(s in shown for s in secrets) is not frozen, shown


@pytest.mark.parametrize("name", ["dev", "cases"])
def test_every_labelled_line_of_the_open_sets_has_a_block(name: str) -> None:
    for case in load_set(name):
        blocks = BlockIndex(case.folder)
        for label in case.labels:
            for ref in (label.first, label.second):
                start, end = blocks.block(ref.path, ref.line)
                assert start < ref.line <= end, (case.name, str(ref))


def test_blind_first_scores_are_shown_as_recorded(tmp_path: Path) -> None:
    from tests.lint_eval.report import first_score_lines

    scores = tmp_path / "first_scores.json"
    row = {"set": "s", "date": "d", "commit": "c", "tp": 1, "fp": 2, "fn": 3}
    scores.write_text(
        json.dumps({"about": "why", "scores": [{**row, "precision": 0.333, "recall": 0.25}]})
    )
    lines = first_score_lines(str(scores))
    assert "| s | d | c | 1 | 2 | 3 | 0.33 | 0.25 |" in lines
    assert first_score_lines(str(tmp_path / "absent.json")) == []


def test_misses_are_counted_by_stage_and_judge_reach_per_set() -> None:
    from tests.lint_eval.report import stage_lines

    lines = stage_lines(
        {
            "dev": [("no value (later)", True), ("frames only", False)],
            "test": [("frames only", True)],
        }
    )
    assert "| frames only | 1 | 1 |" in lines
    assert "| no value (later) | 1 | 0 |" in lines
    assert "| all misses | 2 | 1 |" in lines
    assert "| of them judge candidates | 1 | 1 |" in lines


def test_a_miss_is_filed_by_the_stage_that_lost_it(tmp_path: Path) -> None:
    from tests.lint_eval.causes import miss_cause
    from tests.lint_eval.workspaces import load_workspace

    case = tmp_path / "case"
    (case / "project" / "pkg").mkdir(parents=True)
    (case / "project" / "AGENTS.md").write_text("# Rules\n\nWe love the color blue.\n")
    (case / "project" / "pkg" / "AGENTS.md").write_text("# Pkg\n\n- Use pnpm.\n")
    (case / "project" / "pkg" / "cwd").write_text("")
    label = {"later": "project/pkg/AGENTS.md:3", "earlier": "project/AGENTS.md:3"}
    (case / "labels.json").write_text(json.dumps({"description": "d", "conflicts": [label]}))
    workspace = load_workspace(str(case))
    assert miss_cause(workspace, workspace.labels[0]) == "no value (earlier)"
