"""The Resources snapshot: what loads for a working directory, and rebuilding it after a change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pi_lsp.prompt.assemble import build_prompt
from pi_lsp.resources.file_source import OverlayFileSource
from pi_lsp.resources.loader import LoadOptions, ResourceCache, load_resources, reload_resources
from tests.shared_data import CORPUS


def skill(folder: Path, name: str, description: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody of {name}\n")
    return path


@pytest.fixture
def project(tmp_path: Path) -> tuple[LoadOptions, Path, Path]:
    home = tmp_path / "home"
    agent = tmp_path / "agent"
    cwd = tmp_path / "work" / "proj"
    for folder in (home, agent, cwd):
        folder.mkdir(parents=True)
    (agent / "AGENTS.md").write_text("global rules\n")
    (cwd / "AGENTS.md").write_text("project rules\n")
    for i in range(5):
        skill(agent / "skills" / f"user-{i}", f"user-{i}", f"User skill {i}.")
    options = LoadOptions(cwd=str(cwd), agent_dir=str(agent), home=str(home), env={})
    return options, cwd, agent


def test_snapshot_carries_sources(project: tuple[LoadOptions, Path, Path]) -> None:
    options, cwd, agent = project
    resources = load_resources(options)
    assert [f.path for f in resources.context_files.files] == [
        str(agent / "AGENTS.md"),
        str(cwd / "AGENTS.md"),
    ]
    assert [s.name for s in resources.skills] == [f"user-{i}" for i in range(5)]
    first = resources.skills[0]
    assert first.name_range is not None
    assert (first.name_range.path, first.name_range.start_line) == (first.file_path, 1)
    assert resources.trust.trusted  # nothing in the project needs trust
    assert resources.tools == ("read", "bash", "edit", "write")


def test_editing_one_skill_rereads_only_that_file(project: tuple[LoadOptions, Path, Path]) -> None:
    options, _, agent = project
    cache = ResourceCache()
    before = load_resources(options, cache=cache)
    edited = agent / "skills" / "user-3" / "SKILL.md"
    edited.write_text("---\nname: Bad_Name\ndescription: Changed.\n---\n")
    after = reload_resources(before, [str(edited)], cache=cache)
    assert after.skill_load.parsed == 1
    assert after.skill_load.reused == 4
    assert [s.name for s in after.skills][3] == "Bad_Name"
    assert [f.rule for f in after.findings] == ["skill-name-invalid-characters"]
    # the context files and everything else are the very same objects
    assert after.context_files is before.context_files
    # and the fix makes the finding go away
    edited.write_text("---\nname: user-3\ndescription: Fixed.\n---\n")
    fixed = reload_resources(after, [str(edited)], cache=cache)
    assert fixed.findings == ()
    assert fixed.skills[3].description == "Fixed."


def test_a_new_skill_file_loads_everything_again(project: tuple[LoadOptions, Path, Path]) -> None:
    options, _, agent = project
    cache = ResourceCache()
    before = load_resources(options, cache=cache)
    new = skill(agent / "skills" / "user-9", "user-9", "New one.")
    after = reload_resources(before, [str(new)], cache=cache)
    assert [s.name for s in after.skills][-1] == "user-9"
    assert after.skill_load.parsed == 1  # the others came from the cache


def test_unsaved_buffers_are_laid_over_the_disk(project: tuple[LoadOptions, Path, Path]) -> None:
    options, cwd, _ = project
    buffers = {str(cwd / "AGENTS.md"): (7, "typed but not saved\n")}
    resources = load_resources(options, OverlayFileSource(buffers))
    assert resources.context_files.files[-1].content == "typed but not saved\n"
    assert "typed but not saved" in build_prompt(resources).text


def test_project_resources_wait_for_trust(project: tuple[LoadOptions, Path, Path]) -> None:
    options, cwd, _ = project
    skill(cwd / ".pi" / "skills" / "proj", "proj", "Project skill.")
    (cwd / ".pi" / "settings.json").write_text('{"defaultTools": ["read", "grep"]}')
    untrusted = load_resources(options)
    assert not untrusted.trust.trusted
    assert "proj" not in [s.name for s in untrusted.skills]
    assert untrusted.tools == ("read", "bash", "edit", "write")
    trusted = load_resources(LoadOptions(**{**_fields(options), "approve": True}))
    assert trusted.skills[0].name == "proj"  # project skills come before user skills
    assert trusted.tools == ("read", "grep")


def _fields(options: LoadOptions) -> dict[str, object]:
    return {name: getattr(options, name) for name in options.__dataclass_fields__}


def _corpus_working_dirs() -> list[Path]:
    root = CORPUS / "repos"
    names = {"AGENTS.md", "AGENTS.override.md", "CLAUDE.md", "agents.md"}
    found = set()
    for folder, _, files in os.walk(root):
        if names & set(files):
            found.add(Path(folder))
    return sorted(found)


@pytest.mark.shared
def test_every_corpus_context_folder_loads_and_builds_a_prompt(tmp_path: Path) -> None:
    folders = _corpus_working_dirs()
    assert len(folders) > 100
    agent = tmp_path / "agent"
    agent.mkdir()
    for folder in folders:
        options = LoadOptions(
            cwd=str(folder), agent_dir=str(agent), home=str(tmp_path), env={}, approve=True
        )
        resources = load_resources(options)
        assert resources.context_files.files, folder
        document = build_prompt(resources)
        assert document.text.endswith(f"Current working directory: {folder}")


def test_cli_skill_paths_come_last_and_lose_collisions(
    project: tuple[LoadOptions, Path, Path], tmp_path: Path
) -> None:
    # Pi merges --skill (its additionalSkillPaths) after everything discovered
    options, _, agent = project
    skill(agent / "skills" / "dup", "dup", "User dup.")
    cli_dup = skill(tmp_path / "cli" / "dup", "dup", "CLI dup.")
    cli_solo = skill(tmp_path / "cli" / "solo", "solo", "CLI solo.")
    resources = load_resources(
        LoadOptions(
            **{**_fields(options), "skill_paths": (str(cli_dup.parent), str(cli_solo.parent))}
        )
    )
    names = [s.name for s in resources.skills]
    assert names[-1] == "solo"
    winner = resources.skill_load.by_name("dup")
    assert winner is not None and winner.description == "User dup."
    assert [f.data["loserPath"] for f in resources.findings if "loserPath" in f.data] == [
        str(cli_dup)
    ]


def test_cli_prompt_templates_come_last_and_lose_collisions(
    project: tuple[LoadOptions, Path, Path], tmp_path: Path
) -> None:
    options, _, agent = project
    (agent / "prompts").mkdir()
    (agent / "prompts" / "review.md").write_text("agent review\n")
    (tmp_path / "review.md").write_text("cli review\n")
    (tmp_path / "extra.md").write_text("cli extra\n")
    paths = (str(tmp_path / "review.md"), str(tmp_path / "extra.md"))
    resources = load_resources(LoadOptions(**{**_fields(options), "prompt_template_paths": paths}))
    assert [(t.name, t.file_path) for t in resources.templates] == [
        ("review", str(agent / "prompts" / "review.md")),
        ("extra", str(tmp_path / "extra.md")),
    ]


def test_one_folder_as_two_skill_roots_contributes_both_scans(
    project: tuple[LoadOptions, Path, Path],
) -> None:
    # agentDir/skills (top-level *.md count) is a link to the project's .agents/skills
    # (only nested *.md count): Pi collects the files of both scans, each file once
    options, cwd, agent = project
    agents_skills = cwd / ".agents" / "skills"
    skill(agents_skills / "both", "both", "Found by both scans.")
    (agents_skills / "group").mkdir()
    (agents_skills / "group" / "nested.md").write_text("---\ndescription: Nested.\n---\n")
    (agents_skills / "top.md").write_text("---\ndescription: Top.\n---\n")
    for old in (agent / "skills").iterdir():
        (old / "SKILL.md").unlink()
        old.rmdir()
    (agent / "skills").rmdir()
    (agent / "skills").symlink_to(agents_skills)
    resources = load_resources(LoadOptions(**{**_fields(options), "approve": True}))
    assert [(s.name, s.file_path) for s in resources.skills] == [
        ("both", str(agents_skills / "both" / "SKILL.md")),
        ("group", str(agents_skills / "group" / "nested.md")),
        ("skills", str(agent / "skills" / "top.md")),
    ]


def test_a_symlinked_cwd_is_seen_as_its_real_path(
    project: tuple[LoadOptions, Path, Path], tmp_path: Path
) -> None:
    # Pi's process.cwd() is a real path: the prompt, context files and trust use the target
    options, cwd, _ = project
    link = tmp_path / "link"
    link.symlink_to(cwd)
    resources = load_resources(LoadOptions(**{**_fields(options), "cwd": str(link)}))
    assert resources.cwd == str(cwd)
    assert resources.context_files.files[-1].path == str(cwd / "AGENTS.md")
    assert build_prompt(resources).text.endswith(f"Current working directory: {cwd}")


def test_editing_a_context_file_keeps_the_skills(project: tuple[LoadOptions, Path, Path]) -> None:
    options, cwd, _ = project
    cache = ResourceCache()
    before = load_resources(options, cache=cache)
    (cwd / "AGENTS.md").write_text("new project rules\n")
    after = reload_resources(before, [str(cwd / "AGENTS.md")], cache=cache)
    assert after.context_files.files[-1].content == "new project rules\n"
    assert after.skill_load is before.skill_load
    # a deleted file is not a content change: everything loads again
    (cwd / "AGENTS.md").unlink()
    gone = reload_resources(after, [str(cwd / "AGENTS.md")], cache=cache)
    assert [f.path for f in gone.context_files.files] == [
        f.path for f in before.context_files.files
    ][:1]
