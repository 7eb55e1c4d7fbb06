"""``pi-lsp check`` and ``pi-lsp prompt`` on a skill whose quoted description goes on for
several lines (valid YAML 1.2): they answer at once and read the description as Pi does.

A description line without its closing quote once sent the frontmatter scanner into
exponential backtracking (29 characters: 17 s, each more doubled it); these lines are long
enough that the old pattern would not finish within the subprocess timeout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PI_LSP = Path(sys.executable).parent / "pi-lsp"

FIRST = "Draft release notes from the merged PRs of the last milestone,"
SECOND = "grouped by area and sorted by impact."


def run(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    return subprocess.run(
        [str(PI_LSP), *args],
        cwd=tmp / "ws",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def skill(tmp: Path, name: str, frontmatter: str) -> None:
    folder = tmp / "agent" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\n{frontmatter}\n---\n\nSteps for {name}.\n")


def workspace(tmp: Path) -> None:
    for name in ("home", "ws"):
        (tmp / name).mkdir(parents=True)
    (tmp / "ws" / "AGENTS.md").write_text("# Project\n\n- Keep the changelog current.\n")
    skill(tmp, "release-notes", f'name: release-notes\ndescription: "{FIRST}\n  {SECOND}"')
    skill(tmp, "quoted-once", f"name: quoted-once\ndescription: '{FIRST}\n  {SECOND}'")


def test_check_reads_a_quoted_description_over_two_lines(tmp_path: Path) -> None:
    workspace(tmp_path)
    proc = run(tmp_path, "check", "--format", "json")
    assert proc.returncode == 0, proc.stderr
    findings = json.loads(proc.stdout)["diagnostics"]
    # no skill problem: the description is there and the YAML is valid
    assert [f for f in findings if "skills/" in f["path"]] == []


def test_check_reports_the_line_of_an_unclosed_quote(tmp_path: Path) -> None:
    workspace(tmp_path)
    skill(tmp_path, "never-closed", f'name: never-closed\ndescription: "{FIRST}\n  {SECOND}')
    proc = run(tmp_path, "check", "--format", "json")
    findings = json.loads(proc.stdout)["diagnostics"]
    [broken] = [f for f in findings if "never-closed" in f["path"]]
    assert broken["rule"] == "skill-invalid-frontmatter"
    assert "not valid YAML" in broken["message"]
    assert broken["path"].endswith("never-closed/SKILL.md")
    assert broken["line"] == 4  # the quote is still open where the block ends
    others = [f for f in findings if "release-notes" in f["path"] or "quoted-once" in f["path"]]
    assert others == []


def test_prompt_lists_the_description_joined_as_yaml_folds_it(tmp_path: Path) -> None:
    workspace(tmp_path)
    proc = run(tmp_path, "prompt")
    assert proc.returncode == 0, proc.stderr
    # YAML folds the line break and the next line's indentation into one space (Pi agrees)
    assert f"<description>{FIRST} {SECOND}</description>" in proc.stdout
    assert proc.stdout.count(f"{FIRST} {SECOND}") == 2  # both quoting styles
