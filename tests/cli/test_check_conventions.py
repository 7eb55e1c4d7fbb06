"""`pi-lsp check` on conventions stated both ways in a real workspace (made-up projects)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PI_LSP = Path(sys.executable).parent / "pi-lsp"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def conflicts(tmp: Path) -> dict[tuple[str, int], str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    (tmp / "home").mkdir(exist_ok=True)
    proc = subprocess.run(
        [str(PI_LSP), "check", "--format", "json"],
        cwd=tmp / "ws",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.stdout, proc.stderr
    return {
        (d["path"], d["line"]): d["message"]
        for d in json.loads(proc.stdout)["diagnostics"]
        if d["rule"] == "conflicting-instructions"
    }


def test_conventions_stated_both_ways_are_reported_where_the_later_one_is(tmp_path: Path) -> None:
    write(
        tmp_path / "agent" / "AGENTS.md",
        "# Me\n\n- Be brief: no preamble, no closing summary.\n",
    )
    write(
        tmp_path / "ws" / "AGENTS.md",
        "# Mapleleaf\n\n"
        "- Trailing commas: none.\n"
        "- snake_case for functions and variables.\n"
        "- End every response with a short summary of the changes.\n",
    )
    write(
        tmp_path / "ws" / "plugins" / "geo" / "AGENTS.md",
        "# geo\n\n"
        "Always add trailing commas in multiline literals.\n\n"
        "Functions in this plugin are camelCase, to match the upstream SDK.\n",
    )
    found = conflicts(tmp_path)
    assert set(found) == {
        ("AGENTS.md", 5),
        ("plugins/geo/AGENTS.md", 3),
        ("plugins/geo/AGENTS.md", 5),
    }
    assert "trailing commas" in found[("plugins/geo/AGENTS.md", 3)]
    assert "naming case" in found[("plugins/geo/AGENTS.md", 5)]
    assert "closing summary" in found[("AGENTS.md", 5)]


def test_agreeing_conventions_are_quiet(tmp_path: Path) -> None:
    write(
        tmp_path / "ws" / "AGENTS.md", "# Root\n\n- Trailing commas: none.\n- Semicolons: always.\n"
    )
    write(
        tmp_path / "ws" / "pkg" / "AGENTS.md",
        "# Pkg\n\nNever use trailing commas. Always end statements with semicolons.\n",
    )
    assert conflicts(tmp_path) == {}
