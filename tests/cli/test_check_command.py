"""``pi-lsp check`` as a user runs it: text like ruff's, JSON, SARIF and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PI_LSP = Path(sys.executable).parent / "pi-lsp"


def check(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    return subprocess.run(
        [str(PI_LSP), "check", *args],
        cwd=tmp / "ws",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def workspace(tmp: Path) -> Path:
    for name in ("home", "agent", "ws/pkg", "ws/other"):
        (tmp / name).mkdir(parents=True)
    (tmp / "ws" / "AGENTS.md").write_text("# Tools\n\n- Use npm to install packages.\n")
    (tmp / "ws" / "pkg" / "AGENTS.md").write_text("# Tools\n\n- Always use pnpm.\n")
    # a sibling folder never loads with pkg: no conflict with it
    (tmp / "ws" / "other" / "AGENTS.md").write_text("- Use yarn.\n")
    return tmp / "ws"


def test_text_output_names_both_places(tmp_path: Path) -> None:
    workspace(tmp_path)
    proc = check(tmp_path)
    assert proc.returncode == 0, proc.stderr  # conflicts are warnings, not errors
    lines = proc.stdout.splitlines()
    conflicts = [line for line in lines if "[conflicting-instructions]" in line]
    assert len(conflicts) == 2  # pkg and other each contradict the root, not each other
    pkg = next(line for line in conflicts if line.startswith("pkg/AGENTS.md:3:"))
    assert " PI101 " in pkg
    index = lines.index(pkg)
    assert lines[index + 1].startswith("  --> AGENTS.md:3:")
    assert lines[-1].startswith("Found ")


def test_json_output(tmp_path: Path) -> None:
    workspace(tmp_path)
    data = json.loads(check(tmp_path, "--format", "json").stdout)
    [pkg] = [
        d
        for d in data["diagnostics"]
        if d["rule"] == "conflicting-instructions" and d["path"] == "pkg/AGENTS.md"
    ]
    assert (pkg["line"], pkg["column"], pkg["severity"], pkg["code"]) == (3, 3, "warning", "PI101")
    assert pkg["related"][0]["path"] == "AGENTS.md"
    assert pkg["related"][0]["line"] == 3
    assert set(pkg) == {
        "path",
        "line",
        "column",
        "endLine",
        "endColumn",
        "severity",
        "code",
        "rule",
        "message",
        "related",
    }


def test_sarif_output(tmp_path: Path) -> None:
    workspace(tmp_path)
    sarif = json.loads(check(tmp_path, "--format", "sarif").stdout)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    results = [r for r in run["results"] if r["ruleId"] == "PI101"]
    assert len(results) == 2
    rule = run["tool"]["driver"]["rules"][results[0]["ruleIndex"]]
    assert rule["name"] == "conflicting-instructions"


def test_errors_exit_1_and_usage_exits_2(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    (tmp_path / "agent" / "settings.json").write_text("{ not json")
    warned = check(tmp_path)
    assert warned.returncode == 0  # Pi warns and goes on without those settings
    assert "[settings-invalid-json]" in warned.stdout
    # a project that needs trust makes Pi read trust.json, and a broken one stops Pi
    (ws / ".pi").mkdir()
    (ws / ".pi" / "settings.json").write_text("{}")
    (tmp_path / "agent" / "trust.json").write_text("[]")
    proc = check(tmp_path)
    assert proc.returncode == 1
    assert "[trust-store-not-object]" in proc.stdout
    assert check(tmp_path, str(ws / "missing")).returncode == 2
    assert check(tmp_path, "--format", "xml").returncode == 2


def test_a_clean_tree_passes(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "ws" / "AGENTS.md").write_text("Use pnpm.\n")
    proc = check(tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "All checks passed!\n")


def test_a_file_past_the_instruction_budget_is_checked_up_to_it(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    # 600 KiB: two rules, a long code block (cheap to lint), then a rule that contradicts them
    block = "```text\n" + "log line of a build that someone pasted here\n" * 14_000 + "```\n"
    late = 7 + block.count("\n")
    text = f"# Tools\n\n- Use npm.\n- Use pnpm.\n\n{block}\n- Use yarn.\n"
    assert text.splitlines()[late - 1] == "- Use yarn."
    (ws / "pkg" / "AGENTS.md").write_text(text)
    data = json.loads(check(tmp_path, "--format", "json").stdout)
    pkg = [d for d in data["diagnostics"] if d["path"] == "pkg/AGENTS.md"]
    [stopped] = [d for d in pkg if d["rule"] == "instructions-not-checked"]
    assert (stopped["code"], stopped["severity"]) == ("PI104", "information")
    assert "first 512 KiB" in stopped["message"] and "instruction budget" in stopped["message"]
    assert f"from line {stopped['line']} on" in stopped["message"]
    assert 9 < stopped["line"] < late
    # the rule before the cut is compared, the one after it is not
    conflicts = [(d["line"], d["rule"]) for d in pkg if d["rule"].startswith("conflicting")]
    assert conflicts == [(4, "conflicting-instructions")]
