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


def render(extra: str = "") -> str:
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
