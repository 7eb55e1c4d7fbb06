"""The checks Pi does not make: shadowed files, untrusted resources, budgets, skill spec."""

from __future__ import annotations

import os
from pathlib import Path

from pi_lsp.lint.checks import LintSettings, run_checks
from pi_lsp.lint.engine import lint_tree
from pi_lsp.lint.rules import BY_CODE, RULES, rule_for
from pi_lsp.resources.file_source import DiskFileSource
from pi_lsp.resources.loader import LoadOptions, load_resources


def load(tmp: Path, cwd: Path, **options: object) -> object:
    (tmp / "agent").mkdir(exist_ok=True)
    return load_resources(
        LoadOptions(cwd=str(cwd), agent_dir=str(tmp / "agent"), home=str(tmp), env={}, **options)  # type: ignore[arg-type]
    )


def rules_of(findings: list) -> list[str]:  # type: ignore[type-arg]
    return [f.rule for f in findings]


def test_every_rule_has_a_unique_code_and_name() -> None:
    assert len({r.code for r in RULES}) == len({r.name for r in RULES}) == len(RULES)
    assert all(r.summary and r.example for r in RULES)
    assert BY_CODE["PI101"].name == "conflicting-instructions"
    assert rule_for("no-such-rule").code == "PI999"


def test_shadowed_files_point_at_the_file_pi_reads(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "AGENTS.override.md").write_text("override\n")
    (proj / "AGENTS.md").write_text("base\n")
    (proj / "CLAUDE.md").write_text("claude\n")
    findings = run_checks(load(tmp_path, proj), LintSettings())  # type: ignore[arg-type]
    shadowed = [f for f in findings if f.rule == "shadowed-context-file"]
    assert [(os.path.basename(f.where.path), f.severity) for f in shadowed] == [
        ("AGENTS.md", "warning"),
        ("CLAUDE.md", "information"),
    ]
    assert shadowed[0].related[0].where.path == str(proj / "AGENTS.override.md")


def test_a_symlinked_twin_is_not_reported(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "AGENTS.md").write_text("rules\n")
    os.symlink("AGENTS.md", proj / "CLAUDE.md")
    findings = run_checks(load(tmp_path, proj), LintSettings())  # type: ignore[arg-type]
    assert "shadowed-context-file" not in rules_of(findings)


def test_untrusted_project_resources_are_named(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    (proj / ".pi").mkdir(parents=True)
    (proj / ".pi" / "SYSTEM.md").write_text("custom")
    findings = run_checks(load(tmp_path, proj), LintSettings())  # type: ignore[arg-type]
    [finding] = [f for f in findings if f.rule == "untrusted-project-resource"]
    assert finding.where.path.endswith(".pi/SYSTEM.md")
    trusted = run_checks(load(tmp_path, proj, approve=True), LintSettings())  # type: ignore[arg-type]
    assert "untrusted-project-resource" not in rules_of(trusted)


def test_budget_and_empty_files(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    (tmp_path / "agent").mkdir()
    (tmp_path / "agent" / "AGENTS.md").write_text("")
    (proj / "AGENTS.md").write_text("Always write tests for new code.\n" * 200)
    resources = load(tmp_path, proj)
    small_window = run_checks(resources, LintSettings(model_window=5_000))  # type: ignore[arg-type]
    [budget] = [f for f in small_window if f.rule == "context-over-budget"]
    assert budget.where.path == str(proj / "AGENTS.md")
    assert "of a 5000-token window" in budget.message
    assert "context-file-empty" in rules_of(small_window)
    roomy = run_checks(resources, LintSettings())  # type: ignore[arg-type]
    assert "context-over-budget" not in rules_of(roomy)


def test_agent_skills_spec_checks(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    proj.mkdir()
    folder = tmp_path / "agent" / "skills" / "deploy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: release\ndescription: Ship\ndescripton: typo\n---\nBody\n"
    )
    findings = run_checks(load(tmp_path, proj), LintSettings())  # type: ignore[arg-type]
    by_rule = {f.rule: f for f in findings}
    assert by_rule["skill-name-folder-mismatch"].where.start_line == 1
    assert by_rule["skill-unknown-field"].where.start_line == 3
    assert by_rule["skill-description-short"].where.start_line == 2
    assert {f.severity for f in findings} == {"information"}


def test_docs_rules_md_is_generated_from_the_rule_table() -> None:
    from pi_lsp.lint.rules_doc import render
    from tests.shared_data import REPO

    assert (REPO / "docs" / "rules.md").read_text(encoding="utf-8") == render(), (
        "docs/rules.md is stale: run .venv/bin/python -m pi_lsp.lint.rules_doc"
    )


class CountingSource(DiskFileSource):
    """The disk, counting which files are asked about."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def is_file(self, path: str) -> bool:
        self.asked.append(path)
        return super().is_file(path)


def test_an_untrusted_skills_folder_is_looked_into_once_per_lint_run(tmp_path: Path) -> None:
    """However many working directories see it, one ``pi-lsp check`` or server rebuild looks
    for the file to report on once."""
    (tmp_path / "agent").mkdir()
    skill = tmp_path / "ws" / ".agents" / "skills" / "review" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("---\nname: review\ndescription: Review the pull request.\n---\n")

    def looks(working_directories: int) -> int:
        for i in range(working_directories):
            (tmp_path / "ws" / f"d{i}").mkdir(exist_ok=True)
            (tmp_path / "ws" / f"d{i}" / "AGENTS.md").write_text("Use pnpm.\n")
        source = CountingSource()
        lint = lint_tree(
            str(tmp_path / "ws"), agent_dir=str(tmp_path / "agent"), source=source, env={}
        )
        assert [d.finding.where.path for d in lint.diagnostics if d.rule.code == "PI203"] == [
            str(skill)
        ]
        return source.asked.count(str(skill))

    assert looks(2) == looks(12) == 1
