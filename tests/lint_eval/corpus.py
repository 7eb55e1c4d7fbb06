"""Conflicts reported on the real corpus (``$PI_LSP_SHARED/corpus/repos``), with verdicts.

The corpus carries no labels: each conflict finding on it was read by a person and judged in
``tests/lint_heldout/corpus_verdicts.json`` (``later`` / ``earlier`` as ``path:line`` relative
to ``repos/``, ``verdict`` ``true`` or ``false``, ``why``). A finding nobody has judged yet is
``unjudged``: the guard test asks for a verdict before it passes.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Literal

from tests.lint_eval.running import Reported, lint_corpus
from tests.lint_eval.workspaces import TESTS, Ref

VERDICTS = os.path.join(TESTS, "lint_heldout", "corpus_verdicts.json")

Verdict = Literal["true", "false", "unjudged"]


@dataclass(frozen=True, slots=True)
class CorpusFinding:
    reported: Reported
    verdict: Verdict
    why: str


def read_verdicts(path: str = VERDICTS) -> dict[tuple[Ref, Ref], tuple[Verdict, str]]:
    with open(path, encoding="utf-8") as handle:
        items = json.load(handle)["findings"]
    return {
        (Ref.parse(item["later"]), Ref.parse(item["earlier"])): (item["verdict"], item["why"])
        for item in items
    }


def judged_corpus_findings(root: str) -> list[CorpusFinding]:
    """Every conflict finding over the working directories under ``root``, with its verdict."""
    verdicts = read_verdicts()
    out: list[CorpusFinding] = []
    for reported in lint_corpus(root):
        verdict, why = verdicts.get((reported.later, reported.earlier), ("unjudged", ""))
        out.append(CorpusFinding(reported, verdict, why))
    return out
