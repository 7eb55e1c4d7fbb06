"""Writes ``docs/rules.md`` from the rules' own metadata: ``python -m pi_lsp.lint.rules_doc``."""

from __future__ import annotations

import sys
from pathlib import Path

from pi_lsp.lint.catalogue import Catalogue, load_catalogue
from pi_lsp.lint.rules import RULES

USAGE = """usage: python -m pi_lsp.lint.rules_doc [TARGET]

Writes the lint rules and the catalogue of roles to TARGET (default: docs/rules.md).
"""

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
- Known gaps: values are read from the catalogue of roles below (extendable from
  settings), in sentences that read as instructions or as conventions stated as facts; a
  tool a plain description names ("host alerts are emails our workers hand to the SendGrid
  API") counts only against a rule or a stated convention, never against another mention;
  always/never on the same wording or on action frames that match through a small table of
  verb and noun synonyms ("never commit directly to main" / "push your commits straight to the
  main branch"), weaker pairs left to the optional model judge; a sentence opened by a scope
  ("For the docs, use npm") is compared only with sentences of the same scope.

"""


CATALOGUE = """## The catalogue of roles

Conflicting instructions are found by what they choose. Each *role* below is one decision a
project makes once; an instruction that prefers one of its values ("use pnpm", "Bundler:
Vite", "run `./gradlew build`") conflicts with one that prefers another value of the same
role and group, or that rejects the value. Values in different groups coexist (pytest for
Python and vitest for TypeScript). Kinds:

- *choice*: the values exclude each other;
- *maximum*, *minimum*, *default*: a number with its unit for one subject ("HTTP timeout:
  30 s"); numbers are converted before they are compared (30000 ms is 30 s), and a number
  for another subject is another role. A subject is a phrase, a head noun with the words
  saying what it is about ("timeout" about "http", "outbound"), or a configuration key
  (`PAGE_SIZE = 50`); a stated kind ("at most", "at least", "defaults to") keeps a default
  apart from a maximum, and a range ("between 10 and 30 s") sets nothing;
- *floor*: a version floor of one runtime; two different floors conflict.

A *command* implies the value it runs (`./gradlew` is Gradle), and so do the *files* and
folders its tool owns (`.github/workflows/` is GitHub Actions, `fly.toml` Fly.io), in a
sentence that chooses; the commands of a shell fence that an instruction ending with a colon
introduces ("Install it with:") are that instruction's. Names that are also ordinary
words (black, click, express) count only in code, after a verb that picks a tool ("use",
"with", "via" …) or after a label naming the role. The catalogue is
`pi_lsp/lint/catalogue.toml`; add roles, or values of a role, under `lint.catalogue` in Pi's
settings.json (global or project), with the same keys:

    {"lint": {"catalogue": [
      {"name": "event-bus", "label": "event bus", "values": ["Zephyrbus", "Quokkamq"]},
      {"name": "bundler", "values": [{"name": "Farm", "aka": ["farm"], "commands": ["farm build"]}]}
    ]}}

An entry that cannot be used is reported as PI604 lint-catalogue-invalid at its line.

"""


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def catalogue_section(catalogue: Catalogue | None = None) -> str:
    """The catalogue as Markdown: one row per role."""
    catalogue = catalogue or load_catalogue()
    rows = ["| role | kind | applies | values | commands, files |", "|---|---|---|---|---|"]
    for role in catalogue.roles:
        if role.numeric:
            named = list(role.subjects)
            if role.heads:
                named.append(f"{'/'.join(role.heads[:3])} about {', '.join(role.about[:6])}")
            values = f"a number ({role.unit}) for: " + ", ".join(named)
        else:
            groups: dict[str, list[str]] = {}
            for value in role.values:
                groups.setdefault(value.group, []).append(value.name)
            values = "; ".join(
                (f"{group}: " if group and len(groups) > 1 else "") + ", ".join(names)
                for group, names in groups.items()
            )
        commands = ", ".join(
            f"`{command}` → {value.name}"
            for value in role.values
            for command in (*value.commands, *value.files)
        )
        rows.append(
            f"| {role.label} (`{role.name}`) | {role.kind} | {_cell(role.applies)} | "
            f"{_cell(values)} | {_cell(commands)} |"
        )
    return CATALOGUE + f"{len(catalogue.roles)} roles.\n\n" + "\n".join(rows) + "\n\n"


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
    return HEADER + rows + "\n" + extra + "\n".join(sections) + "\n" + catalogue_section()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0
    if len(args) > 1 or (args and args[0].startswith("-")):
        sys.stderr.write(USAGE)
        return 2
    target = Path(args[0]) if args else Path("docs/rules.md")
    target.write_text(render(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
