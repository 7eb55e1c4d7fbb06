"""``pi-lsp check`` with a catalogue extended from Pi's settings (``lint.catalogue``): a role
the user adds produces conflicts like a shipped one, and an entry that cannot be used is a
finding at its own line of the settings file, while the rest of the lint still runs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PI_LSP = Path(sys.executable).parent / "pi-lsp"

SETTINGS = """{
  "lint": {
    "catalogue": [
      {"name": "event-bus", "label": "event bus", "values": ["Zephyrbus", "Quokkamq"]},
      {"name": "bundler", "values": [{"name": "Farm", "aka": ["farm"]}]},
      {"name": "Bad Name", "values": []},
      {"name": "queue-depth", "kind": "maximum", "unit": "furlongs", "subjects": ["depth"]}
    ]
  }
}
"""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def check(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    (tmp / "home").mkdir(exist_ok=True)
    return subprocess.run(
        [str(PI_LSP), "check", *args],
        cwd=tmp / "ws",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def diagnostics(tmp: Path) -> list[dict[str, Any]]:
    proc = check(tmp, "--format", "json")
    assert proc.stdout, proc.stderr
    found: list[dict[str, Any]] = json.loads(proc.stdout)["diagnostics"]
    return found


def workspace(tmp: Path, settings: str = SETTINGS) -> None:
    write(tmp / "agent" / "settings.json", settings)
    write(tmp / "ws" / "AGENTS.md", "# Rules\n\n- Use Zephyrbus for events.\n- Use Vite.\n")
    write(tmp / "ws" / "web" / "AGENTS.md", "# Web\n\n- Use Quokkamq for events.\n")
    write(tmp / "ws" / "docs" / "AGENTS.md", "# Docs\n\n- Use Farm as the bundler.\n")


def test_a_role_added_in_settings_produces_a_conflict(tmp_path: Path) -> None:
    workspace(tmp_path)
    conflicts = [d for d in diagnostics(tmp_path) if d["rule"] == "conflicting-instructions"]
    where = {(d["path"], d["line"]) for d in conflicts}
    assert where == {("web/AGENTS.md", 3), ("docs/AGENTS.md", 3)}
    messages = " ".join(d["message"] for d in conflicts)
    assert "Conflicting event bus" in messages and "Zephyrbus" in messages
    assert "Farm" in messages and "Vite" in messages


def test_without_the_setting_the_user_role_is_unknown(tmp_path: Path) -> None:
    workspace(tmp_path, "{}\n")
    assert [d for d in diagnostics(tmp_path) if d["rule"] == "conflicting-instructions"] == []


def test_a_bad_entry_is_a_finding_at_its_line_and_the_lint_goes_on(tmp_path: Path) -> None:
    workspace(tmp_path)
    found = diagnostics(tmp_path)
    bad = [d for d in found if d["rule"] == "lint-catalogue-invalid"]
    settings = str(tmp_path / "agent" / "settings.json")
    assert [(d["code"], d["path"], d["line"]) for d in bad] == [
        ("PI604", settings, 6),
        ("PI604", settings, 7),
    ]
    assert "'name' must be lowercase" in bad[0]["message"]
    assert "'unit' must be one of" in bad[1]["message"]
    assert any(d["rule"] == "conflicting-instructions" for d in found)
    text = check(tmp_path).stdout
    assert f"{settings}:6" in text


def test_a_catalogue_that_is_not_a_list_is_one_finding(tmp_path: Path) -> None:
    workspace(tmp_path, '{\n  "lint": {\n    "catalogue": {"name": "x"}\n  }\n}\n')
    bad = [d for d in diagnostics(tmp_path) if d["rule"] == "lint-catalogue-invalid"]
    assert [(d["line"], d["message"].split(": ", 1)[1]) for d in bad] == [
        (3, "'lint.catalogue' must be a list of roles; the entry is skipped")
    ]
