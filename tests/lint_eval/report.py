"""The evaluation as a terminal table, as JSON, and as ``docs/lint-evaluation.md``.

A frozen set (the held-out ``test`` set) is shown in aggregate only — totals and per-dimension
counts — never a case name, a line or a quoted text. The other sets list their misses and
false findings with ``path:line`` and the quoted lines, for tuning.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence

from tests.lint_eval.corpus import CorpusFinding
from tests.lint_eval.evaluation import SetEvaluation
from tests.lint_eval.scoring import (
    AS_CONFLICT,
    FALSE_KINDS,
    SILENT,
    Counts,
    SetScore,
    WorkspaceScore,
)
from tests.lint_eval.workspaces import SET_FOLDERS, TESTS, Label, Ref, quoted_line

COMMAND = "python -m tests.lint_eval --write-doc"
REPO = os.path.dirname(TESTS)


def ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def false_kinds(counts: Counts) -> str:
    return "/".join(str(counts.false_positives[k]) for k in FALSE_KINDS)


def overrides_cell(counts: Counts) -> str:
    labelled = sum(counts.overrides.values())
    return f"{counts.overrides[AS_CONFLICT]}/{labelled}" if labelled else "–"


def where_set(name: str) -> str:
    return os.path.relpath(SET_FOLDERS.get(name, name), REPO)


def code(text: str) -> str:
    """``text`` as a Markdown code span, whatever backticks it holds."""
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# --- the summary ---------------------------------------------------------------------------

SUMMARY_HEADER = (
    "set",
    "match",
    "workspaces",
    "conflicts",
    "TP",
    "FP (override/negative/unlabelled)",
    "FN",
    "repeated",
    "precision",
    "recall",
    "overrides as conflict",
)


def summary_row(evaluation: SetEvaluation, score: SetScore) -> list[str]:
    t = score.total
    return [
        evaluation.name,
        score.rule,
        str(evaluation.workspaces),
        str(t.labelled),
        str(t.true_positives),
        f"{t.fp} ({false_kinds(t)})",
        str(t.false_negatives),
        str(t.repeated),
        ratio(t.precision),
        ratio(t.recall),
        overrides_cell(t),
    ]


def summary_rows(evaluations: Sequence[SetEvaluation]) -> list[list[str]]:
    return [summary_row(e, s) for e in evaluations for s in e.scores.values()]


DIMENSION_HEADER = (
    "dimension",
    "conflicts",
    "TP",
    "FN",
    "FP",
    "precision",
    "recall",
    "overrides as conflict",
)


def dimension_rows(score: SetScore) -> list[list[str]]:
    rows = []
    for name in sorted(score.by_dimension, key=str.casefold):
        c = score.by_dimension[name]
        rows.append(
            [
                name,
                str(c.labelled),
                str(c.true_positives),
                str(c.false_negatives),
                str(c.fp),
                ratio(c.precision),
                ratio(c.recall),
                overrides_cell(c),
            ]
        )
    return rows


def weakest_dimensions(score: SetScore, count: int = 5) -> list[tuple[str, Counts]]:
    """The dimensions with the most misses and false findings (lowest recall first)."""
    rated = [(n, c) for n, c in score.by_dimension.items() if c.labelled or c.fp]
    rated.sort(key=lambda item: (item[1].recall or 0.0, -item[1].fp, -item[1].labelled, item[0]))
    return rated[:count]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    escaped = [[cell.replace("|", "\\|") for cell in row] for row in rows]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in escaped]
    return lines


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [list(header), *rows]) for i in range(len(header))]
    line = "  ".join
    out = [line(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    out += [line(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    return out


# --- the details of a set that is not frozen -------------------------------------------------


def _side(case: str, ref: Ref) -> str:
    return f"  - {code(str(ref))}: {code(quoted_line(case, ref) or '(no such line)')}"


def _pair(case: str, first: Ref, second: Ref) -> list[str]:
    return [_side(case, first), _side(case, second)]


def workspace_details(score: WorkspaceScore) -> list[str]:
    case, name = score.workspace.folder, score.workspace.name
    out: list[str] = []
    for label in score.missed:
        out.append(f"- **{name}** — missed ({label.dimension}): {label.why}".rstrip(": "))
        out += _pair(case, label.first, label.second)
    for false in score.false:
        r = false.reported
        against = _against(false.kind, false.label)
        out.append(
            f"- **{name}** — false finding, {against}: `{r.rule}` ({r.severity}) {r.message}"
        )
        out += _pair(case, r.later, r.earlier)
    for label, outcome in score.overrides:
        if outcome == AS_CONFLICT:
            continue  # listed above as a false finding on the override label
        out.append(f"- **{name}** — override ({label.dimension}) reported as: {outcome}")
        out += _pair(case, label.first, label.second)
    return out


def _against(kind: str, label: Label | None) -> str:
    if kind == "override" and label is not None:
        return f"on an acknowledged override: {label.dimension}"
    if kind == "negative" and label is not None:
        return f"on a labelled non-conflict ({label.why})" if label.why else "on a negative"
    return "on an unlabelled pair"


def set_details(evaluation: SetEvaluation) -> list[str]:
    if evaluation.frozen:
        return []
    lines: list[str] = []
    for score in evaluation.headline.workspaces:
        lines += workspace_details(score)
    return lines


# --- the corpus ------------------------------------------------------------------------------


def corpus_lines(findings: Sequence[CorpusFinding] | None, root: str) -> list[str]:
    if findings is None:
        return [f"Not measured: the shared corpus is not at `{root}`."]
    counts = {v: sum(f.verdict == v for f in findings) for v in ("true", "false", "unjudged")}
    out = [
        f"`pi-lsp check` over every working directory of `{root}` (an empty agent dir): "
        f"{len(findings)} conflict finding(s) — {counts['true']} true, {counts['false']} false, "
        f"{counts['unjudged']} not judged yet (verdicts: "
        "`tests/lint_heldout/corpus_verdicts.json`).",
        "",
    ]
    for finding in findings:
        r = finding.reported
        out.append(f"- **{finding.verdict}** `{r.rule}` ({r.severity}): {r.message}")
        out += _pair(root, r.later, r.earlier)
        if finding.why:
            out.append(f"  - verdict: {finding.why}")
    return out


# --- the three outputs -----------------------------------------------------------------------

METHOD = """\
Each workspace's chain is built as Pi builds it for the folder with the `cwd` marker (the
case's `agent/` file, then the file Pi picks in every folder from `project/` down), loaded with
the engine's loader and linted by `pi_lsp.lint.engine.lint_resources` with the default
`LintConfig` — the rules, severities and settings `pi-lsp check` uses. The findings of
`conflicting-instructions` and `conflicting-instructions-in-file` (at any severity) are matched
to the labels (`tests/lint_heldout/README.md` describes the format).

- **Matching** (`block`, the headline): a finding matches a labelled pair when each of its two
  lines (the line it sits on and the line it cites) lies in the same Markdown block as one of
  the pair's two lines, in either order. A block is a table row, else the innermost list item,
  else the paragraph / heading / code block — never a whole section. `line` is the strict
  rule: the two lines themselves. Exact matches are assigned first.
- **Counting**: a finding on a conflict label not yet found is a true positive (TP); another
  one on a label already found is *repeated* (not counted against precision); any other is a
  false positive (FP), filed as *override* (it matches a labelled override: an acknowledged
  override reported as a conflict), *negative* (a labelled hard negative) or *unlabelled*. A
  conflict label nothing matches is a false negative (FN). Precision = TP / (TP + FP), recall
  = TP / conflicts; "–" where the denominator is 0.
- **Overrides**: each labelled override counts as *reported as a conflict* (bad) when a
  conflict finding matches it, as reported under another rule (good) when another rule's
  finding cites the pair, else as silent.
- **Per dimension**: the labels' `dimension`; a false positive on an override label counts
  under that label's dimension, the others under "(not attributed)". `tests/lint_cases` labels
  carry no dimension; its pairs marked `"override": true` are scored as overrides.
- The held-out **test** set (`tests/lint_heldout/test`, frozen) is shown in aggregate and per
  dimension only: no case, line or text of it appears here.

The false positives on `tests/lint_cases` are its two pairs labelled `"override": true`: its
own harness (`tests/unit/test_lint_precision.py`) still expects them as conflicts at severity
information, while issue 15 asks for an override rule of its own, which is what this scorer
counts. The held-out sets are not the sets A and B of issue 15's table: those were measured on
other workspaces, so the figures here are this project's baseline."""


def override_line(evaluation: SetEvaluation) -> str:
    outcomes = evaluation.headline.total.overrides
    labelled = sum(outcomes.values())
    if not labelled:
        return f"- {evaluation.name}: no labelled overrides."
    conflict, silent = outcomes[AS_CONFLICT], outcomes[SILENT]
    other = labelled - conflict - silent
    rules = ", ".join(sorted(set(outcomes) - {AS_CONFLICT, SILENT}))
    return (
        f"- {evaluation.name}: {labelled} labelled — {conflict} reported as a conflict (bad), "
        f"{other} under another rule (good{': ' + rules if rules else ''}), {silent} silent."
    )


def render_text(evaluations: Sequence[SetEvaluation]) -> str:
    lines = text_table(SUMMARY_HEADER, summary_rows(evaluations))
    for evaluation in evaluations:
        lines += ["", f"{evaluation.name}: per dimension (match: block)"]
        lines += text_table(DIMENSION_HEADER, dimension_rows(evaluation.headline))
        details = set_details(evaluation)
        if details:
            lines += ["", f"{evaluation.name}: misses and false findings (match: block)", *details]
    return "\n".join(lines) + "\n"


def render_markdown(
    evaluations: Sequence[SetEvaluation],
    date: str,
    corpus: Sequence[CorpusFinding] | None = None,
    corpus_root: str | None = None,
    stages: Mapping[str, Sequence[tuple[str, bool]]] | None = None,
) -> str:
    lines = [
        "# Lint evaluation: conflicting instructions",
        "",
        f"Measured on {date}{_at_commit()} with `{COMMAND}` (`python -m tests.lint_eval` "
        "prints the same "
        "numbers; `--json` for a machine). The floors the default test suite holds these "
        "numbers to are in `tests/lint_heldout/floors.json` (`tests/unit/test_lint_floors.py`).",
        "",
        "## How it is measured",
        "",
        METHOD,
        "",
        "## Precision and recall",
        "",
        *markdown_table(SUMMARY_HEADER, summary_rows(evaluations)),
        "",
        "Sets: " + ", ".join(f"{e.name} = `{where_set(e.name)}`" for e in evaluations) + ".",
        "",
        "## Labelled overrides",
        "",
    ]
    lines += [override_line(e) for e in evaluations]
    lines += first_score_lines()
    if stages:
        lines += stage_lines(stages)
    lines += ["", "## Real corpus: every conflict finding", ""]
    lines += corpus_lines(corpus, corpus_root or "../shared/corpus/repos")
    for evaluation in evaluations:
        lines += ["", f"## Per dimension: {evaluation.name} (match: block)", ""]
        lines += markdown_table(DIMENSION_HEADER, dimension_rows(evaluation.headline))
    for evaluation in evaluations:
        details = set_details(evaluation)
        if evaluation.frozen:
            continue
        lines += ["", f"## Misses and false findings: {evaluation.name} (match: block)", ""]
        lines += details or ["None."]
    return "\n".join(lines) + "\n"


def stage_lines(stages: Mapping[str, Sequence[tuple[str, bool]]]) -> list[str]:
    """Per set, the missed conflicts by the stage of the lint that lost them, and how many the
    tier-2 judge would be asked about (``python -m tests.lint_eval.causes``)."""
    names = sorted({cause for misses in stages.values() for cause, _ in misses})
    header = ("stage", *stages)
    rows = [
        [name, *(str(sum(1 for c, _ in misses if c == name)) for misses in stages.values())]
        for name in names
    ]
    rows.append(["all misses", *(str(len(misses)) for misses in stages.values())])
    rows.append(
        [
            "of them judge candidates",
            *(str(sum(1 for _, asked in misses if asked)) for misses in stages.values()),
        ]
    )
    return [
        "",
        "## Why conflicts are missed, and what the judge could reach",
        "",
        "Each missed conflict filed by the stage of the lint that lost it (see "
        "`tests/lint_eval/causes.py`; the frozen set in counts only). A judge candidate is a "
        "missed pair the tier-2 judge would be asked about: with a judge that is always right, "
        "recall would rise by that many pairs.",
        "",
        *markdown_table(header, rows),
    ]


FIRST_SCORES = os.path.join(REPO, "tests", "lint_heldout", "first_scores.json")
FIRST_HEADER = ("set", "scored on", "at commit", "TP", "FP", "FN", "precision", "recall")


def first_score_lines(path: str = FIRST_SCORES) -> list[str]:
    """The section on blind sets scored once before any tuning on them (``first_scores.json``):
    figures on text nobody had tuned to, kept after the sets joined the development set."""
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    rows = [
        [
            str(row["set"]),
            str(row["date"]),
            str(row["commit"]),
            str(row["tp"]),
            str(row["fp"]),
            str(row["fn"]),
            f"{row['precision']:.2f}",
            f"{row['recall']:.2f}",
        ]
        for row in data["scores"]
    ]
    return [
        "",
        "## Blind sets scored before tuning",
        "",
        str(data["about"]),
        "",
        *markdown_table(FIRST_HEADER, rows),
    ]


def _at_commit() -> str:
    """`` at commit <hash>`` of the measured tree, when git can tell."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True
        )
    except OSError:
        return ""
    head = done.stdout.strip()
    return f" at commit {head}" if done.returncode == 0 and head else ""


def as_json(
    evaluations: Sequence[SetEvaluation], corpus: Sequence[CorpusFinding] | None = None
) -> dict[str, object]:
    sets: dict[str, object] = {}
    for evaluation in evaluations:
        entry: dict[str, object] = {
            "folder": where_set(evaluation.name),
            "workspaces": evaluation.workspaces,
            "frozen": evaluation.frozen,
            "match": {
                rule: {
                    "total": score.total.as_dict(),
                    "byDimension": {n: c.as_dict() for n, c in sorted(score.by_dimension.items())},
                }
                for rule, score in evaluation.scores.items()
            },
        }
        if not evaluation.frozen:
            entry["details"] = _json_details(evaluation)
        sets[evaluation.name] = entry
    out: dict[str, object] = {"sets": sets}
    if corpus is not None:
        out["corpus"] = [
            {
                "later": str(f.reported.later),
                "earlier": str(f.reported.earlier),
                "rule": f.reported.rule,
                "verdict": f.verdict,
            }
            for f in corpus
        ]
    return out


def _json_details(evaluation: SetEvaluation) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for score in evaluation.headline.workspaces:
        case = score.workspace.name
        for label in score.missed:
            out.append(
                {
                    "case": case,
                    "kind": "missed",
                    "dimension": label.dimension,
                    "pair": [str(label.first), str(label.second)],
                }
            )
        for false in score.false:
            r = false.reported
            out.append(
                {
                    "case": case,
                    "kind": f"false:{false.kind}",
                    "rule": r.rule,
                    "pair": [str(r.later), str(r.earlier)],
                    "message": r.message,
                }
            )
    return out
