"""Directory listing and ignore files the way Pi's resource discovery sees them.

Pi lists a directory with Node's ``readdir`` (names in byte order on Unix), follows symbolic
links with ``stat`` (a broken link is skipped) and honours ``.gitignore``, ``.ignore`` and
``.fdignore``. The rules of an ignore file found below the scan root are *re-rooted*: each
pattern is prefixed with the directory's path relative to the root (a leading ``/`` or ``!`` is
handled first), then all rules are matched, last match winning and case-insensitively (the npm
``ignore`` package's default), against paths relative to the root. A consequence kept here: an
unanchored pattern such as ``draft.md`` in ``group/.gitignore`` becomes ``group/draft.md`` and no
longer matches ``group/sub/draft.md``.

Matching itself is :mod:`pi_lsp.tools.ignore_rules`; this module only feeds it Pi's patterns.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, replace

from pi_lsp.js.text import js_trim
from pi_lsp.resources.file_source import FileSource
from pi_lsp.tools.ignore_rules import IgnoreFile, IgnoreRule, parse_rule

__all__ = ["IGNORE_FILE_NAMES", "DirItem", "PiIgnoreRules", "list_directory", "pi_ignore_pattern"]

IGNORE_FILE_NAMES = (".gitignore", ".ignore", ".fdignore")


@dataclass(frozen=True, slots=True)
class DirItem:
    """One directory entry, symbolic links resolved.

    ``name`` may hold surrogate escapes when the file name is not UTF-8 (``utf8`` is then
    false); ``is_dir``/``is_file`` describe the link target for links; a broken link is
    neither.
    """

    name: str
    path: str
    is_dir: bool
    is_file: bool
    is_symlink: bool
    utf8: bool


def list_directory(directory: str) -> list[DirItem]:
    """The entries of ``directory`` in byte order of their names; raises ``OSError``."""
    with os.scandir(directory) as scan:
        entries = list(scan)
    if all(entry.name.isascii() for entry in entries):
        entries.sort(key=lambda entry: entry.name)
    else:
        entries.sort(key=lambda entry: os.fsencode(entry.name))
    items: list[DirItem] = []
    for entry in entries:
        name = entry.name
        try:
            link = entry.is_symlink()
            if link:
                try:
                    mode = os.stat(entry.path).st_mode
                except OSError:
                    is_dir = is_file = False
                else:
                    is_dir, is_file = stat.S_ISDIR(mode), stat.S_ISREG(mode)
            else:
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=False)
        except OSError:
            continue
        utf8 = name.isascii() or _is_utf8(name)
        items.append(DirItem(name, entry.path, is_dir, is_file, link, utf8))
    return items


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def pi_ignore_pattern(line: str, prefix: str) -> str | None:
    """A line of an ignore file as Pi hands it to the matcher, prefixed with ``prefix``.

    Blank lines and ``#`` comments give ``None``; ``!`` negation is kept in front of the
    prefix, ``\\!`` loses its backslash, a leading ``/`` is dropped.
    """
    trimmed = js_trim(line)
    if not trimmed:
        return None
    if trimmed.startswith("#") and not trimmed.startswith("\\#"):
        return None
    pattern = line
    negated = False
    if pattern.startswith("!"):
        negated = True
        pattern = pattern[1:]
    elif pattern.startswith("\\!"):
        pattern = pattern[1:]
    if pattern.startswith("/"):
        pattern = pattern[1:]
    prefixed = f"{prefix}{pattern}" if prefix else pattern
    return f"!{prefixed}" if negated else prefixed


class PiIgnoreRules:
    """The ignore rules in force while walking down from one scan root (immutable)."""

    __slots__ = ("_matcher", "_rules")

    def __init__(self, rules: tuple[IgnoreRule, ...] = ()) -> None:
        self._rules = rules
        self._matcher = IgnoreFile(b"", rules) if rules else None

    def extended(
        self, directory: str, relative_dir: str, names: set[str], file_source: FileSource
    ) -> PiIgnoreRules:
        """These rules plus those of the ignore files (among ``names``) in ``directory``.

        ``relative_dir`` is the directory's path relative to the scan root (``""`` for the
        root itself).
        """
        added: list[IgnoreRule] = []
        prefix = f"{relative_dir}/" if relative_dir else ""
        for file_name in IGNORE_FILE_NAMES:
            if file_name not in names:
                continue
            try:
                data = file_source.read_bytes(os.path.join(directory, file_name))
            except OSError:
                continue
            text = data.decode("utf-8", "replace")
            for line in text.split("\n"):
                if line.endswith("\r"):
                    line = line[:-1]
                pattern = pi_ignore_pattern(line, prefix)
                if pattern is None or pattern in ("", "!"):
                    continue
                rule = parse_rule(pattern)
                if rule is not None:
                    added.append(replace(rule, ignore_case=True))
        if not added:
            return self
        return PiIgnoreRules(self._rules + tuple(added))

    def ignores(self, relative_path: str, is_dir: bool) -> bool:
        """Whether ``relative_path`` (relative to the scan root) is ignored."""
        if self._matcher is None:
            return False
        return self._matcher.match(os.fsencode(relative_path), is_dir) is True
