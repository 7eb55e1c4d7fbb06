"""A small workspace: two AGENTS.md that disagree about the package manager."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    for name in ("home", "agent", "ws/pkg"):
        (tmp_path / name).mkdir(parents=True)
    (tmp_path / "ws" / "AGENTS.md").write_text("# Tools\n\n- Use npm to install packages.\n")
    (tmp_path / "ws" / "pkg" / "AGENTS.md").write_text("# Tools\n\n- Always use pnpm.\n")
    return tmp_path
