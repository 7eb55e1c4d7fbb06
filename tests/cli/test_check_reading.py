"""``pi-lsp check`` on a monorepo whose package file chooses a tool with a work verb ("bundle
with …") and names its own folder ("For the extension, …"): the user sees the conflict with
the root rule; a phrase naming another part of the repository stays a condition."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.isolated import run_pi_lsp


def conflicts(tmp: Path, package: str) -> list[dict[str, Any]]:
    for name in ("home", "agent", "ws/apps/extension"):
        (tmp / name).mkdir(parents=True)
    (tmp / "ws" / "AGENTS.md").write_text("# Build\n\n- Bundle with Vite (`pnpm build`).\n")
    (tmp / "ws" / "apps" / "extension" / "AGENTS.md").write_text(package)
    proc = run_pi_lsp(tmp, "check", "--format", "json", cwd=tmp / "ws")
    assert proc.stdout, proc.stderr
    found: list[dict[str, Any]] = json.loads(proc.stdout)["diagnostics"]
    return [d for d in found if d["rule"].startswith("conflicting-instructions")]


def test_a_package_naming_its_own_folder_contradicts_the_root_bundler(tmp_path: Path) -> None:
    [found] = conflicts(tmp_path, "# Extension\n\nFor the extension, bundle with webpack.\n")
    assert (found["path"], found["line"]) == ("apps/extension/AGENTS.md", 3)
    assert "bundler" in found["message"]
    assert "webpack" in found["message"] and "Vite" in found["message"]
    [related] = found["related"]
    assert (related["path"], related["line"]) == ("AGENTS.md", 3)


def test_a_package_naming_another_part_stays_silent(tmp_path: Path) -> None:
    assert conflicts(tmp_path, "# Extension\n\nFor the docs site, bundle with webpack.\n") == []
