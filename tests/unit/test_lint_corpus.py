"""The conflict lint on the real corpus (``$PI_LSP_SHARED/corpus/repos``): every finding has
been judged by a person (``tests/lint_heldout/corpus_verdicts.json``), no more are false than
the file allows, and every finding judged true is still found."""

from __future__ import annotations

import json

import pytest

from tests.lint_eval.corpus import VERDICTS, judged_corpus_findings, read_verdicts
from tests.shared_data import CORPUS


@pytest.mark.shared
def test_every_conflict_on_the_corpus_is_judged_and_true() -> None:
    findings = judged_corpus_findings(str(CORPUS / "repos"))
    shown = {f"{f.reported.later} -> {f.reported.earlier}": f.verdict for f in findings}
    unjudged = [pair for pair, verdict in shown.items() if verdict == "unjudged"]
    assert not unjudged, f"judge these findings in {VERDICTS}: {unjudged}"
    with open(VERDICTS, encoding="utf-8") as handle:
        allowed_false = json.load(handle)["allowedFalse"]
    false = [pair for pair, verdict in shown.items() if verdict == "false"]
    assert len(false) <= allowed_false, f"false findings on the corpus: {false}"
    found = {(f.reported.later, f.reported.earlier) for f in findings}
    lost = [
        f"{a} -> {b}"
        for (a, b), (v, _) in read_verdicts().items()
        if v == "true" and (a, b) not in found
    ]
    assert not lost, f"true conflicts on the corpus no longer found: {lost}"
