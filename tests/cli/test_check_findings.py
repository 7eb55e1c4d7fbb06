"""``pi-lsp check`` over trees with several working directories: each problem once, on a file
the user can open, saying where it applies."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PI_LSP = Path(sys.executable).parent / "pi-lsp"

SKILL = "---\nname: {name}\ndescription: Review the pull request line by line.\n---\nBody.\n"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def diagnostics(tmp: Path, *args: str) -> list[dict[str, Any]]:
    """What ``pi-lsp check --format json`` reports for ``tmp/ws``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    proc = subprocess.run(
        [str(PI_LSP), "check", "--format", "json", *args],
        cwd=tmp / "ws",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.stdout, proc.stderr
    found: list[dict[str, Any]] = json.loads(proc.stdout)["diagnostics"]
    return found


def tree(tmp: Path, folders: tuple[str, ...] = ("a", "b", "c/d", "c/e")) -> Path:
    """A workspace with a context file at the root and in each of ``folders``."""
    (tmp / "home").mkdir(parents=True)
    (tmp / "agent").mkdir(parents=True)
    ws = tmp / "ws"
    write(ws / "AGENTS.md", "# Project\n")
    for folder in folders:
        write(ws / folder / "AGENTS.md", f"# {folder}\n")
    return ws


def of_rule(found: list[dict[str, Any]], code: str) -> list[dict[str, Any]]:
    return [d for d in found if d["code"] == code]


# --- untrusted project resources -------------------------------------------------------------


def test_an_untrusted_skills_folder_is_reported_once_on_a_skill_file(tmp_path: Path) -> None:
    ws = tree(tmp_path)
    write(ws / ".agents" / "skills" / "NOTES.txt", "not a skill\n")
    write(ws / ".agents" / "skills" / "review" / "SKILL.md", SKILL.format(name="review"))
    [finding] = of_rule(diagnostics(tmp_path), "PI203")  # not once per working directory
    assert finding["path"] == ".agents/skills/review/SKILL.md"
    assert (ws / finding["path"]).is_file()
    assert ".agents/skills" in finding["message"]
    # the project by its folder's name, never a path of this machine
    assert f"of the project `{ws.name}`" in finding["message"]
    assert str(tmp_path) not in finding["message"]


def test_an_empty_untrusted_folder_is_reported_on_the_projects_context_file(
    tmp_path: Path,
) -> None:
    ws = tree(tmp_path)
    (ws / ".agents" / "skills").mkdir(parents=True)
    [finding] = of_rule(diagnostics(tmp_path), "PI203")
    assert finding["path"] == "AGENTS.md"
    assert ".agents/skills" in finding["message"]


def test_a_trusted_project_has_no_untrusted_finding(tmp_path: Path) -> None:
    ws = tree(tmp_path)
    write(ws / ".agents" / "skills" / "review" / "SKILL.md", SKILL.format(name="review"))
    assert of_rule(diagnostics(tmp_path, "--approve"), "PI203") == []


# --- CLAUDE.md linked to AGENTS.md -----------------------------------------------------------


def test_a_claude_md_linked_to_agents_md_is_the_same_file(tmp_path: Path) -> None:
    ws = tree(tmp_path, ("linked", "copied"))
    os.symlink("AGENTS.md", ws / "linked" / "CLAUDE.md")
    write(ws / "copied" / "CLAUDE.md", "# copied\n")
    shadowed = of_rule(diagnostics(tmp_path), "PI201")
    assert [d["path"] for d in shadowed] == ["copied/CLAUDE.md"]


# --- a copied block of sentences -------------------------------------------------------------

BLOCK = (
    "- Run the full test suite before every commit.\n"
    "- Keep the changelog up to date with each change.\n"
    "- Be brief.\n"
    "- Write docstrings for every public function.\n"
    "- Never commit generated files to the repository.\n"
)


def test_a_copied_block_is_one_duplicate_with_the_blocks_range(tmp_path: Path) -> None:
    ws = tree(tmp_path, ())
    write(
        ws / "AGENTS.md",
        "# Project\n\n" + BLOCK + "\n## Other\n\nAsk before deleting any branch on the remote.\n",
    )
    write(
        ws / "pkg" / "AGENTS.md",
        "# Package\n\nThis package serves the public API.\n\n## Copied from the root\n\n"
        + BLOCK
        + "\n## Own rules\n\nUse the local database for tests.\n"
        "Ask before deleting any branch on the remote.\n",
    )
    found = of_rule(diagnostics(tmp_path), "PI103")
    assert [(d["path"], d["line"], d["endLine"]) for d in found] == [
        ("pkg/AGENTS.md", 7, 11),  # the block: five sentences, one finding
        ("pkg/AGENTS.md", 16, 16),  # a sentence copied on its own elsewhere
    ]
    block = found[0]
    assert (block["column"], block["endColumn"]) == (3, len(BLOCK.splitlines()[-1]) + 1)
    assert [(r["path"], r["line"]) for r in block["related"]] == [("AGENTS.md", 3)]
    assert "5 instructions" in block["message"]


# --- skill collisions across working directories -----------------------------------------------


def test_a_skill_collision_names_the_working_directories_it_holds_for(tmp_path: Path) -> None:
    ws = tree(tmp_path, ("a", "b"))
    user_skill = write(
        tmp_path / "agent" / "skills" / "review" / "SKILL.md", SKILL.format(name="review")
    )
    write(ws / ".agents" / "skills" / "review" / "SKILL.md", SKILL.format(name="review"))
    write(ws / "a" / ".pi" / "skills" / "review" / "SKILL.md", SKILL.format(name="review"))
    found = of_rule(diagnostics(tmp_path, "--approve"), "PI308")

    def where(path: str) -> Path:  # a path as reported, inside the tree or not
        return (ws / path).resolve()

    by_winner = {(where(d["path"]), where(d["related"][0]["path"])): d["message"] for d in found}
    project_skill = ws / ".agents" / "skills" / "review" / "SKILL.md"
    a_skill = ws / "a" / ".pi" / "skills" / "review" / "SKILL.md"
    assert set(by_winner) == {
        (user_skill, project_skill),
        (user_skill, a_skill),
        (project_skill, a_skill),
    }
    # the root and b see the same collision: one finding naming both
    assert by_winner[(user_skill, project_skill)].endswith(
        "in the working directories `.` and `b`."
    )
    assert by_winner[(user_skill, a_skill)].endswith("in the working directory `a`.")
    assert by_winner[(project_skill, a_skill)].endswith("in the working directory `a`.")


# --- acknowledged overrides and scopes -------------------------------------------------------


def check_text(tmp: Path) -> subprocess.CompletedProcess[str]:
    """``pi-lsp check`` in its text format, run in ``tmp/ws``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    return subprocess.run(
        [str(PI_LSP), "check"],
        cwd=tmp / "ws",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_acknowledged_override_is_its_own_rule_and_names_the_root_file(tmp_path: Path) -> None:
    ws = tree(tmp_path, ())
    write(ws / "AGENTS.md", "# Project\n\n- Use pnpm.\n")
    write(
        ws / "legacy" / "AGENTS.md", "# Legacy\n\nThis package overrides the root rule: use npm.\n"
    )
    [found] = diagnostics(tmp_path)
    assert (found["code"], found["rule"], found["severity"]) == (
        "PI106",
        "acknowledged-override",
        "information",
    )
    assert found["path"] == "legacy/AGENTS.md"
    assert "../AGENTS.md" in found["message"]
    assert "\u201cUse pnpm.\u201d" in found["message"]
    assert [r["path"] for r in found["related"]] == ["AGENTS.md"]
    proc = check_text(tmp_path)
    assert proc.returncode == 0, proc.stdout  # information does not fail the check
    assert (
        "legacy/AGENTS.md:3:1: PI106 Overrides the package manager of ../AGENTS.md" in proc.stdout
    )
    assert "[acknowledged-override]" in proc.stdout
    assert "conflicting-instructions" not in proc.stdout


def test_the_same_override_without_its_acknowledgment_is_a_conflict(tmp_path: Path) -> None:
    ws = tree(tmp_path, ())
    write(ws / "AGENTS.md", "# Project\n\n- Use pnpm.\n")
    write(ws / "legacy" / "AGENTS.md", "# Legacy\n\nUse npm instead of pnpm.\n")
    [found] = diagnostics(tmp_path)
    assert (found["rule"], found["severity"]) == ("conflicting-instructions", "warning")


def test_rules_of_different_language_sections_are_not_a_conflict(tmp_path: Path) -> None:
    ws = tree(tmp_path, ())
    write(ws / "AGENTS.md", "# Style\n\n## Python\n\n- Use 4 spaces for indentation.\n")
    write(ws / "web" / "AGENTS.md", "# Web\n\n## TypeScript\n\n- Use 2 spaces for indentation.\n")
    assert of_rule(diagnostics(tmp_path), "PI101") == []
