"""Gitignore-style rule files read the way fd's ``ignore`` crate reads them.

One :class:`IgnoreFile` holds the rules of one file (``.gitignore``, ``.ignore``, ``.fdignore``,
``.git/info/exclude`` or a global excludes file), matched against paths relative to the
directory the rules belong to. Within a file the last matching rule wins; a rule starting with
``!`` re-includes (whitelists) what an earlier one excluded, a trailing ``/`` limits a rule to
directories, and a rule with a ``/`` before its end is anchored to the rules' directory.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pi_lsp.regular_files import MAX_RESOURCE_FILE_BYTES, read_regular_file
from pi_lsp.tools.glob_automaton import GlobAutomaton, GlobSpec
from pi_lsp.tools.glob_regex import GlobError, GlobOptions, Token, parse_glob

_GITIGNORE_GLOB = GlobOptions(
    literal_separator=True, backslash_escape=True, allow_unclosed_class=True
)
_BOM = "\ufeff"


@dataclass(frozen=True, slots=True)
class IgnoreRule:
    """One usable line of a rule file."""

    tokens: tuple[Token, ...]
    whitelist: bool
    only_dir: bool
    ignore_case: bool = False


def parse_rule(line: str) -> IgnoreRule | None:
    """The rule a line states, or ``None`` for blank lines, comments and invalid globs."""
    if line.startswith("#"):
        return None
    if not line.endswith("\\ "):
        line = line.rstrip()
    if not line:
        return None
    whitelist = False
    anchored = False
    if line.startswith(("\\!", "\\#")):
        line = line[1:]
        anchored = line.startswith("/")
    else:
        if line.startswith("!"):
            whitelist = True
            line = line[1:]
        if line.startswith("/"):
            line = line[1:]
            anchored = True
    only_dir = line.endswith("/")
    if only_dir:
        line = line[:-1]
        if line.endswith("\\"):
            line = line[:-1]
    glob = line
    if not anchored and "/" not in line and not (glob.startswith("**/") or glob == "**"):
        glob = "**/" + glob
    if glob.endswith("/**"):
        glob += "/*"
    try:
        tokens = parse_glob(glob, _GITIGNORE_GLOB)
    except GlobError:
        return None
    return IgnoreRule(tokens, whitelist, only_dir)


class IgnoreFile:
    """The rules of one file, for paths under ``root``.

    :meth:`match` answers ``True`` (ignored), ``False`` (whitelisted) or ``None`` (no rule).
    """

    def __init__(self, root: bytes, rules: Iterable[IgnoreRule]) -> None:
        self.root = root.rstrip(b"/")
        self._prefix = self.root + b"/"
        ordered = list(rules)
        self._whitelist = [rule.whitelist for rule in ordered]
        self._any = _combined(ordered, include_dir_only=True)
        self._files = _combined(ordered, include_dir_only=False)

    def match(self, path: bytes, is_dir: bool) -> bool | None:
        """Whether the rules ignore ``path`` (absolute, or already relative to the root)."""
        if path.startswith(self._prefix):
            path = path[len(self._prefix) :]
        matcher, indexes = self._any if is_dir else self._files
        if matcher is None:
            return None
        found = matcher.last_match(path)
        if found is None:
            return None
        return not self._whitelist[indexes[found]]


def _combined(
    rules: list[IgnoreRule], *, include_dir_only: bool
) -> tuple[GlobAutomaton | None, list[int]]:
    """One automaton for the rules (the last rule that matches wins) and each one's index."""
    indexes = [i for i, rule in enumerate(rules) if include_dir_only or not rule.only_dir]
    if not indexes:
        return None, []
    specs = [GlobSpec(rules[i].tokens, _GITIGNORE_GLOB, rules[i].ignore_case) for i in indexes]
    return GlobAutomaton(specs), indexes


def read_rule_lines(path: str | os.PathLike[str] | bytes) -> list[str]:
    """The lines of a rule file (a leading BOM dropped); empty when it cannot be read."""
    try:
        data = read_regular_file(os.fsdecode(path), MAX_RESOURCE_FILE_BYTES)
    except OSError:
        return []
    text = data.decode("utf-8", "replace")
    if text.startswith(_BOM):
        text = text[1:]
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def load_ignore_file(root: bytes, path: str | os.PathLike[str] | bytes) -> IgnoreFile | None:
    """The rules of the file at ``path`` for paths under ``root``; ``None`` when it has none."""
    rules = [rule for line in read_rule_lines(path) if (rule := parse_rule(line)) is not None]
    return IgnoreFile(root, rules) if rules else None


# --- global rule files ---------------------------------------------------------------------------

# blanks inside one line only: \s would let every line start scan all the line breaks after it
_EXCLUDES_FILE = re.compile(
    rb'(?im)^[ \t]*+excludesfile[ \t]*+=[ \t]*+"?[ \t]*+(\S+?)[ \t]*+"?[ \t]*+$'
)


def git_global_excludes_path(home: Path | None = None) -> Path | None:
    """Git's global excludes file as the ``ignore`` crate finds it (may not exist)."""
    home = home if home is not None else _home()
    config_home = _config_home(home)
    candidates = []
    global_config = os.environ.get("GIT_CONFIG_GLOBAL")
    if global_config:
        candidates.append(Path(global_config))
    if home is not None:
        candidates.append(home / ".gitconfig")
    if config_home is not None:
        candidates.append(config_home / "git" / "config")
    for config in candidates:
        excludes = _excludes_file_setting(config, home)
        if excludes is not None:
            return excludes
    return config_home / "git" / "ignore" if config_home is not None else None


def fd_global_ignore_path(home: Path | None = None) -> Path | None:
    """fd's own global ignore file (``$XDG_CONFIG_HOME/fd/ignore``)."""
    config_home = _config_home(home if home is not None else _home())
    return config_home / "fd" / "ignore" if config_home is not None else None


def _excludes_file_setting(config: Path, home: Path | None) -> Path | None:
    try:
        data = read_regular_file(str(config), MAX_RESOURCE_FILE_BYTES)
    except OSError:
        return None
    found = _EXCLUDES_FILE.search(data)
    if found is None:
        return None
    try:
        value = found.group(1).decode("utf-8")
    except UnicodeDecodeError:
        return None
    if home is not None:
        value = value.replace("~", str(home))
    return Path(value)


def _home() -> Path | None:
    home = os.environ.get("HOME")
    return Path(home) if home else None


def _config_home(home: Path | None) -> Path | None:
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        return Path(xdg)
    return home / ".config" if home is not None else None
