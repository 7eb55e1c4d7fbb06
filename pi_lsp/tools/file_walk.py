"""A directory walk that sees what fd sees (the search behind Pi's ``find``).

fd lists files, directories and symlinks (not followed) below a root, hidden ones included with
``--hidden``, and leaves out what ignore files exclude. Like fd's ``ignore`` crate this walk
reads, in every directory and in every ancestor of the root:

* ``.fdignore`` (strongest), then ``.ignore``, then ``.gitignore``, then ``.git/info/exclude``;
  for each kind the rules of the nearest directory that has a matching rule decide;
* git's global excludes file and fd's own global ignore file (weakest).

With ``require_git`` (fd's default, which Pi keeps inside a git repository) git's rules of
directories above the repository root are not used; without it they apply everywhere. Rules are
matched per entry, so an ignored directory is never entered. ``.git`` directories are skipped.

Entries come out in one deterministic order: a depth-first walk with each directory's entries
in byte order, which is the order fd prints a small search in.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pi_lsp.tools.ignore_rules import (
    IgnoreFile,
    fd_global_ignore_path,
    git_global_excludes_path,
    load_ignore_file,
)
from pi_lsp.tools.paths import ancestor_dirs, find_git_root

FD_IGNORE = b".fdignore"
DOT_IGNORE = b".ignore"
GIT_IGNORE = b".gitignore"
GIT_DIR = b".git"
_RULE_FILES = (FD_IGNORE, DOT_IGNORE, GIT_IGNORE, GIT_DIR)


class WalkCancelled(Exception):
    """The caller asked the walk to stop."""


@dataclass(frozen=True, slots=True)
class FoundEntry:
    """One entry of the walk: its path relative to the root (``/``-separated) and its kind."""

    relative: bytes
    absolute: bytes
    name: bytes
    is_dir: bool


@dataclass(frozen=True, slots=True)
class _DirRules:
    """The rule files of one directory."""

    fd_ignore: IgnoreFile | None
    dot_ignore: IgnoreFile | None
    git_ignore: IgnoreFile | None
    git_exclude: IgnoreFile | None
    has_git: bool

    @property
    def anything(self) -> bool:
        return self.has_git or any(
            rules is not None
            for rules in (self.fd_ignore, self.dot_ignore, self.git_ignore, self.git_exclude)
        )


@dataclass(frozen=True, slots=True)
class _RuleChains:
    """For each kind of rule file, the files that apply in one directory, nearest first."""

    fd_ignore: tuple[IgnoreFile, ...] = ()
    dot_ignore: tuple[IgnoreFile, ...] = ()
    git_ignore: tuple[IgnoreFile, ...] = ()
    git_exclude: tuple[IgnoreFile, ...] = ()

    def below(self, rules: _DirRules) -> _RuleChains:
        """The chains for the entries of a directory with ``rules``, inside this one."""
        if not rules.anything:
            return self
        return _RuleChains(
            fd_ignore=_prepend(rules.fd_ignore, self.fd_ignore),
            dot_ignore=_prepend(rules.dot_ignore, self.dot_ignore),
            # A repository root ends git's rules: those of directories above it do not apply.
            git_ignore=_prepend(rules.git_ignore, () if rules.has_git else self.git_ignore),
            git_exclude=_prepend(rules.git_exclude, () if rules.has_git else self.git_exclude),
        )

    def decide(self, path: bytes, is_dir: bool) -> bool | None:
        """``True`` ignored, ``False`` whitelisted, ``None`` when no rule file speaks."""
        for chain in (self.fd_ignore, self.dot_ignore, self.git_ignore, self.git_exclude):
            for rules in chain:
                verdict = rules.match(path, is_dir)
                if verdict is not None:
                    return verdict
        return None


def _prepend(first: IgnoreFile | None, rest: tuple[IgnoreFile, ...]) -> tuple[IgnoreFile, ...]:
    return rest if first is None else (first, *rest)


class FdWalk:
    """The entries fd would visit below ``root``, with fd's default ignore handling."""

    def __init__(
        self,
        root: str,
        *,
        require_git: bool,
        home: Path | None = None,
        working_dir: str | None = None,
        cancelled: threading.Event | None = None,
    ) -> None:
        self.root = os.fsencode(root)
        self.require_git = require_git
        self.cancelled = cancelled
        self._globals = _global_rules(home, os.fsencode(working_dir or root))

    def entries(self) -> Iterator[FoundEntry]:
        """Every visible entry, parents before children, siblings in byte order.

        The walk keeps its own stack of open directories, so a tree of any depth is walked
        without recursion.
        """
        stack = [self._children(self.root, b"", self._ancestor_chains())]
        while stack:
            found = next(stack[-1], None)
            if found is None:
                stack.pop()
                continue
            entry, chains = found
            yield entry
            if entry.is_dir:
                stack.append(self._children(entry.absolute, entry.relative, chains))

    def _ancestor_chains(self) -> _RuleChains:
        chains = _RuleChains()
        ancestors = list(ancestor_dirs(os.path.dirname(self.root)))
        for directory in reversed(ancestors):
            names = {name for name in _RULE_FILES if os.path.lexists(os.path.join(directory, name))}
            chains = chains.below(self._dir_rules(directory, names))
        return chains

    def _children(
        self, directory: bytes, relative: bytes, chains: _RuleChains
    ) -> Iterator[tuple[FoundEntry, _RuleChains]]:
        """The visible entries of one directory, each with the rules that apply below it."""
        if self.cancelled is not None and self.cancelled.is_set():
            raise WalkCancelled
        try:
            with os.scandir(directory) as listing:
                children = sorted(listing, key=lambda entry: entry.name)
        except OSError:
            return
        names = {child.name for child in children}
        chains = chains.below(self._dir_rules(directory, names))
        for child in children:
            is_dir = _is_real_dir(child)
            if is_dir and child.name == GIT_DIR:
                continue
            if self._ignored(chains, child.path, is_dir):
                continue
            child_relative = relative + b"/" + child.name if relative else child.name
            yield FoundEntry(child_relative, child.path, child.name, is_dir), chains

    def _ignored(self, chains: _RuleChains, path: bytes, is_dir: bool) -> bool:
        verdict = chains.decide(path, is_dir)
        if verdict is None:
            for rules in self._globals:
                verdict = rules.match(path, is_dir)
                if verdict is not None:
                    break
        return bool(verdict)

    def _dir_rules(self, directory: bytes, names: set[bytes]) -> _DirRules:
        def load(name: bytes) -> IgnoreFile | None:
            if name not in names:
                return None
            return load_ignore_file(directory, os.path.join(directory, name))

        exclude = None
        if GIT_DIR in names:
            exclude_path = os.path.join(directory, GIT_DIR, b"info", b"exclude")
            exclude = load_ignore_file(directory, exclude_path)
        return _DirRules(
            fd_ignore=load(FD_IGNORE),
            dot_ignore=load(DOT_IGNORE),
            git_ignore=load(GIT_IGNORE),
            git_exclude=exclude,
            has_git=self.require_git and GIT_DIR in names,
        )


def _is_real_dir(entry: os.DirEntry[bytes]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


def _global_rules(home: Path | None, working_dir: bytes) -> tuple[IgnoreFile, ...]:
    """Git's global excludes (relative to the working directory), then fd's global ignore."""
    found = []
    git_excludes = git_global_excludes_path(home)
    if git_excludes is not None and _is_file(git_excludes):
        rules = load_ignore_file(working_dir, git_excludes)
        if rules is not None:
            found.append(rules)
    fd_ignore = fd_global_ignore_path(home)
    if fd_ignore is not None and _is_file(fd_ignore):
        rules = load_ignore_file(os.fsencode(fd_ignore.parent), fd_ignore)
        if rules is not None:
            found.append(rules)
    return tuple(found)


def _is_file(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except OSError:
        return False


def inside_git_repository(path: str) -> bool:
    """Whether ``path`` or one of its ancestors holds a ``.git`` entry (Pi's fd switch)."""
    return find_git_root(os.path.abspath(path), follow_symlinks=False) is not None
