"""``pi-lsp prompt`` as a user runs it: the installed console script in a subprocess."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.isolated import run_pi_lsp


def run(tmp: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_pi_lsp(tmp, "prompt", *args, cwd=cwd or tmp / "proj")


def setup(tmp: Path) -> Path:
    for name in ("home", "agent", "proj"):
        (tmp / name).mkdir()
    (tmp / "agent" / "AGENTS.md").write_text("Use tabs.\n")
    (tmp / "proj" / "AGENTS.md").write_text("Use spaces.\n")
    skill = tmp / "agent" / "skills" / "Bad_Skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: Bad_Skill\ndescription: Demo.\n---\nBody\n")
    return tmp / "proj"


def test_prints_the_prompt_and_reports_problems_on_stderr(tmp_path: Path) -> None:
    proj = setup(tmp_path)
    proc = run(tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.endswith(f"\nCurrent working directory: {proj}")
    assert f'<project_instructions path="{tmp_path}/agent/AGENTS.md">\nUse tabs.\n' in proc.stdout
    assert "<name>Bad_Skill</name>" in proc.stdout
    skill_file = tmp_path / "agent" / "skills" / "Bad_Skill" / "SKILL.md"
    assert f"{skill_file}:2:1: warning: " in proc.stderr
    assert "[skill-name-invalid-characters]" in proc.stderr


def test_custom_prompt_and_append_from_files(tmp_path: Path) -> None:
    setup(tmp_path)
    (tmp_path / "sys.md").write_text("You are a test agent.")
    proc = run(
        tmp_path,
        "--system-prompt",
        str(tmp_path / "sys.md"),
        "--append-system-prompt",
        "extra",
        "--no-context-files",
        "--tools",
        "edit",
    )
    assert proc.stdout == (
        f"You are a test agent.\n\nextra\nCurrent working directory: {tmp_path / 'proj'}\n"
    )


def test_json_gives_spans_sources_and_tokens(tmp_path: Path) -> None:
    setup(tmp_path)
    proc = run(tmp_path, "--json")
    data = json.loads(proc.stdout)
    assert data["tools"] == ["read", "bash", "edit", "write"]
    assert data["tokenizer"] == "cl100k_base"
    assert data["tokens"] > 0 and data["estimate"] == -(-len(data["text"]) // 4)
    files = [s for s in data["spans"] if s["kind"] == "context-file"]
    assert [s["source"]["path"] for s in files] == data["contextFiles"]
    assert data["text"][files[1]["start"] : files[1]["end"]] == "Use spaces.\n"
    assert data["findings"][0]["rule"] == "skill-name-invalid-characters"
    assert data["trusted"] is True


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    setup(tmp_path)
    bad_tool = run(tmp_path, "--tools", "read,nope")
    assert (bad_tool.returncode, bad_tool.stderr) == (
        2,
        "pi-lsp: unknown tool(s) in --tools: nope\n",
    )
    missing = run(tmp_path, "--cwd", str(tmp_path / "missing"))
    assert missing.returncode == 2
    assert "working directory does not exist" in missing.stderr
    both = run(tmp_path, "--approve", "--no-approve")
    assert both.returncode == 2


def test_findings_name_files_as_check_does(tmp_path: Path) -> None:
    """Relative to the working directory inside it, ~/ under home, absolute elsewhere."""
    proj = setup(tmp_path)
    skill = proj / ".pi" / "skills" / "Proj_Skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: Proj_Skill\ndescription: Demo.\n---\n")
    home_skill = tmp_path / "home" / ".agents" / "skills" / "Home_Skill"
    home_skill.mkdir(parents=True)
    (home_skill / "SKILL.md").write_text("---\nname: Home_Skill\ndescription: Demo.\n---\n")
    proc = run(tmp_path, "--approve")
    lines = proc.stderr.splitlines()
    assert ".pi/skills/Proj_Skill/SKILL.md:2:1: warning: " in proc.stderr, proc.stderr
    assert "~/.agents/skills/Home_Skill/SKILL.md:2:1: warning: " in proc.stderr
    agent_skill = tmp_path / "agent" / "skills" / "Bad_Skill" / "SKILL.md"
    assert any(line.startswith(f"{agent_skill}:2:1: ") for line in lines)
    assert str(proj) not in proc.stderr
