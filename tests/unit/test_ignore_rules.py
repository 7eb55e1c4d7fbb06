"""Rule files read like the ignore crate reads ``.gitignore`` (behind fd's find)."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_lsp.tools.ignore_rules import (
    IgnoreFile,
    git_global_excludes_path,
    load_ignore_file,
    parse_rule,
)

ROOT = b"/home/user/project"


def rules(text: str) -> IgnoreFile:
    parsed = [rule for line in text.split("\n") if (rule := parse_rule(line)) is not None]
    return IgnoreFile(ROOT, parsed)


@pytest.mark.parametrize(
    ("text", "path", "is_dir"),
    [
        ("months", "months", False),
        ("*.lock", "Cargo.lock", False),
        ("*.rs", "src/main.rs", False),
        ("src/*.rs", "src/main.rs", False),
        ("/*.c", "cat-file.c", False),
        ("/src/*.rs", "src/main.rs", False),
        ("!src/main.rs\n*.rs", "src/main.rs", False),
        ("foo/", "foo", True),
        ("foo/", "xyz/foo", True),
        ("**/foo", "src/foo", False),
        ("**/foo/**", "wat/src/foo/bar/baz", False),
        ("abc/**", "abc/x/y/z", False),
        ("a/**/b", "a/x/y/b", False),
        ("\\!xy", "!xy", False),
        ("\\#foo", "#foo", False),
        ("target", "grep/target", False),
        ("node_modules/ ", "node_modules", True),
        ("**/", "foo/bar", True),
        ("path1/*", "path1/foo", False),
        ("\\[", "[", False),
        ("s*.rs", "sfoo.rs", False),
        ("**", "foo.rs", False),
        ("foo\\ ", "foo ", False),
        ("build/", "/home/user/project/build", True),  # absolute paths are made relative
    ],
)
def test_ignored(text: str, path: str, is_dir: bool) -> None:
    assert rules(text).match(path.encode(), is_dir) is True


@pytest.mark.parametrize(
    ("text", "path", "is_dir"),
    [
        ("amonths", "months", False),
        ("/src/*.rs", "src/grep/src/main.rs", False),
        ("/*.c", "mozilla-sha1/sha1.c", False),
        ("foo/", "foo", False),
        ("**/foo/**", "wat/src/afoo/bar/baz", False),
        ("#foo", "#foo", False),
        ("foo/**", "foo", True),
        ("!/bar", "foo/bar", False),
        ("src/*.rs", "src/grep/src/main.rs", False),
        ("path1/*", "path2/path1/foo", False),
        ("s*.rs", "src/foo.rs", False),
        ("\n\n\n", "foo", False),
    ],
)
def test_not_ignored(text: str, path: str, is_dir: bool) -> None:
    assert rules(text).match(path.encode(), is_dir) is not True


def test_last_matching_rule_wins() -> None:
    assert rules("*.rs\n!src/main.rs").match(b"src/main.rs", False) is False
    assert rules("!src/main.rs\n*.rs").match(b"src/main.rs", False) is True
    assert rules("*.log").match(b"notes.txt", False) is None


def test_blank_lines_comments_and_bad_globs_are_skipped() -> None:
    assert parse_rule("") is None
    assert parse_rule("   ") is None
    assert parse_rule("# comment") is None
    assert parse_rule("{unclosed") is None


def test_file_with_bom_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / ".gitignore"
    path.write_bytes(b"\xef\xbb\xbf*.log\r\nbuild/\r\n")
    loaded = load_ignore_file(bytes(tmp_path), path)
    assert loaded is not None
    assert loaded.match(bytes(tmp_path / "x.log"), False) is True
    assert loaded.match(bytes(tmp_path / "build"), True) is True


def test_unreadable_or_empty_file_has_no_rules(tmp_path: Path) -> None:
    assert load_ignore_file(bytes(tmp_path), tmp_path / "missing") is None
    (tmp_path / "empty").write_text("# only a comment\n")
    assert load_ignore_file(bytes(tmp_path), tmp_path / "empty") is None


def test_global_excludes_file_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert git_global_excludes_path(tmp_path) == tmp_path / ".config" / "git" / "ignore"
    (tmp_path / ".gitconfig").write_text('[core]\n\texcludesFile = "~/my-ignores"\n')
    assert git_global_excludes_path(tmp_path) == tmp_path / "my-ignores"
