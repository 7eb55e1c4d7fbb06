"""Locating Pi's agent dir (spec §0) and the path conventions of §16.2."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from pi_lsp.resources.agent_dir import (
    agent_dir_info,
    canonicalize_path,
    decode_text,
    home_dir,
    node_error_text,
    resolve_agent_dir,
    resolve_path,
)


def test_default_is_dot_pi_agent_in_home(tmp_path: Path) -> None:
    info = agent_dir_info(env={"HOME": str(tmp_path)})
    assert (info.path, info.source) == (str(tmp_path / ".pi/agent"), "default")


def test_empty_environment_variable_is_ignored(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "PI_CODING_AGENT_DIR": ""}
    assert resolve_agent_dir(env=env) == str(tmp_path / ".pi/agent")


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("~", "{home}"),
        ("~/agents/pi", "{home}/agents/pi"),
        ("/abs/agent/", "/abs/agent"),
        ("rel/agent", "{cwd}/rel/agent"),
        ("~other/x", "{cwd}/~other/x"),
        ("file:///opt/pi%20agent", "/opt/pi agent"),
    ],
)
def test_environment_variable(tmp_path: Path, value: str, expected: str) -> None:
    home, cwd = tmp_path / "home", tmp_path / "cwd"
    info = agent_dir_info(env={"HOME": str(home), "PI_CODING_AGENT_DIR": value}, cwd=str(cwd))
    assert info.source == "environment"
    assert info.path == expected.format(home=home, cwd=cwd)


def test_explicit_argument_wins(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "PI_CODING_AGENT_DIR": "/from/env"}
    info = agent_dir_info("~/explicit", env=env)
    assert (info.path, info.source) == (str(tmp_path / "explicit"), "argument")


def test_process_environment_is_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", "~/custom")
    assert resolve_agent_dir() == str(tmp_path / "custom")
    monkeypatch.delenv("PI_CODING_AGENT_DIR")
    assert resolve_agent_dir() == str(tmp_path / ".pi/agent")
    assert home_dir() == str(tmp_path)


def test_resolve_keeps_symlinks_and_canonicalize_follows_them(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert resolve_path("link/./x/..", str(tmp_path)) == str(tmp_path / "link")
    assert canonicalize_path(str(tmp_path / "link")) == str(tmp_path / "real")
    missing = str(tmp_path / "link/missing")
    assert canonicalize_path(missing) == missing


def test_decode_text_strips_one_bom_and_finds_the_first_bad_byte() -> None:
    assert decode_text(b"\xef\xbb\xbf\xef\xbb\xbfa") == ("\ufeffa", True, None)
    assert decode_text(b"ab\xe2\x82") == ("ab\ufffd", False, 2)
    assert decode_text(b"\xef\xbb\xbfx\xff") == ("x\ufffd", True, 1)


def test_node_style_error_texts() -> None:
    denied = PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    assert node_error_text(denied, "open", "/x") == "EACCES: permission denied, open '/x'"
    is_dir = IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
    assert node_error_text(is_dir, "open", "/d") == "EISDIR: illegal operation on a directory, read"
