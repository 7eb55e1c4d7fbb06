"""One set, linted once and scored under both matching rules."""

from __future__ import annotations

from dataclasses import dataclass

from tests.lint_eval.running import lint_workspace
from tests.lint_eval.scoring import MATCH_RULES, MatchRule, SetScore, score_set
from tests.lint_eval.workspaces import FROZEN_SETS, SET_FOLDERS, load_set

SET_NAMES = tuple(SET_FOLDERS)  # cases, dev, test


@dataclass(frozen=True, slots=True)
class SetEvaluation:
    name: str
    #: a frozen set is reported in aggregate only: no case, line or text of it is shown
    frozen: bool
    scores: dict[MatchRule, SetScore]

    @property
    def headline(self) -> SetScore:
        return self.scores["block"]

    @property
    def workspaces(self) -> int:
        return len(self.headline.workspaces)


def evaluate_set(name: str, folder: str | None = None) -> SetEvaluation:
    """Lint every workspace of a set (by name, or any folder of cases) and score it."""
    workspaces = load_set(folder or name)
    linted = [(workspace, lint_workspace(workspace)) for workspace in workspaces]
    scores = {rule: score_set(name, linted, rule) for rule in MATCH_RULES}
    return SetEvaluation(name, name in FROZEN_SETS, scores)
