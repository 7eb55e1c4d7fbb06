"""Context-file discovery (spec §3.1): which AGENTS.md / CLAUDE.md files Pi loads, in which
order, and what a linked git worktree leaves out."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from pi_lsp.resources.context_files import (
    CONTEXT_FILE_NAMES,
    find_git_paths,
    load_context_files,
    read_context_file,
)
from pi_lsp.resources.file_source import DiskFileSource, OverlayFileSource
from tests.shared_data import CONFORMANCE
from tests.unit.helpers import write


def loaded(cwd: Path, agent: Path) -> list[str]:
    return list(load_context_files(str(cwd), str(agent)).paths)


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    path = tmp_path / "agent"
    path.mkdir()
    return path


# --- the golden case ------------------------------------------------------------------------


def run_setup(case: str, ws: Path, agent_dir: Path) -> None:
    env = {**os.environ, "WS": str(ws), "AGENT": str(agent_dir)}
    subprocess.run(
        ["bash", "-e", str(CONFORMANCE / case / "setup.sh")], cwd=ws, env=env, check=True
    )


def test_layering_matches_pi_golden_case(tmp_path: Path) -> None:
    ws, agent_dir = tmp_path / "ws", tmp_path / "agent"
    ws.mkdir()
    agent_dir.mkdir()
    run_setup("sp-context-files", ws, agent_dir)
    cwd = (ws / "a/mid/proj").resolve()

    result = load_context_files(str(cwd), str(agent_dir))

    expected = (CONFORMANCE / "sp-context-files/expected-system-prompt.txt").read_text("utf-8")
    expected = (
        expected.replace("{AGENT_DIR}", str(agent_dir))
        .replace("{CWD}", str(cwd))
        .replace("{WS}", str(ws))
    )
    blocks = re.findall(
        r'<project_instructions path="([^"]*)">\n(.*?)\n</project_instructions>', expected, re.S
    )
    assert [(f.path, f.content) for f in result.files] == blocks
    assert [f.scope for f in result.files] == ["global", "project", "project", "project", "project"]
    assert result.findings == ()
    assert result.files[-1].had_bom


def test_shadowed_candidates_are_listed(tmp_path: Path, agent: Path) -> None:
    mid = tmp_path / "mid"
    write(mid / "AGENTS.override.md", "override")
    write(mid / "AGENTS.md", "agents")
    write(mid / "CLAUDE.md", "claude")
    write(agent / "AGENTS.md", "global")
    write(agent / "CLAUDE.md", "global claude")

    result = load_context_files(str(mid), str(agent))

    by_path = {f.path: f for f in result.files}
    assert by_path[str(mid / "AGENTS.override.md")].shadows == (
        str(mid / "AGENTS.md"),
        str(mid / "CLAUDE.md"),
    )
    assert by_path[str(agent / "AGENTS.md")].shadows == (str(agent / "CLAUDE.md"),)


def test_directory_named_like_a_candidate_is_skipped_silently(tmp_path: Path, agent: Path) -> None:
    (tmp_path / "p/AGENTS.md").mkdir(parents=True)
    write(tmp_path / "p/CLAUDE.MD", "upper-case claude")

    result = load_context_files(str(tmp_path / "p"), str(agent))

    assert result.paths == (str(tmp_path / "p/CLAUDE.MD"),)
    assert result.findings == ()
    assert result.files[0].shadows == ()


def test_descendants_are_never_loaded_and_order_is_root_to_cwd(tmp_path: Path, agent: Path) -> None:
    write(tmp_path / "AGENTS.md", "top")
    write(tmp_path / "a/b/AGENTS.md", "cwd")
    write(tmp_path / "a/b/c/AGENTS.md", "child")

    assert loaded(tmp_path / "a/b", agent) == [
        str(tmp_path / "AGENTS.md"),
        str(tmp_path / "a/b/AGENTS.md"),
    ]


def test_agent_dir_equal_to_cwd_is_loaded_once(tmp_path: Path) -> None:
    write(tmp_path / "AGENTS.md", "both")
    result = load_context_files(str(tmp_path), str(tmp_path))
    assert result.paths == (str(tmp_path / "AGENTS.md"),)
    assert result.files[0].scope == "global"


def test_cwd_is_resolved_not_realpathed(tmp_path: Path, agent: Path) -> None:
    write(tmp_path / "real/AGENTS.md", "x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    result = load_context_files(f"{tmp_path}/link/./sub/..", str(agent))
    assert result.paths[-1] == str(tmp_path / "link/AGENTS.md")


def test_no_context_files_disables_everything(tmp_path: Path, agent: Path) -> None:
    write(agent / "AGENTS.md", "global")
    write(tmp_path / "AGENTS.md", "project")
    result = load_context_files(str(tmp_path), str(agent), no_context_files=True)
    assert result.files == ()
    assert result.disabled


def test_content_is_verbatim_except_a_leading_bom(tmp_path: Path, agent: Path) -> None:
    body = "\ufeff---\ntitle: x\n---\n  keep  \n\n"
    write(tmp_path / "AGENTS.md", body.encode("utf-8"))
    (found,) = load_context_files(str(tmp_path), str(agent)).files
    assert found.content == body[1:]
    assert found.where.end_line == 5


class FailingSource(DiskFileSource):
    def __init__(self, broken: set[str]) -> None:
        self.broken = broken

    def read_bytes(self, path: str) -> bytes:
        if path in self.broken:
            raise PermissionError(13, "Permission denied", path)
        return super().read_bytes(path)


def test_unreadable_candidate_warns_and_the_next_name_is_used(tmp_path: Path, agent: Path) -> None:
    bad = write(tmp_path / "AGENTS.md", "secret")
    write(tmp_path / "CLAUDE.md", "fallback")

    result = load_context_files(str(tmp_path), str(agent), source=FailingSource({str(bad)}))

    assert [f.content for f in result.files] == ["fallback"]
    (finding,) = result.findings
    assert finding.rule == "context-file-unreadable"
    assert finding.where.path == str(bad)
    assert finding.pi_message == (
        f"Warning: Could not read {bad}: Error: EACCES: permission denied, open '{bad}'"
    )


def test_unsaved_buffer_overrides_disk_and_can_create_a_file(tmp_path: Path, agent: Path) -> None:
    write(tmp_path / "AGENTS.md", "on disk")
    buffers = {
        str(tmp_path / "AGENTS.md"): (3, "edited in the editor"),
        str(agent / "AGENTS.md"): (1, "new global file, not saved yet"),
    }
    result = load_context_files(str(tmp_path), str(agent), source=OverlayFileSource(buffers))
    assert [f.content for f in result.files] == [
        "new global file, not saved yet",
        "edited in the editor",
    ]
    assert result.files[1].version == ("buffer", 3)


def test_binary_file_does_not_crash_and_invalid_utf8_is_reported(
    tmp_path: Path, agent: Path
) -> None:
    write(tmp_path / "AGENTS.md", b"line one\nok \xff\xfe\x00 tail\n")
    result = load_context_files(str(tmp_path), str(agent))
    (found,) = result.files
    assert found.content == "line one\nok \ufffd\ufffd\x00 tail\n"
    (finding,) = result.findings
    assert finding.rule == "context-file-invalid-utf8"
    assert (finding.where.start_line, finding.where.start_column) == (1, 3)


def test_fifty_megabyte_file_loads(tmp_path: Path, agent: Path) -> None:
    chunk = ("# rules\n" + "x" * 1015 + "\n").encode()
    write(tmp_path / "AGENTS.md", chunk * (50 * 1024) + b"\x80")
    (found,) = load_context_files(str(tmp_path), str(agent)).files
    assert len(found.content) == 50 * 1024 * 1024 + 1
    assert found.content.endswith("\ufffd")


def test_candidate_names_are_pis() -> None:
    assert CONTEXT_FILE_NAMES == (
        "AGENTS.override.md",
        "AGENTS.md",
        "AGENTS.MD",
        "CLAUDE.md",
        "CLAUDE.MD",
    )


def test_read_context_file_in_an_empty_dir(tmp_path: Path) -> None:
    assert read_context_file(str(tmp_path)) == (None, ())


# --- linked worktrees: one test per row of the §3.1 table (rows checked with Pi 0.85) --------

GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", *args],
        cwd=cwd,
        env=GIT_ENV,
        check=True,
        capture_output=True,
    )


def repo_with_commit(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q")
    write(path / "f.txt", "x")
    git(path, "add", "f.txt")
    git(path, "commit", "-q", "-m", "init")
    return path


def nested_worktree(tmp_path: Path) -> tuple[Path, Path]:
    main = repo_with_commit(tmp_path / "outer/main")
    git(main, "worktree", "add", "-q", "worktrees/feat", "-b", "feat")
    feat = main / "worktrees/feat"
    (feat / "src").mkdir()
    return main, feat


def test_worktree_row1_worktree_file_replaces_the_main_one(tmp_path: Path, agent: Path) -> None:
    main, feat = nested_worktree(tmp_path)
    write(main / "AGENTS.md", "main")
    write(feat / "AGENTS.md", "worktree")

    result = load_context_files(str(feat / "src"), str(agent))

    assert result.paths == (str(feat / "AGENTS.md"),)
    assert [f.path for f in result.suppressed] == [str(main / "AGENTS.md")]
    assert result.worktree is not None
    assert result.worktree.worktree_root == os.path.realpath(feat)
    assert result.worktree.main_repo_root == os.path.realpath(main)
    (note,) = result.findings
    assert note.rule == "context-file-worktree-shadowed"
    assert note.related[0].where.path == os.path.join(os.path.realpath(feat), "AGENTS.md")


def test_worktree_row2_main_file_alone_is_inherited(tmp_path: Path, agent: Path) -> None:
    main, feat = nested_worktree(tmp_path)
    write(main / "AGENTS.md", "main")
    assert loaded(feat / "src", agent) == [str(main / "AGENTS.md")]


def test_worktree_row3_different_names_both_load(tmp_path: Path, agent: Path) -> None:
    main, feat = nested_worktree(tmp_path)
    write(main / "CLAUDE.md", "main")
    write(feat / "AGENTS.md", "worktree")
    assert loaded(feat / "src", agent) == [str(main / "CLAUDE.md"), str(feat / "AGENTS.md")]


def test_worktree_row4_bare_layout_keeps_the_container_file(tmp_path: Path, agent: Path) -> None:
    seed = repo_with_commit(tmp_path / "seed")
    proj = tmp_path / "proj"
    proj.mkdir()
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(proj / ".bare"))
    write(proj / ".git", "gitdir: ./.bare\n")
    git(proj, "worktree", "add", "-q", "main", "main")
    write(proj / "AGENTS.md", "container")
    write(proj / "main/AGENTS.md", "worktree")

    assert loaded(proj / "main", agent) == [str(proj / "AGENTS.md"), str(proj / "main/AGENTS.md")]


def test_worktree_row5_nested_worktree_keeps_outer_files(tmp_path: Path, agent: Path) -> None:
    main, feat = nested_worktree(tmp_path)
    write(tmp_path / "outer/AGENTS.md", "outer")
    write(main / "AGENTS.md", "main")
    write(feat / "AGENTS.md", "worktree")
    assert loaded(feat, agent) == [str(tmp_path / "outer/AGENTS.md"), str(feat / "AGENTS.md")]


def test_worktree_row6_sibling_worktree_is_ordinary(tmp_path: Path, agent: Path) -> None:
    main = repo_with_commit(tmp_path / "outer/main")
    git(main, "worktree", "add", "-q", "../sib-feat", "-b", "feat")
    sib = tmp_path / "outer/sib-feat"
    write(tmp_path / "outer/AGENTS.md", "outer")
    write(main / "AGENTS.md", "main")
    write(sib / "AGENTS.md", "sibling")
    assert loaded(sib, agent) == [str(tmp_path / "outer/AGENTS.md"), str(sib / "AGENTS.md")]


def test_worktree_row7_submodule_keeps_the_superproject_file(tmp_path: Path, agent: Path) -> None:
    source = repo_with_commit(tmp_path / "subsrc")
    superproject = repo_with_commit(tmp_path / "super")
    git(superproject, "submodule", "add", "-q", str(source), "sub")
    assert (superproject / "sub/.git").read_text().startswith("gitdir: ")
    write(superproject / "AGENTS.md", "super")
    write(superproject / "sub/AGENTS.md", "sub")
    assert loaded(superproject / "sub", agent) == [
        str(superproject / "AGENTS.md"),
        str(superproject / "sub/AGENTS.md"),
    ]


def test_worktree_row8_ordinary_repo_loads_every_level(tmp_path: Path, agent: Path) -> None:
    repo = tmp_path / "outer/repo"
    (repo / "src").mkdir(parents=True)
    git(repo, "init", "-q")
    for rel in ("outer/AGENTS.md", "outer/repo/AGENTS.md", "outer/repo/src/AGENTS.md"):
        write(tmp_path / rel, rel)
    assert loaded(repo / "src", agent) == [
        str(tmp_path / "outer/AGENTS.md"),
        str(repo / "AGENTS.md"),
        str(repo / "src/AGENTS.md"),
    ]


def test_worktree_row9_git_file_to_missing_gitdir(tmp_path: Path, agent: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / ".git", f"gitdir: {tmp_path / 'gone/.git/worktrees/x'}\n")
    write(repo / "AGENTS.md", "repo")
    write(repo / "src/AGENTS.md", "src")
    assert find_git_paths(str(repo / "src")) is None
    assert loaded(repo / "src", agent) == [str(repo / "AGENTS.md"), str(repo / "src/AGENTS.md")]


def test_hand_made_worktree_through_a_symlinked_cwd(tmp_path: Path, agent: Path) -> None:
    """The suppression compares realpaths, so a cwd reached through a symlink still works."""
    main = tmp_path / "main"
    admin = main / ".git/worktrees/feat"
    write(main / ".git/HEAD", "ref: refs/heads/main\n")
    write(admin / "HEAD", "ref: refs/heads/feat\n")
    write(admin / "commondir", "../..\n")
    feat = main / "wt/feat"
    write(feat / ".git", f"gitdir: {admin}\n")
    write(main / "AGENTS.md", "main")
    write(feat / "AGENTS.md", "worktree")
    (tmp_path / "alias").symlink_to(main)

    result = load_context_files(str(tmp_path / "alias/wt/feat"), str(agent))

    assert result.paths == (str(tmp_path / "alias/wt/feat/AGENTS.md"),)
    assert [f.path for f in result.suppressed] == [str(tmp_path / "alias/AGENTS.md")]


def test_main_override_is_not_suppressed_by_a_worktree_agents_md(
    tmp_path: Path, agent: Path
) -> None:
    main, feat = nested_worktree(tmp_path)
    write(main / "AGENTS.override.md", "main override")
    write(main / "AGENTS.md", "main")
    write(feat / "AGENTS.md", "worktree")
    assert loaded(feat, agent) == [str(main / "AGENTS.override.md"), str(feat / "AGENTS.md")]


def test_git_file_without_gitdir_prefix_is_passed_over(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    write(outer / ".git/HEAD", "ref: refs/heads/main\n")
    write(outer / "inner/.git", "not a gitdir line\n")
    paths = find_git_paths(str(outer / "inner"))
    assert paths is not None
    assert paths.repo_dir == str(outer)


def test_git_dir_without_head_means_no_repo(tmp_path: Path) -> None:
    (tmp_path / "r/.git").mkdir(parents=True)
    write(tmp_path / ".git/HEAD", "ref: refs/heads/main\n")
    assert find_git_paths(str(tmp_path / "r")) is None
