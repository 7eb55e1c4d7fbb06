"""``pi-lsp check`` on rules written as statements and table rows: the conflicts a user sees
now, at the row or sentence that states them, and the scoped rows and examples that stay
silent."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.cli.isolated import run_pi_lsp


def check(tmp: Path) -> subprocess.CompletedProcess[str]:
    return run_pi_lsp(tmp, "check", "--format", "json", cwd=tmp / "ws")


def conflicts(tmp: Path) -> list[dict[str, Any]]:
    proc = check(tmp)
    assert proc.stdout, proc.stderr
    found: list[dict[str, Any]] = json.loads(proc.stdout)["diagnostics"]
    return [d for d in found if d["rule"].startswith("conflicting-instructions")]


def workspace(tmp: Path, root: str, package: str) -> None:
    for name in ("home", "agent", "ws/apps/web"):
        (tmp / name).mkdir(parents=True)
    (tmp / "ws" / "AGENTS.md").write_text(root)
    (tmp / "ws" / "apps" / "web" / "AGENTS.md").write_text(package)


ROOT_TABLE = (
    "# Conventions\n"
    "\n"
    "| Setting | Value |\n"
    "|---------|-------|\n"
    "| Package manager | pnpm |\n"
    "| Formatter | Prettier |\n"
)


def test_a_stated_convention_contradicts_a_settings_table_row(tmp_path: Path) -> None:
    web = "# Web\n\nThe web app uses npm, even when a script says pnpm.\n"
    workspace(tmp_path, ROOT_TABLE, web)
    [found] = conflicts(tmp_path)
    assert (found["path"], found["line"], found["column"]) == ("apps/web/AGENTS.md", 3, 1)
    assert "package manager" in found["message"] and "use npm" in found["message"]
    # the related location is the table row, at its first cell
    [related] = found["related"]
    assert (related["path"], related["line"], related["column"]) == ("AGENTS.md", 5, 3)


def test_a_row_scoped_to_another_package_and_examples_stay_silent(tmp_path: Path) -> None:
    root = (
        "# Conventions\n\n"
        "- Use pnpm.\n\n"
        "| Package | Package manager |\n"
        "|---------|-----------------|\n"
        "| `docs/` | npm |\n\n"
        "## Examples\n\n"
        "Use yarn to install the package.\n"
    )
    web = (
        "# Web\n\n"
        "We migrated from yarn last year. You may use npm for one-off scripts.\n\n"
        "Output:\n\n"
        "> Installed with bun.\n"
    )
    workspace(tmp_path, root, web)
    assert conflicts(tmp_path) == []
