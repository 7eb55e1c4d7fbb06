"""Skill loading: Pi's fixtures, discovery rules, validation messages, collisions and caching."""

from __future__ import annotations

import csv
import errno
import json
import os
import re
from pathlib import Path

import pytest

from pi_lsp.resources import skill_discovery
from pi_lsp.resources.file_source import DISK, OverlayFileSource
from pi_lsp.resources.resource_walk import DirItem, list_directory
from pi_lsp.resources.skills import (
    LoadSkillsResult,
    SkillParseCache,
    SkillRoot,
    SkillScope,
    load_skills,
)
from pi_lsp.resources.templates import (
    TemplateRoot,
    expand_prompt_template,
    expand_skill_command,
    load_prompt_templates,
)
from tests.conformance.harness import build_case, case_dir
from tests.growth import assert_linear_growth
from tests.shared_data import CORPUS, FIXTURES
from tests.unit.helpers import write

PI_FIXTURES = FIXTURES  # skill folders shaped like Pi's fixtures, in the project's words


def skill_md(name: str | None, description: str | None = "Does things.", extra: str = "") -> str:
    lines = ["---"]
    if name is not None:
        lines.append(f"name: {name}")
    if description is not None:
        lines.append(f"description: {description}")
    if extra:
        lines.append(extra)
    return "\n".join([*lines, "---", "", "Body.", ""])


def names(result: LoadSkillsResult) -> list[str]:
    return [skill.name for skill in result.skills]


def rules(result: LoadSkillsResult) -> list[str]:
    return [finding.rule for finding in result.findings]


# --- Pi's fixtures (spec §6.4) -------------------------------------------------------------------


def test_fixture_skills_and_warnings_match_pi() -> None:
    root = PI_FIXTURES / "skills"
    result = load_skills([SkillRoot(str(root), "explicit")])
    assert [(s.name, os.path.relpath(s.file_path, root)) for s in result.skills] == [
        ("bad--name", "consecutive-hyphens/SKILL.md"),
        ("disable-model-invocation", "disable-model-invocation/SKILL.md"),
        ("Invalid_Name", "invalid-name-chars/SKILL.md"),
        (
            "this-is-a-very-long-skill-name-that-exceeds-the-sixty-four-character-limit-set-by-"
            "the-standard",
            "long-name/SKILL.md",
        ),
        ("multiline-description", "multiline-description/SKILL.md"),
        ("different-name", "name-mismatch/SKILL.md"),
        ("child-skill", "nested/child-skill/SKILL.md"),
        ("root-skill-preferred", "root-skill-preferred/SKILL.md"),
        ("unknown-field", "unknown-field/SKILL.md"),
        ("valid-skill", "valid-skill/SKILL.md"),
    ]
    diagnostics = result.pi_diagnostics()
    yaml_message = diagnostics[2]["message"]
    assert "at line 2, column 31" in yaml_message
    assert [(d["type"], d["message"], os.path.relpath(d["path"], root)) for d in diagnostics] == [
        ("warning", "name must not contain consecutive hyphens", "consecutive-hyphens/SKILL.md"),
        (
            "warning",
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
            "invalid-name-chars/SKILL.md",
        ),
        ("warning", yaml_message, "invalid-yaml/SKILL.md"),
        ("warning", "name exceeds 64 characters (94)", "long-name/SKILL.md"),
        ("warning", "description is required", "missing-description/SKILL.md"),
        ("warning", "description is required", "no-frontmatter/SKILL.md"),
    ]
    by_name = {skill.name: skill for skill in result.skills}
    assert by_name["multiline-description"].description == (
        "First line of a literal block.\nSecond line of it.\nThird and last line.\n"
    )
    assert by_name["disable-model-invocation"].disable_model_invocation
    assert not by_name["disable-model-invocation"].visible
    assert by_name["valid-skill"].base_dir == str(root / "valid-skill")


def test_fixture_findings_point_at_the_offending_key() -> None:
    root = PI_FIXTURES / "skills"
    result = load_skills([SkillRoot(str(root), "explicit")])
    located = {
        (os.path.basename(os.path.dirname(f.where.path)), f.rule): (
            f.where.start_line,
            f.where.start_column,
        )
        for f in result.findings
    }
    assert located == {
        ("consecutive-hyphens", "skill-name-consecutive-hyphens"): (1, 0),
        ("invalid-name-chars", "skill-name-invalid-characters"): (1, 0),
        ("invalid-yaml", "skill-invalid-frontmatter"): (2, 30),
        ("long-name", "skill-name-too-long"): (1, 0),
        ("missing-description", "skill-description-required"): (0, 0),
        ("no-frontmatter", "skill-description-required"): (0, 0),
    }
    for finding in result.findings:
        assert finding.severity == "warning"
        assert finding.message and finding.pi_message


def test_fixture_collision_first_wins_and_names_both_files() -> None:
    first = PI_FIXTURES / "skills-collision" / "first"
    second = PI_FIXTURES / "skills-collision" / "second"
    result = load_skills([SkillRoot(str(first), "explicit"), SkillRoot(str(second), "explicit")])
    assert [(s.name, s.description) for s in result.skills] == [
        ("calendar", "Calendar from the first root.")
    ]
    (collision,) = result.findings
    winner = str(first / "calendar" / "SKILL.md")
    loser = str(second / "calendar" / "SKILL.md")
    assert collision.rule == "skill-name-collision"
    assert collision.where.path == loser
    assert collision.where.start_line == 1
    assert winner in collision.message
    assert [r.where.path for r in collision.related] == [winner]
    assert result.pi_diagnostics() == [
        {
            "type": "collision",
            "message": 'name "calendar" collision',
            "path": loser,
            "collision": {
                "resourceType": "skill",
                "name": "calendar",
                "winnerPath": winner,
                "loserPath": loser,
            },
        }
    ]


def test_warnings_come_before_collisions() -> None:
    collision = PI_FIXTURES / "skills-collision"
    result = load_skills(
        [
            SkillRoot(str(collision / "first"), "explicit"),
            SkillRoot(str(collision / "second"), "explicit"),
            SkillRoot(str(PI_FIXTURES / "skills"), "explicit"),
        ]
    )
    kinds = [d["type"] for d in result.pi_diagnostics()]
    assert kinds == ["warning"] * 6 + ["collision"]


# --- golden cases --------------------------------------------------------------------------------


def pi_skill_roots(cwd: Path, agent_dir: Path, home: Path, *, trusted: bool) -> list[SkillRoot]:
    """The auto-discovered skill roots in Pi's order (spec §5.2)."""
    roots: list[SkillRoot] = []
    home_agents = os.path.abspath(home / ".agents" / "skills")
    if trusted:
        roots.append(SkillRoot(str(cwd / ".pi" / "skills"), "pi", "project"))
        git_root = next((d for d in [cwd, *cwd.parents] if (d / ".git").exists()), None)
        for directory in [cwd, *cwd.parents]:
            candidate = directory / ".agents" / "skills"
            if os.path.abspath(candidate) != home_agents:
                roots.append(SkillRoot(str(candidate), "agents", "project"))
            if directory == git_root:
                break
    roots.append(SkillRoot(str(agent_dir / "skills"), "pi", "user"))
    roots.append(SkillRoot(home_agents, "agents", "user"))
    return roots


def expected_skill_list(case: str, replacements: dict[str, str]) -> list[tuple[str, str]]:
    text = (case_dir(case) / "expected-system-prompt.txt").read_text()
    block = text[text.index("<available_skills>") : text.index("</available_skills>")]
    found = re.findall(r"<name>(.*?)</name>.*?<location>(.*?)</location>", block, re.DOTALL)
    out = []
    for name, location in found:
        for placeholder, value in replacements.items():
            location = location.replace(placeholder, value)
        out.append((name, location))
    return out


@pytest.mark.parametrize("case", ["sp-skills-trusted", "sp-skills-untrusted"])
def test_golden_skill_order(case: str, tmp_path: Path) -> None:
    ws = build_case(case, tmp_path)
    trusted = case == "sp-skills-trusted"
    result = load_skills(pi_skill_roots(ws.cwd, ws.agent, ws.home, trusted=trusted))
    visible = [(s.name, s.file_path) for s in result.skills if s.visible]
    replacements = {"{CWD}": str(ws.cwd), "{WS}": str(ws.root), "{AGENT_DIR}": str(ws.agent)}
    expected = expected_skill_list(case, replacements)
    # the expected file escapes XML; names and paths here hold no special characters
    assert visible == expected
    hidden = result.by_name("hidden")
    assert hidden is not None and not hidden.visible
    shared = result.by_name("shared")
    assert shared is not None
    if trusted:
        assert shared.scope == "project"
        (collision,) = [f for f in result.findings if f.rule == "skill-name-collision"]
        assert collision.data["winnerPath"] == shared.file_path
        assert collision.data["loserPath"] == str(ws.agent / "skills" / "shared-name" / "SKILL.md")
    else:
        assert shared.scope == "user"
    xml = result.by_name("xml")
    assert xml is not None and xml.description == "Escapes <tags> & \"quotes\" 'apos'"
    assert xml.name_range is None  # the name comes from the folder
    assert [d for d in result.pi_diagnostics() if d["type"] == "warning"] == []


def test_golden_template_and_skill_command(tmp_path: Path) -> None:
    ws = build_case("prompt-template-skill-command", tmp_path)
    requests = json.loads(
        (case_dir("prompt-template-skill-command") / "expected-requests.json").read_text()
    )
    user_texts = [m["content"][0]["text"] for m in requests[-1]["messages"] if m["role"] == "user"]
    templates = load_prompt_templates([TemplateRoot(str(ws.agent / "prompts"), "auto", "user")])
    skills = load_skills([SkillRoot(str(ws.agent / "skills"), "pi", "user")])
    review = expand_prompt_template('/review src/a.ts "error handling" extra', templates.templates)
    assert review == user_texts[0]
    expansion = expand_skill_command("/skill:alpha do it now", skills.skills)
    assert expansion.error is None
    assert expansion.text == user_texts[1].replace("{AGENT_DIR}", str(ws.agent))
    alpha = skills.by_name("alpha")
    assert alpha is not None and not alpha.visible


# --- discovery rules (spec §5.2) -----------------------------------------------------------------


def test_pi_mode_takes_root_markdown_and_skill_folders(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "root-note.md", skill_md("root-note"))
    write(root / "README.md", "# Just a readme\n")
    write(root / "group" / "nested.md", skill_md("nested-md"))
    write(root / "group" / "inner" / "SKILL.md", skill_md("inner"))
    write(root / "alpha" / "SKILL.md", skill_md("alpha"))
    write(root / "alpha" / "EXTRA.md", skill_md("extra"))
    write(root / "alpha" / "deeper" / "SKILL.md", skill_md("deeper"))
    result = load_skills([SkillRoot(str(root), "pi")])
    assert names(result) == ["alpha", "inner", "root-note"]
    assert result.findings == ()


def test_agents_mode_takes_nested_markdown_only(tmp_path: Path) -> None:
    root = tmp_path / ".agents" / "skills"
    write(root / "top.md", skill_md("top-md"))
    write(root / "group" / "deep.md", skill_md("deep-md"))
    write(root / "group" / "sub" / "deeper.md", skill_md("deeper-md"))
    write(root / "packaged" / "SKILL.md", skill_md("packaged"))
    write(root / "packaged" / "notes.md", skill_md("notes"))
    result = load_skills([SkillRoot(str(root), "agents", "project")])
    assert names(result) == ["deep-md", "deeper-md", "packaged"]
    assert {skill.scope for skill in result.skills} == {"project"}


def test_a_root_holding_skill_md_is_one_skill(tmp_path: Path) -> None:
    root = tmp_path / "single"
    write(root / "SKILL.md", skill_md("single"))
    write(root / "other.md", skill_md("other"))
    write(root / "sub" / "SKILL.md", skill_md("sub"))
    assert names(load_skills([SkillRoot(str(root), "pi")])) == ["single"]


def test_non_skill_markdown_without_description_is_skipped_silently(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "notes.md", "---\nname: notes\n---\nno description")
    write(root / "broken.md", "---\nname: [oops\n---\n")
    write(root / "blank.md", "---\ndescription: '   '\n---\n")
    result = load_skills([SkillRoot(str(root), "pi")])
    assert result.skills == () and result.findings == ()


def test_dot_names_and_node_modules_are_skipped(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / ".hidden" / "x" / "SKILL.md", skill_md("hidden"))
    write(root / "node_modules" / "pkg" / "SKILL.md", skill_md("dep"))
    write(root / ".dot.md", skill_md("dot"))
    write(root / "kept" / "SKILL.md", skill_md("kept"))
    assert names(load_skills([SkillRoot(str(root), "pi")])) == ["kept"]


def test_entries_are_visited_in_byte_order(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for folder, name in [
        ("é-dir", "e-acute"),
        ("a-dir", "lower"),
        ("B-dir", "upper"),
        ("_u", "under"),
    ]:
        write(root / folder / "SKILL.md", skill_md(name))
    assert names(load_skills([SkillRoot(str(root), "pi")])) == [
        "upper",
        "under",
        "lower",
        "e-acute",
    ]


def test_symlinks_are_followed_and_broken_ones_skipped(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere / "linked" / "SKILL.md", skill_md("linked"))
    write(elsewhere / "note.md", skill_md("linked-file"))
    root = tmp_path / "skills"
    root.mkdir()
    (root / "via-link").symlink_to(elsewhere / "linked")
    (root / "file-link.md").symlink_to(elsewhere / "note.md")
    (root / "broken").symlink_to(tmp_path / "missing")
    (root / "broken.md").symlink_to(tmp_path / "missing.md")
    result = load_skills([SkillRoot(str(root), "pi")])
    assert [(s.name, s.file_path) for s in result.skills] == [
        ("linked-file", str(root / "file-link.md")),
        ("linked", str(root / "via-link" / "SKILL.md")),
    ]
    assert result.findings == ()


def test_symlink_loop_terminates_with_a_finding(tmp_path: Path) -> None:
    root = tmp_path / ".agents" / "skills"
    write(root / "group" / "a.md", skill_md("a"))
    (root / "group" / "loop").symlink_to(root)
    (root / "self").symlink_to(".")
    result = load_skills([SkillRoot(str(root), "agents")])
    assert names(result) == ["a"]
    assert sorted(rules(result)) == ["skill-directory-loop", "skill-directory-loop"]
    assert all(f.pi_message is None for f in result.findings)


def test_unreadable_folder_is_a_finding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "skills"
    write(root / "locked" / "inner" / "SKILL.md", skill_md("inner"))
    write(root / "open" / "SKILL.md", skill_md("open"))
    locked = str(root / "locked")

    def refusing(directory: str) -> list[DirItem]:
        if directory == locked:
            raise PermissionError(errno.EACCES, "Permission denied", directory)
        return list_directory(directory)

    monkeypatch.setattr(skill_discovery, "list_directory", refusing)
    result = load_skills([SkillRoot(str(root), "pi")])
    assert names(result) == ["open"]
    (finding,) = result.findings
    assert finding.rule == "skill-directory-unreadable"
    assert finding.where.path == locked
    assert "Permission denied" in finding.message
    assert finding.pi_message is None


def test_non_utf8_file_names(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    root.mkdir()
    raw_root = os.fsencode(root)
    os.mkdir(raw_root + b"/bad\xff")
    with open(raw_root + b"/bad\xff/SKILL.md", "w") as handle:
        handle.write(skill_md("bad-dir"))
    with open(raw_root + b"/\xfe.md", "w") as handle:
        handle.write(skill_md("bad-file"))
    write(root / "good" / "SKILL.md", skill_md("good"))
    result = load_skills([SkillRoot(str(root), "pi")])
    assert names(result) == ["good"]
    assert rules(result) == ["skill-path-not-utf8", "skill-path-not-utf8"]
    for finding in result.findings:
        finding.where.path.encode("utf-8")  # displayable
        json.dumps(finding.to_json())
    assert [f.pi_message for f in result.findings] == [None, "skill path does not exist"]


def test_ignore_files_at_every_level(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / ".gitignore", "# comment\nignored-*/\n/top-only/\nskip-*/\n!skip-but-keep/\n")
    write(root / ".ignore", "from-dot-ignore/\n")
    write(root / ".fdignore", "from-fd-ignore/\n")
    for folder in (
        "ignored-one",
        "Ignored-Two",
        "skip-this",
        "skip-but-keep",
        "from-dot-ignore",
        "from-fd-ignore",
        "group/top-only",
        "group/draft",
        "group/sub/draft",
        "kept",
    ):
        write(root / folder / "SKILL.md", skill_md(folder.replace("/", "-").lower()))
    write(root / "group" / ".gitignore", "draft/\n")
    result = load_skills([SkillRoot(str(root), "pi")])
    # "/top-only/" loses its anchor (Pi drops the leading slash); "draft/" from group/.gitignore
    # becomes "group/draft/", which no longer matches group/sub/draft
    assert names(result) == ["group-sub-draft", "kept", "skip-but-keep"]


def test_ignored_skill_md_lets_the_walk_continue(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "pack" / ".gitignore", "SKILL.md\n")
    write(root / "pack" / "SKILL.md", skill_md("pack"))
    write(root / "pack" / "inner" / "SKILL.md", skill_md("inner"))
    assert names(load_skills([SkillRoot(str(root), "pi")])) == ["inner"]


# --- validation (spec §6.3) ----------------------------------------------------------------------


def test_name_falls_back_to_the_folder(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "from-folder" / "SKILL.md", skill_md(None))
    write(root / "numeric" / "SKILL.md", skill_md("123"))
    write(root / "listed" / "SKILL.md", skill_md("[a, b]"))
    result = load_skills([SkillRoot(str(root), "pi")])
    # "123" is a number and "[a, b]" a list, not strings: the folder names are used
    assert names(result) == ["from-folder", "listed", "numeric"]
    assert result.findings == ()


def test_name_rules(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "a" / "SKILL.md", skill_md("-edge-"))
    write(root / "b" / "SKILL.md", skill_md('"Über--Name"'))
    write(root / "c" / "SKILL.md", skill_md("x" * 32 + "😀" * 17))
    result = load_skills([SkillRoot(str(root), "pi")])
    assert names(result) == ["-edge-", "Über--Name", "x" * 32 + "😀" * 17]
    assert [(f.rule, f.pi_message) for f in result.findings] == [
        ("skill-name-hyphen-edge", "name must not start or end with a hyphen"),
        (
            "skill-name-invalid-characters",
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
        ),
        ("skill-name-consecutive-hyphens", "name must not contain consecutive hyphens"),
        ("skill-name-too-long", "name exceeds 64 characters (66)"),
        (
            "skill-name-invalid-characters",
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
        ),
    ]


def test_name_rules_apply_to_a_folder_name_too(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "Bad_Folder" / "SKILL.md", skill_md(None))
    result = load_skills([SkillRoot(str(root), "pi")])
    assert names(result) == ["Bad_Folder"]
    (finding,) = result.findings
    assert finding.rule == "skill-name-invalid-characters"
    assert "folder" in finding.message
    assert finding.where.start_line == 0


def test_description_rules(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write(root / "long" / "SKILL.md", skill_md("long", "😀" * 600))
    write(root / "exact" / "SKILL.md", skill_md("exact", "x" * 1024))
    write(root / "number" / "SKILL.md", skill_md("number", "42"))
    write(root / "blank" / "SKILL.md", skill_md("blank", "'  '"))
    write(root / "missing-too" / "SKILL.md", skill_md("Bad Name", None))
    result = load_skills([SkillRoot(str(root), "pi")])
    assert names(result) == ["exact", "long"]
    assert [
        (os.path.basename(os.path.dirname(f.where.path)), f.rule, f.pi_message)
        for f in result.findings
    ] == [
        ("blank", "skill-description-required", "description is required"),
        ("long", "skill-description-too-long", "description exceeds 1024 characters (1200)"),
        ("missing-too", "skill-description-required", "description is required"),
        (
            "missing-too",
            "skill-name-invalid-characters",
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)",
        ),
        ("number", "skill-description-required", "description is required"),
    ]
    too_long = result.findings[1]
    assert too_long.where.start_line == 2  # the description key


@pytest.mark.parametrize(
    ("value", "disabled"),
    [("true", True), ("True", True), ('"true"', False), ("yes", False), ("1", False)],
)
def test_disable_model_invocation_is_strictly_boolean(
    tmp_path: Path, value: str, disabled: bool
) -> None:
    write(tmp_path / "s" / "SKILL.md", skill_md("s", extra=f"disable-model-invocation: {value}"))
    (skill,) = load_skills([SkillRoot(str(tmp_path / "s"), "pi")]).skills
    assert skill.disable_model_invocation is disabled


def test_crlf_and_bom(tmp_path: Path) -> None:
    path = tmp_path / "s" / "SKILL.md"
    path.parent.mkdir()
    path.write_bytes(
        b"\xef\xbb\xbf---\r\nname: crlf\r\ndescription: Windows file.\r\n---\r\nBody\r\n"
    )
    (skill,) = load_skills([SkillRoot(str(tmp_path / "s"), "pi")]).skills
    assert (skill.name, skill.description) == ("crlf", "Windows file.")
    assert skill.name_range is not None and skill.name_range.start_line == 1


def test_ranges_of_name_and_description(tmp_path: Path) -> None:
    write(tmp_path / "s" / "SKILL.md", '---\nname: ranged\ndescription: "Quoted."  # note\n---\n')
    (skill,) = load_skills([SkillRoot(str(tmp_path / "s"), "pi")]).skills
    assert skill.name_range is not None and skill.description_range is not None
    assert (skill.name_range.start_line, skill.name_range.end_column) == (1, 12)
    desc = skill.description_range
    assert (desc.start_line, desc.start_column, desc.end_line, desc.end_column) == (2, 0, 2, 22)


# --- explicit paths (spec §6.4) ------------------------------------------------------------------


def test_explicit_paths(tmp_path: Path) -> None:
    write(tmp_path / "custom.md", skill_md("custom"))
    write(tmp_path / "plain.md", "no frontmatter")
    write(tmp_path / "notes.txt", "text")
    folder = tmp_path / "folder"
    write(folder / "top.md", skill_md("top"))
    write(folder / "group" / "nested.md", skill_md("nested"))
    missing = tmp_path / "missing"
    roots = [
        SkillRoot(str(tmp_path / "custom.md"), "explicit", "temporary", source="cli"),
        SkillRoot(str(tmp_path / "plain.md"), "explicit", "temporary"),
        SkillRoot(str(tmp_path / "notes.txt"), "explicit", "temporary"),
        SkillRoot(str(missing), "explicit", "temporary"),
        SkillRoot(str(folder), "explicit", "temporary"),
    ]
    result = load_skills(roots)
    assert names(result) == ["custom", "top"]
    assert result.skills[0].source == "cli" and result.skills[0].scope == "temporary"
    assert result.pi_diagnostics() == [
        {
            "type": "warning",
            "message": "skill path is not a markdown file",
            "path": str(tmp_path / "notes.txt"),
        },
        {"type": "warning", "message": "skill path does not exist", "path": str(missing)},
    ]
    assert rules(result) == ["skill-path-not-markdown", "skill-path-missing"]


def test_missing_discovered_root_is_silent(tmp_path: Path) -> None:
    result = load_skills([SkillRoot(str(tmp_path / "nowhere"), "pi")])
    assert result.skills == () and result.findings == ()


def test_read_error_is_a_warning_with_nodes_message(tmp_path: Path) -> None:
    path = tmp_path / "s" / "SKILL.md"
    write(path, skill_md("s"))

    class Failing:
        def read_bytes(self, p: str) -> bytes:
            raise PermissionError(errno.EACCES, "Permission denied", p)

        def is_file(self, p: str) -> bool:
            return True

        def version(self, p: str) -> object:
            return None

    result = load_skills([SkillRoot(str(tmp_path / "s"), "pi")], Failing())
    assert result.skills == ()
    assert result.pi_diagnostics() == [
        {
            "type": "warning",
            "message": f"EACCES: permission denied, open '{path}'",
            "path": str(path),
        }
    ]
    assert rules(result) == ["skill-read-error"]


def test_same_file_through_two_roots_loads_once(tmp_path: Path) -> None:
    write(tmp_path / "real" / "one" / "SKILL.md", skill_md("one"))
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    result = load_skills(
        [SkillRoot(str(tmp_path / "real"), "pi"), SkillRoot(str(tmp_path / "alias"), "pi")]
    )
    assert names(result) == ["one"]
    assert result.findings == ()
    assert result.files == (str(tmp_path / "real" / "one" / "SKILL.md"),)


def test_project_skill_beats_user_skill(tmp_path: Path) -> None:
    write(tmp_path / "project" / "shared" / "SKILL.md", skill_md("shared", "Project."))
    write(tmp_path / "user" / "shared" / "SKILL.md", skill_md("shared", "User."))
    scopes: list[tuple[str, SkillScope]] = [("project", "project"), ("user", "user")]
    result = load_skills([SkillRoot(str(tmp_path / p), "pi", s) for p, s in scopes])
    assert [(s.description, s.scope) for s in result.skills] == [("Project.", "project")]
    assert rules(result) == ["skill-name-collision"]


# --- bad input -----------------------------------------------------------------------------------


def test_binary_skill_md(tmp_path: Path) -> None:
    noise = bytes(range(256)) * 64
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "SKILL.md").write_bytes(noise)
    (tmp_path / "bin-fm").mkdir()
    (tmp_path / "bin-fm" / "SKILL.md").write_bytes(b"---\nname: x\x00\xff\xfe\n---\n" + noise)
    result = load_skills([SkillRoot(str(tmp_path), "pi")])
    assert result.skills == ()
    assert rules(result) == ["skill-description-required", "skill-invalid-frontmatter"]


def _write_big_skills(root: Path, scale: int) -> SkillRoot:
    """A SKILL.md with a long body and one with a long description, both ``scale`` times bigger."""
    body = ("A line of instructions that goes on for a while. " * 20 + "\n") * (650 * scale)
    write(root / "big" / "SKILL.md", skill_md("big") + body)
    long_description = "word " * (125_000 * scale)
    write(root / "huge-desc" / "SKILL.md", skill_md("huge-desc", long_description.strip()))
    return SkillRoot(str(root), "pi")


@pytest.mark.timeout(60)
def test_five_megabyte_skill_md(tmp_path: Path) -> None:
    small, large = (
        _write_big_skills(tmp_path / "small", 1),
        _write_big_skills(tmp_path / "large", 8),
    )
    assert (tmp_path / "large" / "big" / "SKILL.md").stat().st_size > 5_000_000
    # a parser that backtracks or rescans on a long body or value would grow quadratically
    assert_linear_growth(lambda: load_skills([small]), lambda: load_skills([large]), factor=8)
    result = load_skills([large])
    assert names(result) == ["big", "huge-desc"]
    assert rules(result) == ["skill-description-too-long"]


def _corpus_rows() -> list[tuple[str, Path]]:
    rows: list[tuple[str, Path]] = []
    for table, folder in (("MANIFEST.tsv", "repos"), ("FIXTURES.tsv", "fixtures")):
        with open(CORPUS / table, newline="", encoding="utf-8") as handle:
            for row in csv.DictReader(handle, delimiter="\t"):
                if row["kind"] in ("skill", "prompt"):
                    path = CORPUS / folder / row["repo"].replace("/", "__") / row["path"]
                    rows.append((row["kind"], path))
    return rows


@pytest.mark.shared
def test_every_corpus_skill_and_template_loads() -> None:
    rows = _corpus_rows()
    assert len(rows) > 250
    skills = [path for kind, path in rows if kind == "skill"]
    prompts = [path for kind, path in rows if kind == "prompt"]
    for path in skills:
        result = load_skills([SkillRoot(str(path), "explicit")])
        if path.name == "SKILL.md":
            # a declared skill either loads or says why not
            assert result.skills or result.findings, path
        for finding in result.findings:
            json.dumps(finding.to_json())
    loaded = load_prompt_templates([TemplateRoot(str(path), "explicit") for path in prompts])
    assert len(loaded.files) == len(prompts)
    assert len(loaded.templates) + sum(
        1 for f in loaded.findings if f.rule != "template-name-collision"
    ) >= len({path.name for path in prompts})


# --- incremental reloads -------------------------------------------------------------------------


def test_cache_reparses_only_the_changed_file(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    for index in range(20):
        write(root / f"s{index:02d}" / "SKILL.md", skill_md(f"s{index:02d}"))
    cache = SkillParseCache()
    first = load_skills([SkillRoot(str(root), "pi")], cache=cache)
    assert (first.parsed, first.reused, len(cache)) == (20, 0, 20)
    again = load_skills([SkillRoot(str(root), "pi")], cache=cache)
    assert (again.parsed, again.reused) == (0, 20)
    changed = root / "s07" / "SKILL.md"
    write(changed, skill_md("s07", "Changed description."))
    stat = changed.stat()
    os.utime(changed, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    third = load_skills([SkillRoot(str(root), "pi")], cache=cache)
    assert (third.parsed, third.reused) == (1, 19)
    assert third.by_name("s07") is not None
    assert third.by_name("s07").description == "Changed description."  # type: ignore[union-attr]
    (root / "s03" / "SKILL.md").unlink()
    fourth = load_skills([SkillRoot(str(root), "pi")], cache=cache)
    assert len(fourth.skills) == 19 and len(cache) == 19


def test_unsaved_buffers_are_laid_over_the_disk(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    path = write(root / "edited" / "SKILL.md", skill_md("edited", "On disk."))
    write(root / "other" / "SKILL.md", skill_md("other"))
    cache = SkillParseCache()
    load_skills([SkillRoot(str(root), "pi")], DISK, cache=cache)
    buffers = {str(path): (1, skill_md("edited", "In the editor."))}
    overlay = OverlayFileSource(buffers)
    result = load_skills([SkillRoot(str(root), "pi")], overlay, cache=cache)
    assert result.by_name("edited") is not None
    assert result.by_name("edited").description == "In the editor."  # type: ignore[union-attr]
    assert (result.parsed, result.reused) == (1, 1)
    buffers[str(path)] = (2, skill_md("Edited", "Typing."))
    typed = load_skills([SkillRoot(str(root), "pi")], overlay, cache=cache)
    assert (typed.parsed, typed.reused) == (1, 1)
    assert rules(typed) == ["skill-name-invalid-characters"]
