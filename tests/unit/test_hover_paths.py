"""Paths in hovers and CLI reports are written as a reader finds them quickest."""

from __future__ import annotations

from pathlib import Path

from pi_lsp.resources.shown_paths import shown_path


def test_paths_are_relative_to_the_workspace_then_the_home_folder(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = home / "src" / "app"
    (root / "pkg").mkdir(parents=True)
    elsewhere = tmp_path / "etc" / "AGENTS.md"
    assert shown_path(str(root / "pkg" / "AGENTS.md"), str(root), str(home)) == "pkg/AGENTS.md"
    assert shown_path(str(root), str(root), str(home)) == "."
    agent_file = home / ".pi" / "agent" / "AGENTS.md"
    assert shown_path(str(agent_file), str(root), str(home)) == "~/.pi/agent/AGENTS.md"
    assert shown_path(str(home), str(root), str(home)) == "~"
    assert shown_path(str(elsewhere), str(root), str(home)) == str(elsewhere)
    # a sibling whose name starts like the root is not inside it
    sibling = home / "src" / "app2" / "A.md"
    assert shown_path(str(sibling), str(root), str(home)) == "~/src/app2/A.md"
    # through a symbolic link to the root: still relative
    link = tmp_path / "link"
    link.symlink_to(root)
    assert shown_path(str(link / "pkg" / "AGENTS.md"), str(root), str(home)) == "pkg/AGENTS.md"
    assert shown_path(str(elsewhere), str(root), "") == str(elsewhere)
    # a file that links to another keeps its own name
    (root / "AGENTS.md").write_text("x\n")
    (root / "CLAUDE.md").symlink_to("AGENTS.md")
    assert shown_path(str(root / "CLAUDE.md"), str(root), str(home)) == "CLAUDE.md"
