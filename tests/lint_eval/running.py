"""Running the lint on a labelled workspace as ``pi-lsp check`` runs it, and on a real tree.

A workspace is loaded with the engine's loader for its ``cwd`` (its own ``agent/`` as the agent
dir, no environment, the case folder as home), its context files replaced by the case's chain
(:func:`~tests.lint_eval.workspaces.build_chain`: the same files, without any file above the
case folder), and linted by :func:`pi_lsp.lint.engine.lint_resources` with the default
:class:`~pi_lsp.lint.engine.LintConfig` — the rules, severities and settings ``pi-lsp check``
uses. Every diagnostic that points at a related location is kept: conflicts, and whatever
other rule reports a pair (an override rule, a duplicate).
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, replace

from pi_lsp.lint.conflicts import CONFLICT, CONFLICT_IN_FILE
from pi_lsp.lint.engine import Diagnostic, LintConfig, lint_resources, lint_tree
from pi_lsp.resources.loader import LoadOptions, load_resources
from tests.lint_eval.workspaces import Ref, Workspace, build_chain, working_directory

#: the rules whose findings claim that two instructions contradict each other
CONFLICT_RULES = frozenset({CONFLICT, CONFLICT_IN_FILE})


@dataclass(frozen=True, slots=True)
class Reported:
    """A diagnostic on a pair of lines: ``later`` where it sits, ``earlier`` what it cites."""

    rule: str
    severity: str
    later: Ref
    earlier: Ref
    message: str

    @property
    def is_conflict(self) -> bool:
        return self.rule in CONFLICT_RULES


def _ref(path: str, line: int, root: str) -> Ref:
    return Ref(os.path.relpath(path, root), line + 1)


def reported_pairs(diagnostics: list[Diagnostic], root: str) -> list[Reported]:
    """The diagnostics that cite a related location, as pairs of lines relative to ``root``."""
    out: list[Reported] = []
    for diagnostic in diagnostics:
        finding = diagnostic.finding
        if not finding.related:
            continue
        where, earlier = finding.where, finding.related[0].where
        out.append(
            Reported(
                finding.rule,
                diagnostic.severity,
                _ref(where.path, where.start_line, root),
                _ref(earlier.path, earlier.start_line, root),
                finding.message,
            )
        )
    return out


def lint_workspace(workspace: Workspace) -> list[Reported]:
    """What ``pi-lsp check`` reports on pairs of lines for the workspace's working directory."""
    case = workspace.folder
    options = LoadOptions(
        cwd=working_directory(case), agent_dir=os.path.join(case, "agent"), env={}, home=case
    )
    resources = load_resources(options)
    chain = tuple(build_chain(case))
    resources = replace(resources, context_files=replace(resources.context_files, files=chain))
    return reported_pairs(lint_resources(resources, LintConfig()), case)


def lint_corpus(root: str) -> list[Reported]:
    """Every conflict ``pi-lsp check`` reports over every working directory under ``root``
    (an empty agent dir, so that no global file of this machine takes part)."""
    with tempfile.TemporaryDirectory(prefix="pi-lsp-eval-agent-") as agent:
        result = lint_tree(root, agent_dir=agent, config=LintConfig())
    return [r for r in reported_pairs(result.diagnostics, root) if r.is_conflict]
