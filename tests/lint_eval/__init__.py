"""The measuring instrument for the conflict lint: labelled workspaces, scored.

* :mod:`~tests.lint_eval.workspaces` — the sets, their labels, a case's chain;
* :mod:`~tests.lint_eval.running` — the lint run as ``pi-lsp check`` runs it;
* :mod:`~tests.lint_eval.blocks` / :mod:`~tests.lint_eval.scoring` — matching and counting;
* :mod:`~tests.lint_eval.evaluation` — one set, linted once, scored under both rules;
* :mod:`~tests.lint_eval.corpus` — the real corpus's findings with their verdicts;
* :mod:`~tests.lint_eval.floors` — the floors the default suite guards;
* :mod:`~tests.lint_eval.report` and ``__main__`` — the table, JSON and the doc.
"""
