"""``pi-lsp check`` on numeric limits: a settings-table row and a nested package's sentence
that set two different values for one limit conflict; the same value in other units, or a
floor next to an exact version, stay silent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.cli.isolated import run_pi_lsp


def conflicts(tmp: Path, root: str, package: str) -> list[dict[str, Any]]:
    for name in ("home", "agent", "ws/services/api"):
        (tmp / name).mkdir(parents=True)
    (tmp / "ws" / "AGENTS.md").write_text(root)
    (tmp / "ws" / "services" / "api" / "AGENTS.md").write_text(package)
    proc = run_pi_lsp(tmp, "check", "--format", "json", cwd=tmp / "ws")
    assert proc.stdout, proc.stderr
    found: list[dict[str, Any]] = json.loads(proc.stdout)["diagnostics"]
    return [d for d in found if d["rule"].startswith("conflicting-instructions")]


ROOT = (
    "# Limits\n"
    "\n"
    "| Limit | Value |\n"
    "|-------|-------|\n"
    "| Requests per minute per API key | 300 |\n"
    "\n"
    "The maximum upload size is 5 MB per file. Requires Python 3.11+.\n"
)


def test_a_nested_limit_contradicts_the_root_table_row(tmp_path: Path) -> None:
    api = "# API\n\nClients are limited to 50 requests per minute per API key in this service.\n"
    [found] = conflicts(tmp_path, ROOT, api)
    assert (found["path"], found["line"]) == ("services/api/AGENTS.md", 3)
    assert "rate limit" in found["message"]
    [related] = found["related"]
    assert (related["path"], related["line"]) == ("AGENTS.md", 5)


def test_the_same_limit_in_other_units_and_a_pin_above_the_floor_stay_silent(
    tmp_path: Path,
) -> None:
    api = "# API\n\nThe max upload size is 5120 KB. Use Python 3.12 for local work.\n"
    assert conflicts(tmp_path, ROOT, api) == []
