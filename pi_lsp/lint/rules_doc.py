"""Writes ``docs/rules.md`` from the rules' own metadata: ``python -m pi_lsp.lint.rules_doc``."""

from __future__ import annotations

import sys
from pathlib import Path

from pi_lsp.lint.rules import RULES

HEADER = """# Lint rules

Generated from `pi_lsp/lint/rules.py` by `python -m pi_lsp.lint.rules_doc`; do not edit by hand.
`pi-lsp check` and the language server report these. A rule marked *Pi reports it* is a
problem Pi itself warns about (pi-lsp adds the file and line); the others are pi-lsp's own.

| code | rule | default severity |
|---|---|---|
"""


QUALITY = """## How well conflict detection works

Measured 2026-11-30:

- Labeled set (`tests/lint_cases`, 57 small workspaces: conflicts across global, ancestor and
  descendant files and within one file, near misses, overrides, negations, code blocks,
  examples, sibling folders, shadowed files; 33 labeled conflicts):
  **precision 1.000, recall 1.000** (`.venv/bin/pytest -q -s tests/unit/test_lint_precision.py`).
  The set was written alongside the rules, so these figures overstate what to expect on new text.
- Real files (`shared/corpus`, 158 folders with a context file, one chain each):
  **1 conflict reported, judged real** (line length 88 vs 120 in one CLAUDE.md), so well under
  one false report per twenty files; 19 duplicate instructions, all real
  (`.venv/bin/python bench/lint_corpus.py`).
- Known gaps: a closed vocabulary of exclusive choices (package managers, test runners,
  formatters, indentation, quotes, semicolons, module systems, TypeScript vs JavaScript,
  versions and numeric limits, response language); always/never on the same wording or on
  action frames that match through a small table of verb and noun synonyms ("never commit
  directly to main" / "push your commits straight to the main branch"), weaker pairs left to
  a judge; sentences opened by a scope ("For the docs, use npm") make no choice.

"""


def render(extra: str = QUALITY) -> str:
    rows = "".join(
        f"| [{r.code}](#{r.code.lower()}-{r.name}) | {r.name} | {r.severity} |\n" for r in RULES
    )
    sections = []
    for rule in RULES:
        example = "\n".join(f"    {line}" for line in rule.example.split("\n"))
        pi = " *Pi reports it.*" if rule.pi_reports else ""
        sections.append(
            f"## {rule.code} {rule.name}\n\n{rule.summary}{pi}\n\n{rule.why}\n\n"
            f"Default severity: {rule.severity}. Example:\n\n{example}\n"
        )
    return HEADER + rows + "\n" + extra + "\n".join(sections)


def main() -> int:
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs/rules.md")
    target.write_text(render(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
