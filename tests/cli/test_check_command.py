"""``pi-lsp check`` as a user runs it: text like ruff's, JSON, SARIF and exit codes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from urllib.parse import urljoin, urlparse
from urllib.request import url2pathname

from tests.cli.isolated import isolated_env, run_pi_lsp


def check(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_pi_lsp(tmp, "check", *args, cwd=tmp / "ws")


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
    assert proc.returncode == 1, proc.stderr  # conflicts are warnings: they fail by default
    lines = proc.stdout.splitlines()
    conflicts = [line for line in lines if "[conflicting-instructions]" in line]
    assert len(conflicts) == 2  # pkg and other each contradict the root, not each other
    pkg = next(line for line in conflicts if line.startswith("pkg/AGENTS.md:3:"))
    assert " PI101 " in pkg
    # the message names the other file as pkg/AGENTS.md would: relative to its folder
    assert "but ../AGENTS.md says" in pkg
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
    warned = check(tmp_path, "--fail-on", "error")
    assert warned.returncode == 0  # Pi warns and goes on without those settings
    assert "[settings-invalid-json]" in warned.stdout
    # a project that needs trust makes Pi read trust.json, and a broken one stops Pi
    (ws / ".pi").mkdir()
    (ws / ".pi" / "settings.json").write_text("{}")
    (tmp_path / "agent" / "trust.json").write_text("[]")
    proc = check(tmp_path, "--fail-on", "error")
    assert proc.returncode == 1
    assert "[trust-store-not-object]" in proc.stdout
    assert check(tmp_path, str(ws / "missing")).returncode == 2
    assert check(tmp_path, "--format", "xml").returncode == 2
    bad_level = check(tmp_path, "--fail-on", "warnings")
    assert bad_level.returncode == 2
    assert "--fail-on" in bad_level.stderr and "'warning'" in bad_level.stderr


def broken_project(tmp: Path) -> Path:
    """Broken project settings, a skill Pi cannot load and three conflicts (trusted)."""
    ws = workspace(tmp)
    (ws / ".pi" / "skills" / "notes").mkdir(parents=True)
    (ws / ".pi" / "settings.json").write_text('{"theme": ')
    (ws / ".pi" / "skills" / "notes" / "SKILL.md").write_text("---\nname: notes\n---\nBody\n")
    (ws / "AGENTS.md").write_text(
        "# Tools\n\n- Use npm to install packages.\n- Run tests with jest.\n- Indent with tabs.\n"
    )
    (ws / "pkg" / "AGENTS.md").write_text(
        "# Tools\n\n- Always use pnpm.\n- Run tests with vitest.\n- Indent with spaces.\n"
    )
    return ws


def test_warnings_fail_by_default_and_fail_on_sets_the_level(tmp_path: Path) -> None:
    broken_project(tmp_path)
    default = check(tmp_path, "--approve")
    assert "[settings-invalid-json]" in default.stdout
    assert "[skill-description-required]" in default.stdout
    assert default.stdout.count("[conflicting-instructions]") >= 3
    assert default.returncode == 1  # all of them are warnings
    assert check(tmp_path, "--approve", "--fail-on", "error").returncode == 0
    assert check(tmp_path, "--approve", "--fail-on", "never").returncode == 0


def test_information_fails_from_fail_on_info(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "ws" / "AGENTS.md").write_text("")  # an empty context file: information
    proc = check(tmp_path, "--format", "json")
    assert {d["severity"] for d in json.loads(proc.stdout)["diagnostics"]} == {"information"}
    assert proc.returncode == 0  # below the default level
    assert check(tmp_path, "--fail-on", "info").returncode == 1
    assert check(tmp_path, "--fail-on", "hint").returncode == 1


def test_help_documents_the_exit_codes(tmp_path: Path) -> None:
    workspace(tmp_path)
    text = " ".join(check(tmp_path, "--help").stdout.split())
    assert "{error,warning,info,hint,never}" in text
    assert "0 when nothing at or above the --fail-on level is found, 1 when something is" in text
    assert "2 on usage errors" in text


def test_every_format_names_a_file_the_same_way(tmp_path: Path) -> None:
    """Relative to the checked folder inside it, ~/ under the home folder, else absolute."""
    workspace(tmp_path)
    agent = tmp_path / "home" / ".pi" / "agent"
    skill = agent / "skills" / "Bad_Skill"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: Bad_Skill\ndescription: Demo skill.\n---\n")
    env = isolated_env(tmp_path)
    del env["PI_CODING_AGENT_DIR"]  # the default agent dir, under the home folder

    def run(*args: str) -> str:
        return run_pi_lsp(tmp_path, "check", *args, cwd=tmp_path / "ws", env=env).stdout

    home_skill = "~/.pi/agent/skills/Bad_Skill/SKILL.md"
    text = run()
    assert f"{home_skill}:2:1: PI304 " in text
    assert "pkg/AGENTS.md:3:3: PI101 " in text
    data = json.loads(run("--format", "json"))
    paths = {d["path"] for d in data["diagnostics"]}
    assert {home_skill, "pkg/AGENTS.md", "other/AGENTS.md"} <= paths
    assert data["contextFiles"] == ["AGENTS.md", "other/AGENTS.md", "pkg/AGENTS.md"]
    sarif = json.loads(run("--format", "sarif"))
    locations = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]
        for r in sarif["runs"][0]["results"]
    ]
    # inside the checked folder relative to ROOT, elsewhere an absolute file:// URI; every one
    # resolves to the file the diagnostic is about
    bases = sarif["runs"][0]["originalUriBaseIds"]
    inside = {loc["uri"] for loc in locations if loc.get("uriBaseId") == "ROOT"}
    assert inside == paths - {home_skill}
    outside = [loc for loc in locations if "uriBaseId" not in loc]
    assert {loc["uri"] for loc in outside} == {(skill / "SKILL.md").as_uri()}
    for loc in locations:
        uri = (
            urljoin(bases[loc["uriBaseId"]]["uri"], loc["uri"])
            if "uriBaseId" in loc
            else loc["uri"]
        )
        assert urlparse(uri).scheme == "file"
        assert Path(url2pathname(urlparse(uri).path)).is_file(), uri
    assert str(tmp_path) not in text + json.dumps(data["diagnostics"])
    # checking a subfolder: its own files relative to it, the parent's absolute
    sub = run("--format", "json", "pkg")
    related = [r["path"] for d in json.loads(sub)["diagnostics"] for r in d["related"]]
    assert str(tmp_path / "ws" / "AGENTS.md") in related


def test_a_clean_tree_passes(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "ws" / "AGENTS.md").write_text("Use pnpm.\n")
    proc = check(tmp_path)
    assert (proc.returncode, proc.stdout) == (0, "All checks passed!\n")


def test_a_folder_without_context_files_says_so(tmp_path: Path) -> None:
    for name in ("ws/src", "home", "agent"):
        (tmp_path / name).mkdir(parents=True)
    proc = check(tmp_path)
    assert proc.returncode == 0
    assert proc.stdout == (
        f"No context files found for {tmp_path / 'ws'} (looked for AGENTS.override.md / "
        "AGENTS.md / CLAUDE.md from / down to there, in the folders below it and in the "
        f"agent dir {tmp_path / 'agent'})\n"
    )
    assert "All checks passed" not in proc.stdout
    data = json.loads(check(tmp_path, "--format", "json").stdout)
    assert (data["diagnostics"], data["contextFiles"]) == ([], [])
    assert data["notes"][0].startswith("No context files found for ")
    sarif = json.loads(check(tmp_path, "--format", "sarif").stdout)
    [note] = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert note["message"]["text"] == data["notes"][0]
    # one context file in the agent dir is enough
    (tmp_path / "agent" / "AGENTS.md").write_text("Use pnpm.\n")
    assert check(tmp_path).stdout == "All checks passed!\n"


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
    assert "first 256 KiB" in stopped["message"] and "instruction budget" in stopped["message"]
    assert f"from line {stopped['line']} on" in stopped["message"]
    assert 9 < stopped["line"] < late
    # the rule before the cut is compared, the one after it is not
    conflicts = [(d["line"], d["rule"]) for d in pkg if d["rule"].startswith("conflicting")]
    assert conflicts == [(4, "conflicting-instructions")]


def test_an_untrusted_skills_folder_is_reported_on_a_skill_file_near_its_top(
    tmp_path: Path,
) -> None:
    """The PI203 finding opens a SKILL.md one folder down (not a deeper one, never a binary
    file); a skills folder with neither points at the project's context file instead."""
    (tmp_path / "home").mkdir()
    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "AGENTS.md").write_text("Use pnpm.\n")
    skills = ws / ".agents" / "skills"
    (skills / "a" / "nested").mkdir(parents=True)
    (skills / "a" / "nested" / "SKILL.md").write_text("---\nname: nested\n---\n")
    (skills / "a" / "icon.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (skills / "z").mkdir()
    (skills / "z" / "SKILL.md").write_text("---\nname: z\ndescription: Zed the zone.\n---\n")
    data = json.loads(check(tmp_path, "--format", "json").stdout)
    assert [d["path"] for d in data["diagnostics"] if d["code"] == "PI203"] == [
        ".agents/skills/z/SKILL.md"
    ]
    # only binary files and deep skills: the finding goes to the context file
    (skills / "z" / "SKILL.md").unlink()
    data = json.loads(check(tmp_path, "--format", "json").stdout)
    assert [d["path"] for d in data["diagnostics"] if d["code"] == "PI203"] == ["AGENTS.md"]
