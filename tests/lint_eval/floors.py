"""The floors the default suite holds precision and recall to (``tests/lint_heldout/floors.json``).

Each floor is a measured value rounded down to two decimals, under the ``block`` matching rule.
A change that loses precision or recall on a set fails the guard; one that gains enough to
raise a rounded value fails it too, asking for the floor to be raised
(``python -m tests.lint_eval --write-floors``), so that the gain is kept.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence

from tests.lint_eval.evaluation import SetEvaluation
from tests.lint_eval.workspaces import TESTS

FLOORS = os.path.join(TESTS, "lint_heldout", "floors.json")
#: the sets the floors cover
FLOOR_SETS = ("dev", "test")
MEASURES = ("precision", "recall")


def rounded_down(value: float | None) -> float:
    """Two decimals, rounded down; no report at all counts as precision 1."""
    if value is None:
        return 1.0
    return math.floor(round(value * 100, 6)) / 100


def measured(evaluation: SetEvaluation) -> dict[str, float]:
    total = evaluation.headline.total
    return {"precision": rounded_down(total.precision), "recall": rounded_down(total.recall)}


def read_floors(path: str = FLOORS) -> dict[str, dict[str, float]]:
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return {name: data[name] for name in FLOOR_SETS}


def write_floors(evaluations: Sequence[SetEvaluation], date: str, path: str = FLOORS) -> None:
    data: dict[str, object] = {
        "about": "Precision and recall of conflicting-instructions (match: block), rounded "
        "down to 2 decimals, that tests/unit/test_lint_floors.py holds each set to. Written by "
        "python -m tests.lint_eval --write-floors.",
        "measured": date,
    }
    for evaluation in evaluations:
        if evaluation.name in FLOOR_SETS:
            data[evaluation.name] = measured(evaluation)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
        handle.write("\n")
