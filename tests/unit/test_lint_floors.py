"""Regression guard: precision and recall of the conflict lint on the held-out dev and test
sets stay at the floors in ``tests/lint_heldout/floors.json`` (measured values rounded down).

Only aggregate numbers are shown, so a failure on the frozen test set tells nothing about its
cases. A gain that lifts a rounded value above its floor fails too: raise the floor with
``python -m tests.lint_eval --write-floors`` so the gain is kept.
"""

from __future__ import annotations

import pytest

from tests.lint_eval.evaluation import SetEvaluation, evaluate_set
from tests.lint_eval.floors import FLOOR_SETS, MEASURES, measured, read_floors


@pytest.fixture(scope="module")
def evaluations() -> dict[str, SetEvaluation]:
    return {name: evaluate_set(name) for name in FLOOR_SETS}


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("name", FLOOR_SETS)
def test_the_measure_holds_its_floor(
    evaluations: dict[str, SetEvaluation], name: str, measure: str
) -> None:
    floor = read_floors()[name][measure]
    value = measured(evaluations[name])[measure]
    total = evaluations[name].headline.total
    counts = f"TP {total.true_positives}, FP {total.fp}, FN {total.false_negatives}"
    assert value >= floor, (
        f"{name} {measure} fell to {value:.2f} below its floor {floor} ({counts})"
    )
    assert value <= floor, (
        f"{name} {measure} rose to {value:.2f} above its floor {floor} ({counts}): raise the "
        "floor with `python -m tests.lint_eval --write-floors`"
    )
