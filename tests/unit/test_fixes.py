"""The fixes engine as plain functions: findings in, edits out, applied to the text here."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pi_lsp.lint import conflicts
from pi_lsp.lint.catalogue import load_catalogue, merge, parse_roles
from pi_lsp.lint.conflicts import (
    ACKNOWLEDGED_OVERRIDE,
    CONFLICT,
    CONFLICT_IN_FILE,
    DUPLICATE,
    find_conflicts,
)
from pi_lsp.lint.fixes import (
    PLACEHOLDER_DESCRIPTION,
    Fix,
    FixContext,
    TextEdit,
    TrustProject,
    apply_edits,
    description_draft,
    finding_fixes,
    yaml_scalar,
)
from pi_lsp.lint.vocabulary import Vocabulary, using
from pi_lsp.resources.frontmatter import parse_frontmatter
from pi_lsp.resources.model import Finding, SourceRange, name_collision_finding
from pi_lsp.resources.skill_files import analyze_skill_text


def context(files: dict[str, str], **options: object) -> FixContext:
    return FixContext(text_of=files.get, **options)  # type: ignore[arg-type]


def applied(files: dict[str, str], fix: Fix) -> dict[str, str]:
    """The files after ``fix`` (edits, then renames of folders)."""
    out = dict(files)
    for path in {e.path for e in fix.edits}:
        out[path] = apply_edits(out[path], [e for e in fix.edits if e.path == path])
    for old, new in fix.renames:
        for path in [p for p in out if p.startswith(old + "/")]:
            out[new + path[len(old) :]] = out.pop(path)
    return out


# --- apply_edits, yaml_scalar --------------------------------------------------------------------


def test_apply_edits_counts_code_points_and_keeps_crlf() -> None:
    text = "a📦b\r\nsecond\r\n"
    edits = [
        TextEdit(SourceRange("f", 0, 2, 0, 3), "B"),
        TextEdit(SourceRange("f", 1, 0, 1, 0), ">"),
    ]
    assert apply_edits(text, edits) == "a📦B\r\n>second\r\n"


def test_apply_edits_refuses_overlaps() -> None:
    edits = [TextEdit(SourceRange("f", 0, 0, 0, 3), ""), TextEdit(SourceRange("f", 0, 2, 0, 4), "")]
    with pytest.raises(ValueError):
        apply_edits("abcdef", edits)


@pytest.mark.parametrize(
    ("value", "written"),
    [
        ("review-2", "review-2"),
        ("révision-2", "révision-2"),
        ("true", '"true"'),
        ("12", '"12"'),
        ("a: b", '"a: b"'),
        ("-x", '"-x"'),
        ('say "hi" # now', '"say \\"hi\\" # now"'),
    ],
)
def test_yaml_scalar_reads_back_as_the_string(value: str, written: str) -> None:
    assert yaml_scalar(value) == written
    assert parse_frontmatter(f"---\nk: {written}\n---\n").data["k"] == value


# --- skill-name-collision ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Named:
    name: str
    file_path: str

    @property
    def location(self) -> SourceRange:
        return SourceRange.line(self.file_path, 1)


def collision(loser: str, winner: str, name: str) -> Finding:
    return name_collision_finding(
        _Named(name, loser),
        _Named(name, winner),
        resource_type="skill",
        rule="skill-name-collision",
        message="collides",
        related="the winner",
        pi_name=name,
    )


LOSER = "/p/.agents/skills/review/SKILL.md"
WINNER = "/p/.pi/skills/review/SKILL.md"


def test_collision_renames_name_and_folder_when_the_editor_can() -> None:
    files = {LOSER: "---\nname: review\ndescription: Checks changes.\n---\nBody\n"}
    ctx = context(files, skill_names=frozenset({"review", "review-2"}), can_rename=True)
    [fix] = finding_fixes(collision(LOSER, WINNER, "review"), ctx)
    assert fix.title == 'Rename the skill to "review-3", and its folder'
    assert fix.preferred
    assert fix.renames == (("/p/.agents/skills/review", "/p/.agents/skills/review-3"),)
    after = applied(files, fix)
    assert after["/p/.agents/skills/review-3/SKILL.md"].startswith("---\nname: review-3\n")


def test_collision_skips_a_folder_name_that_exists_on_disk() -> None:
    files = {LOSER: "---\nname: review\ndescription: Checks changes.\n---\n"}
    taken = {"/p/.agents/skills/review-2"}
    ctx = context(files, can_rename=True, exists=taken.__contains__)
    [fix] = finding_fixes(collision(LOSER, WINNER, "review"), ctx)
    assert fix.renames == (("/p/.agents/skills/review", "/p/.agents/skills/review-3"),)


def test_collision_without_renames_keeps_the_folder_and_says_so() -> None:
    files = {LOSER: "---\r\n# comment: name\r\nname: review  # why\r\ndescription: x\r\n---\r\n"}
    [fix] = finding_fixes(collision(LOSER, WINNER, "review"), context(files))
    assert fix.title == 'Rename the skill to "review-2" (the folder keeps the name "review")'
    assert fix.renames == ()
    assert applied(files, fix)[LOSER] == (
        "---\r\n# comment: name\r\nname: review-2  # why\r\ndescription: x\r\n---\r\n"
    )


def test_collision_never_renames_a_folder_outside_a_skills_folder() -> None:
    """A skill folder a setting names directly is a root: moving it would lose the skill."""
    path = "/p/tools/review/SKILL.md"
    files = {path: "---\nname: review\ndescription: x\n---\n"}
    [fix] = finding_fixes(collision(path, WINNER, "review"), context(files, can_rename=True))
    assert fix.renames == ()


def test_collision_uses_the_free_folder_name() -> None:
    path = "/p/.agents/skills/checklist/SKILL.md"
    files = {path: "---\nname: review\ndescription: x\n---\n"}
    [fix] = finding_fixes(collision(path, WINNER, "review"), context(files, can_rename=True))
    assert fix.title == 'Rename the skill to "checklist", its folder\'s name'
    assert fix.renames == ()


def test_collision_does_not_borrow_a_folder_name_the_spec_rejects() -> None:
    path = "/p/.agents/skills/My Tools/SKILL.md"
    files = {path: "---\nname: review\ndescription: x\n---\n"}
    [fix] = finding_fixes(collision(path, WINNER, "review"), context(files, can_rename=True))
    assert fix.title == 'Rename the skill to "review-2"'
    assert fix.renames == ()


def test_collision_of_a_name_taken_from_the_folder_adds_a_name_key() -> None:
    files = {LOSER: "---\ndescription: x\n---\n"}
    [fix] = finding_fixes(collision(LOSER, WINNER, "review"), context(files))
    assert applied(files, fix)[LOSER] == "---\nname: review-2\ndescription: x\n---\n"


def test_collision_with_a_non_ascii_name() -> None:
    path = "/p/.agents/skills/révision/SKILL.md"
    files = {path: '---\nname: "révision"\ndescription: x\n---\n'}
    ctx = context(files, can_rename=True)
    [fix] = finding_fixes(collision(path, WINNER, "révision"), ctx)
    assert fix.renames == ((path[: -len("/SKILL.md")], "/p/.agents/skills/révision-2"),)
    [edit] = fix.edits
    assert (edit.where.start_line, edit.where.start_column, edit.where.end_column) == (1, 0, 16)
    assert applied(files, fix)["/p/.agents/skills/révision-2/SKILL.md"].startswith(
        "---\nname: révision-2\n"
    )


def test_collision_gives_no_fix_once_the_skill_was_renamed() -> None:
    files = {LOSER: "---\nname: review-2\ndescription: x\n---\n"}
    assert finding_fixes(collision(LOSER, WINNER, "review"), context(files)) == []


def test_collision_gives_no_fix_for_unreadable_or_broken_files() -> None:
    assert finding_fixes(collision(LOSER, WINNER, "review"), context({})) == []
    broken = {LOSER: "---\nname: [review\n---\n"}
    assert finding_fixes(collision(LOSER, WINNER, "review"), context(broken)) == []


# --- skill-description-required ------------------------------------------------------------------

SKILL = "/a/skills/deploy/SKILL.md"


def description_fix(text: str) -> tuple[Fix, str]:
    [finding] = [
        f
        for f in analyze_skill_text(SKILL, text).findings
        if f.rule == "skill-description-required"
    ]
    [fix] = finding_fixes(finding, context({SKILL: text}))
    after = apply_edits(text, fix.edits)
    assert analyze_skill_text(SKILL, after).loadable
    return fix, after


def test_description_goes_after_the_name_with_a_draft_from_the_first_paragraph() -> None:
    text = (
        "---\nname: deploy # the id\n# owner: ops\n---\n\n# Deploy\n\n"
        "Ships **the app** with [release](./r.sh): `make ship`.\n"
    )
    fix, after = description_fix(text)
    assert fix.title == 'Add a description: "Ships the app with release: make ship."'
    assert after.split("\n")[2] == 'description: "Ships the app with release: make ship."'


def test_description_falls_back_to_the_heading_then_a_placeholder() -> None:
    assert description_draft("# Deploy to *prod*\n\n```sh\nx\n```\n") == "Deploy to prod"
    assert description_draft("") == PLACEHOLDER_DESCRIPTION
    _, after = description_fix("---\nname: deploy\n---\n")
    assert parse_frontmatter(after).data["description"] == PLACEHOLDER_DESCRIPTION


def test_description_draft_is_bounded() -> None:
    draft = description_draft("word " * 100)
    assert len(draft) <= 201
    assert draft.endswith("word…")


def test_description_in_a_crlf_file_without_a_trailing_newline() -> None:
    _, after = description_fix('---\r\nname: deploy\r\n---\r\nSay "hi": politely.')
    assert after == (
        '---\r\nname: deploy\r\ndescription: "Say \\"hi\\": politely."\r\n---\r\n'
        'Say "hi": politely.'
    )


def test_blank_description_is_filled_in_place() -> None:
    _, after = description_fix("---\ndescription:   # later\nname: deploy\n---\nDoes things.\n")
    assert after == '---\ndescription: "Does things."   # later\nname: deploy\n---\nDoes things.\n'


def test_description_without_frontmatter_adds_one_after_the_bom() -> None:
    _, after = description_fix("\ufeff# Deploy\n")
    assert after == '\ufeff---\ndescription: "Deploy"\n---\n# Deploy\n'


def test_description_with_non_ascii_text() -> None:
    _, after = description_fix("---\nname: deploy\n---\nDéploie l’app 🚀 en production.\n")
    assert parse_frontmatter(after).data["description"] == "Déploie l’app 🚀 en production."


def test_description_fix_is_not_offered_once_there_is_one() -> None:
    finding = Finding(SourceRange(SKILL), "warning", "skill-description-required", "missing")
    text = "---\nname: deploy\ndescription: Deploys.\n---\n"
    assert finding_fixes(finding, context({SKILL: text})) == []


# --- duplicate-instruction -----------------------------------------------------------------------

ROOT = "/r/AGENTS.md"
PKG = "/r/pkg/AGENTS.md"
HOME_AGENTS = "/home/u/.pi/agent/AGENTS.md"


def chain_fixes(files: dict[str, str], rule: str, **options: object) -> list[Fix]:
    findings = [f for f in find_conflicts(list(files.items())) if f.rule == rule]
    assert len(findings) == 1, findings
    return finding_fixes(findings[0], context(files, **options))


@pytest.mark.parametrize(
    ("pkg", "expected"),
    [
        ("# T\n\n- Run the tests before committing.\n- Ship.\n", "# T\n\n- Ship.\n"),
        ("# T\r\n\r\n- Ship.\r\n- Run the tests before committing.", "# T\r\n\r\n- Ship."),
        ("- Run the tests before committing.", ""),
        ("> Run the tests before committing.\n\nMore.\n", "\nMore.\n"),
        ("Ship. Run the tests before committing.\n", "Ship.\n"),
        ("Run the tests before committing. Ship it.\n", "Ship it.\n"),
    ],
)
def test_duplicate_is_deleted_with_its_line_when_it_is_alone(pkg: str, expected: str) -> None:
    files = {ROOT: "- Run the tests before committing.\n", PKG: pkg}
    [fix] = chain_fixes(files, DUPLICATE)
    assert fix.title == "Remove this duplicate instruction (kept in ../AGENTS.md)"
    assert applied(files, fix)[PKG] == expected


def test_duplicate_of_the_global_file_names_it_from_the_home() -> None:
    files = {
        HOME_AGENTS: "Run the tests before committing.\n",
        PKG: "Run the tests before committing.\n",
    }
    [fix] = chain_fixes(files, DUPLICATE, home="/home/u")
    assert fix.title == "Remove this duplicate instruction (kept in ~/.pi/agent/AGENTS.md)"


# --- conflicting-instructions --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pkg", "expected"),
    [
        ("- Always use pnpm.\n", "- Always use pnpm (this overrides `../AGENTS.md`).\n"),
        ("- **Always use pnpm!**\n", "- **Always use pnpm (this overrides `../AGENTS.md`)!**\n"),
        ("Run `pnpm install`\n", "Run `pnpm install` (this overrides `../AGENTS.md`)\n"),
        (
            "Always use\r\npnpm for packages.\r\n",
            "Always use\r\npnpm for packages (this overrides `../AGENTS.md`).\r\n",
        ),
        ("Use pnpm 📦.", "Use pnpm 📦 (this overrides `../AGENTS.md`)."),
    ],
)
def test_conflict_is_marked_as_an_override(pkg: str, expected: str) -> None:
    files = {ROOT: "- Use npm to install packages.\n", PKG: pkg}
    [fix] = chain_fixes(files, CONFLICT)
    assert fix.title == "State that this instruction overrides ../AGENTS.md"
    after = applied(files, fix)
    assert after[PKG] == expected
    # the warning is gone; the pair is shown as an acknowledged override naming the root file
    [finding] = find_conflicts(list(after.items()))
    assert (finding.rule, finding.severity) == (ACKNOWLEDGED_OVERRIDE, "information")
    assert finding.where.path == PKG
    assert finding.related[0].where.path == ROOT
    assert "../AGENTS.md" in finding.message
    assert "\u201cUse npm to install packages.\u201d" in finding.message
    assert finding_fixes(finding, context(after)) == []  # already explicit


def test_conflict_in_one_file_can_be_resolved_either_way() -> None:
    text = "- Indent with tabs.\n- Keep it short.\n- Use 4 spaces for indentation.\n"
    override, remove = chain_fixes({ROOT: text}, CONFLICT_IN_FILE)
    assert override.title == "State that this instruction overrides line 1"
    assert remove.title == "Remove the earlier instruction on line 1"
    assert apply_edits(text, remove.edits) == "- Keep it short.\n- Use 4 spaces for indentation.\n"
    overridden = apply_edits(text, override.edits)
    [finding] = find_conflicts([(ROOT, overridden)])
    assert (finding.rule, finding.severity) == (ACKNOWLEDGED_OVERRIDE, "information")
    assert "line 1" in finding.message


def test_conflict_fix_is_not_offered_when_the_text_moved() -> None:
    files = {ROOT: "- Use npm to install packages.\n", PKG: "- Always use pnpm.\n"}
    [finding] = find_conflicts(list(files.items()))
    files[PKG] = "\n" + files[PKG]
    assert finding_fixes(finding, context(files)) == []


def test_a_conflict_of_a_user_role_is_fixed_with_the_reading_the_lint_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    roles, errors = parse_roles([{"name": "event-bus", "values": ["Zephyrbus", "Quokkamq"]}])
    words = Vocabulary(merge(load_catalogue(), tuple(roles)), "test:event-bus")
    files = {ROOT: "- Use Zephyrbus for events.\n", PKG: "- Events go through Quokkamq here.\n"}
    with using(words):
        [finding] = find_conflicts(list(files.items()))
    assert errors == [] and finding.rule == CONFLICT

    reads: list[str] = []
    extract = conflicts.extract_instructions
    monkeypatch.setattr(
        conflicts,
        "extract_instructions",
        lambda path, text, *rest: reads.append(text) or extract(path, text, *rest),
    )
    [fix] = finding_fixes(finding, context(files, vocabulary=words))
    assert fix.title == "State that this instruction overrides ../AGENTS.md"
    # read as the lint read it: its reading is reused, only the edited text is read (to check
    # that it now declares the override)
    assert reads == [applied(files, fix)[PKG]]
    reads.clear()
    finding_fixes(finding, context(files))
    assert files[PKG] in reads  # with the shipped catalogue alone the file is read anew


# --- untrusted-project-resource, others ----------------------------------------------------------


def test_untrusted_resource_offers_to_trust_the_working_directory() -> None:
    finding = Finding(
        SourceRange("/p/.pi/SYSTEM.md"),
        "warning",
        "untrusted-project-resource",
        "Ignored",
        data={"cwd": "/p"},
    )
    [fix] = finding_fixes(finding, context({}))
    assert fix == Fix("Trust this project (/p)", command=TrustProject("/p"))
    assert not fix.preferred
    # a folder under the home folder is named ~/…, so the reader sees how much is trusted
    under_home = Finding(finding.where, "warning", finding.rule, "Ignored", data={"cwd": "/u/code"})
    [fix] = finding_fixes(under_home, context({}, home="/u"))
    assert fix == Fix("Trust this project (~/code)", command=TrustProject("/u/code"))


def test_rules_without_fixes_give_none() -> None:
    finding = Finding(SourceRange("/p/AGENTS.md"), "information", "context-file-empty", "Empty")
    assert finding_fixes(finding, context({"/p/AGENTS.md": ""})) == []
