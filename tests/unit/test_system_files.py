"""SYSTEM.md / APPEND_SYSTEM.md and the CLI prompt flags (spec §3.2)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from pi_lsp.resources.file_source import OverlayFileSource
from pi_lsp.resources.system_files import load_system_prompts
from tests.shared_data import CONFORMANCE
from tests.unit.helpers import write


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    cwd, agent = tmp_path / "ws/proj", tmp_path / "agent"
    cwd.mkdir(parents=True)
    agent.mkdir()
    return cwd, agent


def golden(case: str, tmp_path: Path) -> tuple[Path, Path, str, list[str]]:
    """Build the case's inputs; return cwd, agent dir, expected prompt and the CLI args."""
    ws, agent = tmp_path / "ws", tmp_path / "agent"
    ws.mkdir()
    agent.mkdir()
    env = {**os.environ, "WS": str(ws), "AGENT": str(agent)}
    subprocess.run(
        ["bash", "-e", str(CONFORMANCE / case / "setup.sh")], cwd=ws, env=env, check=True
    )
    spec = json.loads((CONFORMANCE / case / "case.json").read_text())
    cwd = (ws / spec["cwd"]).resolve()
    expected = (CONFORMANCE / case / "expected-system-prompt.txt").read_text("utf-8")
    args = [a.replace("{WS}", str(ws)) for a in spec["pi_args"]]
    return cwd, agent, expected, args


def test_trusted_project_files_replace_the_global_ones(tmp_path: Path) -> None:
    cwd, agent, expected, _ = golden("sp-system-md-trusted", tmp_path)

    prompts = load_system_prompts(str(cwd), str(agent), project_trusted=True)

    assert prompts.system_prompt is not None
    assert prompts.system_prompt.origin == "project"
    assert prompts.system_prompt_source == str(cwd / ".pi/SYSTEM.md")
    assert prompts.append_sources == (str(cwd / ".pi/APPEND_SYSTEM.md"),)
    head = prompts.system_prompt.text + "\n\n" + prompts.append_text + "\n\n<project_context>"
    assert expected.startswith(head)


def test_untrusted_project_uses_the_agent_dir_files_verbatim(tmp_path: Path) -> None:
    cwd, agent, expected, _ = golden("sp-system-md-untrusted", tmp_path)

    prompts = load_system_prompts(str(cwd), str(agent), project_trusted=False)

    assert prompts.system_prompt is not None
    assert prompts.system_prompt.origin == "global"
    assert prompts.system_prompt.text == "GLOBAL SYSTEM PROMPT (replaces the default)\n"
    head = prompts.system_prompt.text + "\n\n" + prompts.append_text + "\n\n<project_context>"
    assert expected.startswith(head)


def test_ancestor_pi_folder_is_never_used(tmp_path: Path) -> None:
    cwd, agent, _expected, _ = golden("sp-system-md-ancestor", tmp_path)
    prompts = load_system_prompts(str(cwd), str(agent), project_trusted=True)
    assert (prompts.system_prompt, prompts.append) == (None, ())


def test_cli_text_and_file_values(tmp_path: Path) -> None:
    cwd, agent, expected, args = golden("sp-cli-prompts", tmp_path)
    system_prompt = args[args.index("--system-prompt") + 1]
    appends = [args[i + 1] for i, a in enumerate(args) if a == "--append-system-prompt"]

    prompts = load_system_prompts(
        str(cwd),
        str(agent),
        project_trusted=False,
        system_prompt=system_prompt,
        append_system_prompt=appends,
    )

    assert prompts.system_prompt is not None
    assert prompts.system_prompt_source is None
    assert [p.source_path for p in prompts.append] == [None, appends[1]]
    assert expected.startswith(
        prompts.system_prompt.text + "\n\n" + prompts.append_text + "\n\n<project_context>"
    )
    assert "GLOBAL APPEND" not in prompts.append_text


def test_relative_cli_path_is_read_from_cwd_with_bom_removed(dirs: tuple[Path, Path]) -> None:
    cwd, agent = dirs
    write(cwd / "prompts/sys.md", b"\xef\xbb\xbfFROM FILE\n")
    prompts = load_system_prompts(
        str(cwd), str(agent), project_trusted=False, system_prompt="prompts/sys.md"
    )
    assert prompts.system_prompt is not None
    assert prompts.system_prompt.text == "FROM FILE\n"
    assert prompts.system_prompt.had_bom
    assert prompts.system_prompt_source == str(cwd / "prompts/sys.md")


def test_tilde_is_not_expanded_when_checking_a_value(dirs: tuple[Path, Path]) -> None:
    cwd, agent = dirs
    prompts = load_system_prompts(
        str(cwd), str(agent), project_trusted=False, system_prompt="~/whatever.md"
    )
    assert prompts.system_prompt is not None
    assert prompts.system_prompt.text == "~/whatever.md"


def test_empty_values_give_no_prompt_and_stop_discovery(dirs: tuple[Path, Path]) -> None:
    cwd, agent = dirs
    write(agent / "SYSTEM.md", "global")
    write(agent / "APPEND_SYSTEM.md", "global append")
    prompts = load_system_prompts(
        str(cwd), str(agent), project_trusted=False, system_prompt="", append_system_prompt=[]
    )
    assert (prompts.system_prompt, prompts.append) == (None, ())


def test_directory_named_system_md_is_used_as_text_with_a_warning(
    dirs: tuple[Path, Path],
) -> None:
    """Checked with Pi 0.85: the path string itself becomes the prompt."""
    cwd, agent = dirs
    (agent / "SYSTEM.md").mkdir()
    prompts = load_system_prompts(str(cwd), str(agent), project_trusted=False)
    assert prompts.system_prompt is not None
    assert prompts.system_prompt.text == str(agent / "SYSTEM.md")
    (finding,) = prompts.findings
    assert finding.rule == "system-prompt-unreadable"
    assert finding.pi_message == (
        f"Warning: Could not read system prompt file {agent / 'SYSTEM.md'}: "
        "Error: EISDIR: illegal operation on a directory, read"
    )


def test_unsaved_buffer_and_invalid_utf8(dirs: tuple[Path, Path]) -> None:
    cwd, agent = dirs
    write(cwd / ".pi/SYSTEM.md", "on disk")
    write(agent / "APPEND_SYSTEM.md", b"ok\n\xc3(")
    source = OverlayFileSource({str(cwd / ".pi/SYSTEM.md"): (2, "typed, not saved")})

    prompts = load_system_prompts(str(cwd), str(agent), project_trusted=True, source=source)

    assert prompts.system_prompt is not None
    assert prompts.system_prompt.text == "typed, not saved"
    assert prompts.append_text == "ok\n\ufffd("
    (finding,) = prompts.findings
    assert finding.rule == "system-prompt-invalid-utf8"
    assert (finding.where.start_line, finding.where.start_column) == (1, 0)
