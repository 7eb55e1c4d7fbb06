"""Which files under a skills folder are skill files (spec §5.2, Pi's ``collectSkillEntries``).

Per directory, visited depth-first with entries in byte order:

* a ``SKILL.md`` (a regular file or a link to one, not ignored) makes it a skill folder: that
  file is its only entry and nothing below it is visited;
* otherwise names starting with ``.`` and ``node_modules`` are skipped; a ``*.md`` file is taken
  in mode ``"pi"`` only at the scan root and in mode ``"agents"`` only below it; directories
  (links followed, broken links skipped) are visited unless ignored;
* ``.gitignore``, ``.ignore`` and ``.fdignore`` apply at every level, re-rooted to the scan root
  (:mod:`pi_lsp.resources.resource_walk`).

Pi walks into a symbolic-link loop until the system refuses (then skips silently) and ignores
unreadable folders; here a loop is cut when a directory's real path is already on the walk and
both cases are reported as findings without a Pi message.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Literal

from pi_lsp.resources.file_source import FileSource
from pi_lsp.resources.model import Finding, SourceRange
from pi_lsp.resources.resource_walk import DirItem, PiIgnoreRules, list_directory

__all__ = ["ScanMode", "SkillCandidate", "SkillDiscovery", "discover_skill_files"]

#: ``"pi"``: ``*.md`` files count at the root only (``~/.pi/agent/skills``, ``.pi/skills``, and
#: explicit folders); ``"agents"``: only below the root (``.agents/skills``).
ScanMode = Literal["pi", "agents"]


@dataclass(frozen=True, slots=True)
class SkillCandidate:
    """A file to load as a skill: the path as reached, and its real path (for de-duplication)."""

    path: str
    real_path: str


@dataclass(slots=True)
class SkillDiscovery:
    """The files found under one root, in load order, plus problems met on the way."""

    candidates: list[SkillCandidate] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    #: every directory listed (for file watchers)
    directories: list[str] = field(default_factory=list)


def discover_skill_files(
    root: str, mode: ScanMode, file_source: FileSource, *, explicit: bool = False
) -> SkillDiscovery:
    """The skill files under the directory ``root`` (nothing if it does not exist).

    ``explicit`` marks a folder given as a skill path (``--skill``, settings): a file with a
    non-UTF-8 name is then reported as Pi's read error instead of Pi's missing-path warning.
    """
    result = SkillDiscovery()
    if not os.path.isdir(root):
        return result
    walker = _Walker(root, mode, file_source, explicit, result)
    real_root = os.path.realpath(root)
    walker.visit(root, "", real_root, PiIgnoreRules(), {real_root})
    return result


class _Walker:
    def __init__(
        self,
        root: str,
        mode: ScanMode,
        file_source: FileSource,
        explicit: bool,
        result: SkillDiscovery,
    ) -> None:
        self.root = root
        self.mode = mode
        self.file_source = file_source
        self.explicit = explicit
        self.result = result

    def visit(
        self,
        directory: str,
        relative: str,
        real_dir: str,
        rules: PiIgnoreRules,
        active: set[str],
    ) -> None:
        try:
            items = list_directory(directory)
        except OSError as exc:
            self._unreadable(directory, exc)
            return
        self.result.directories.append(directory)
        rules = rules.extended(directory, relative, {item.name for item in items}, self.file_source)
        at_root = not relative

        for item in items:
            if item.name != "SKILL.md" or not item.is_file:
                continue
            if rules.ignores(_join(relative, item.name), False):
                continue
            self._take(item, real_dir)
            return

        for item in items:
            name = item.name
            if name.startswith(".") or name == "node_modules":
                continue
            if not item.is_dir and not item.is_file:
                continue
            item_relative = _join(relative, name)
            if (
                item.is_file
                and name.endswith(".md")
                and not rules.ignores(item_relative, False)
                and ((self.mode == "pi" and at_root) or (self.mode == "agents" and not at_root))
            ):
                self._take(item, real_dir)
                continue
            if not item.is_dir or rules.ignores(item_relative, True):
                continue
            if not item.utf8:
                self._not_utf8(item, is_dir=True)
                continue
            child_real = os.path.realpath(item.path) if item.is_symlink else f"{real_dir}/{name}"
            if child_real in active:
                self._loop(item, child_real)
                continue
            active.add(child_real)
            self.visit(item.path, item_relative, child_real, rules, active)
            active.discard(child_real)

    def _take(self, item: DirItem, real_dir: str) -> None:
        if not item.utf8:
            self._not_utf8(item, is_dir=False)
            return
        real = os.path.realpath(item.path) if item.is_symlink else f"{real_dir}/{item.name}"
        self.result.candidates.append(SkillCandidate(item.path, real))

    def _unreadable(self, directory: str, exc: OSError) -> None:
        reason = exc.strerror or str(exc)
        self.result.findings.append(
            Finding(
                SourceRange(directory),
                "warning",
                "skill-directory-unreadable",
                f"Cannot list this skills folder ({reason}); skills inside it are not loaded "
                "(Pi skips it without a message).",
            )
        )

    def _loop(self, item: DirItem, target: str) -> None:
        self.result.findings.append(
            Finding(
                SourceRange(item.path),
                "warning",
                "skill-directory-loop",
                f"This link leads back to {target}, a folder already being scanned; it is not "
                "followed again.",
                data={"target": target},
            )
        )

    def _not_utf8(self, item: DirItem, *, is_dir: bool) -> None:
        shown = os.fsencode(item.path).decode("utf-8", "replace")
        pi_message: str | None = None
        if not is_dir:
            pi_message = (
                f"ENOENT: no such file or directory, open '{shown}'"
                if self.explicit
                else "skill path does not exist"
            )
        kind = "folder" if is_dir else "file"
        self.result.findings.append(
            Finding(
                SourceRange(shown),
                "warning",
                "skill-path-not-utf8",
                f"This {kind} name is not valid UTF-8; Pi cannot open it, so it is skipped.",
                pi_message=pi_message,
            )
        )


def _join(relative: str, name: str) -> str:
    return f"{relative}/{name}" if relative else name
