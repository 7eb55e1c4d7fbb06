"""A copied block of sentences is one duplicate finding, and its fix removes just the block;
the fixes name other files relative to the edited one, links resolved."""

from __future__ import annotations

import os
from pathlib import Path

from pi_lsp.lint.conflicts import CONFLICT, DUPLICATE, find_conflicts
from pi_lsp.lint.fixes import FixContext, apply_edits, finding_fixes

ROOT = "/r/AGENTS.md"
PKG = "/r/pkg/AGENTS.md"


def duplicates(root: str, pkg: str) -> list[tuple[int, int, int, int]]:
    found = [f for f in find_conflicts([(ROOT, root), (PKG, pkg)]) if f.rule == DUPLICATE]
    return [
        (f.where.start_line, f.where.start_column, f.where.end_line, f.where.end_column)
        for f in found
    ]


def removed(root: str, pkg: str) -> str:
    [finding] = [f for f in find_conflicts([(ROOT, root), (PKG, pkg)]) if f.rule == DUPLICATE]
    [fix] = finding_fixes(finding, FixContext(text_of={ROOT: root, PKG: pkg}.get))
    return apply_edits(pkg, fix.edits)


def test_sentences_copied_on_one_line_are_one_finding_and_one_deletion() -> None:
    root = "Run the tests before committing. Keep the changelog up to date always.\n"
    pkg = "Ship it. Run the tests before committing. Keep the changelog up to date always.\n"
    assert duplicates(root, pkg) == [(0, 9, 0, len(pkg) - 1)]
    assert removed(root, pkg) == "Ship it.\n"


def test_a_heading_inside_the_copied_block_stays() -> None:
    root = "- Run the tests before committing.\n- Keep the changelog up to date.\n"
    pkg = "# A\n\n- Run the tests before committing.\n\n## B\n\n- Keep the changelog up to date.\n"
    assert duplicates(root, pkg) == [(2, 2, 6, 32)]
    assert removed(root, pkg) == "# A\n\n\n## B\n\n"


def test_sentences_copied_in_another_order_are_separate_findings() -> None:
    root = "- Run the tests before committing.\n- Keep the changelog up to date.\n"
    pkg = "- Keep the changelog up to date.\n- Run the tests before committing.\n"
    assert len(duplicates(root, pkg)) == 2


def test_a_block_stops_where_the_copy_departs_from_the_original() -> None:
    root = "- Run the tests before committing.\n- Keep the changelog up to date.\n- Be brief.\n"
    pkg = "- Run the tests before committing.\n- Keep the changelog up to date.\n- Be loud.\n"
    assert duplicates(root, pkg) == [(0, 2, 1, 32)]


def test_a_workspace_opened_through_a_link_still_gets_a_relative_path(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "pkg").mkdir(parents=True)
    os.symlink(real, tmp_path / "link")
    root, pkg = str(real / "AGENTS.md"), str(tmp_path / "link" / "pkg" / "AGENTS.md")
    files = {root: "- Use npm to install packages.\n", pkg: "- Always use pnpm.\n"}
    [finding] = [f for f in find_conflicts(list(files.items())) if f.rule == CONFLICT]
    [fix] = finding_fixes(finding, FixContext(text_of=files.get, home=str(tmp_path / "home")))
    assert fix.title == "State that this instruction overrides ../AGENTS.md"
    assert apply_edits(files[pkg], fix.edits) == (
        "- Always use pnpm (this overrides `../AGENTS.md`).\n"
    )
