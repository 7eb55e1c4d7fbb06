"""Skills: loading an ordered list of skill roots the way Pi 0.85 does (spec §5.2–5.5, §6).

A :class:`SkillRoot` is a folder (or file) with a scan mode and the scope it stands for.
Callers list roots in Pi's order (settings entries, then project ``.pi/skills``, the
``.agents/skills`` folders from the cwd up to the git root, ``agentDir/skills``,
``~/.agents/skills``, and last the CLI ``--skill`` paths, Pi's additional paths);
:func:`load_skills` walks them, loads each file once (by real path) and keeps the first skill
of each name. Later ones become collision findings naming both files. Findings come out as Pi
orders its diagnostics: warnings in load order, then collisions.

Per-file results are cached by ``(path, file_source.version(path))`` in a
:class:`SkillParseCache` the caller may keep between loads, so a reload after one ``SKILL.md``
changed parses that file only.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pi_lsp.resources.agent_dir import canonicalize_path
from pi_lsp.resources.file_source import DISK, FileSource
from pi_lsp.resources.model import Finding, SourceRange, name_collision_finding, pi_diagnostics
from pi_lsp.resources.skill_discovery import ScanMode, SkillCandidate, discover_skill_files
from pi_lsp.resources.skill_files import SkillFile, read_skill_file

__all__ = [
    "LoadSkillsResult",
    "Skill",
    "SkillParseCache",
    "SkillRoot",
    "SkillScope",
    "load_skills",
]

SkillScope = Literal["user", "project", "temporary"]
RootMode = Literal["pi", "agents", "explicit"]


@dataclass(frozen=True, slots=True)
class SkillRoot:
    """A place skills are loaded from.

    ``mode``: ``"pi"`` (``agentDir/skills``, ``.pi/skills``: ``*.md`` files at the top level
    count), ``"agents"`` (``.agents/skills``: ``*.md`` files count only in sub-folders) or
    ``"explicit"`` (a path the user named: ``--skill``, a settings entry, an additional path; a
    folder is scanned like ``"pi"``, a missing path or a non-markdown file is reported).
    ``source``/``origin``/``base_dir`` are Pi's ``sourceInfo`` fields for the skills found here.
    A relative ``path`` is taken relative to the process's working directory.
    """

    path: str
    mode: RootMode = "pi"
    scope: SkillScope = "user"
    source: str = "auto"
    origin: str = "top-level"
    base_dir: str | None = None

    @property
    def explicit(self) -> bool:
        return self.mode == "explicit"


@dataclass(frozen=True, slots=True)
class Skill:
    """A loaded skill (Pi's ``Skill``), with the source ranges of its ``name`` and
    ``description`` keys (``None`` when the key is absent, e.g. a name taken from the folder)."""

    name: str
    description: str
    file_path: str
    base_dir: str
    scope: SkillScope
    source: str
    origin: str
    disable_model_invocation: bool
    name_range: SourceRange | None = None
    description_range: SourceRange | None = None
    source_base_dir: str | None = None
    #: every top-level frontmatter key of the file and where it is
    fields: tuple[tuple[str, SourceRange], ...] = ()

    @property
    def visible(self) -> bool:
        """Whether the model sees this skill in the system prompt."""
        return not self.disable_model_invocation

    @property
    def location(self) -> SourceRange:
        """Where to point at this skill: its ``name:`` key, else the file's first line."""
        return self.name_range or SourceRange.line(self.file_path, 0)


class SkillParseCache:
    """Per-file analysis results keyed by path and the file source's version of the file.

    Keep one instance between :func:`load_skills` calls; entries for files no longer found are
    dropped at the end of each load.
    """

    def __init__(self) -> None:
        self._entries: dict[str, tuple[object, SkillFile]] = {}

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, path: str, version: object) -> SkillFile | None:
        entry = self._entries.get(path)
        if entry is None or version is None or entry[0] != version:
            return None
        return entry[1]

    def peek(self, path: str) -> SkillFile | None:
        """The cached analysis of ``path`` whatever its version (the caller knows it is current)."""
        entry = self._entries.get(path)
        return None if entry is None else entry[1]

    def put(self, path: str, version: object, parsed: SkillFile) -> None:
        if version is None:
            self._entries.pop(path, None)
        else:
            self._entries[path] = (version, parsed)

    def retain(self, paths: Iterable[str]) -> None:
        """Forget every entry whose path is not in ``paths``."""
        keep = set(paths)
        for path in [path for path in self._entries if path not in keep]:
            del self._entries[path]


@dataclass(frozen=True, slots=True)
class LoadSkillsResult:
    """Skills in load order, and findings (warnings in load order, then collisions)."""

    skills: tuple[Skill, ...]
    findings: tuple[Finding, ...]
    #: every skill file considered, and every folder listed (for file watchers)
    files: tuple[str, ...] = ()
    directories: tuple[str, ...] = ()
    #: files analysed during this load, and files whose cached analysis was reused
    parsed: int = 0
    reused: int = 0
    #: the load as it ran: each skill file met, with its root, or a walk finding, in order;
    #: :func:`reload_skills` replays it when only file contents changed
    plan: tuple[tuple[SkillRoot, SkillCandidate] | Finding, ...] = ()

    def by_name(self, name: str) -> Skill | None:
        return next((skill for skill in self.skills if skill.name == name), None)

    def pi_diagnostics(self) -> list[dict[str, Any]]:
        """The diagnostics Pi itself reports, as its ``{type, message, path, collision?}``."""
        return pi_diagnostics(self.findings, "warning")


def load_skills(
    roots: Sequence[SkillRoot],
    file_source: FileSource = DISK,
    *,
    cache: SkillParseCache | None = None,
) -> LoadSkillsResult:
    """Load the skills of ``roots`` in order (see the module notes)."""
    loader = _Loader(file_source, cache if cache is not None else SkillParseCache())
    for root in roots:
        loader.load_root(root)
    loader.cache.retain(loader.files)
    return loader.result()


def reload_skills(
    previous: LoadSkillsResult,
    changed: Collection[str],
    file_source: FileSource = DISK,
    *,
    cache: SkillParseCache,
) -> LoadSkillsResult | None:
    """Load again after the contents of some already-known skill files changed.

    No folder is walked and only the ``changed`` files are read; every other file's analysis
    comes from ``cache``. Returns ``None`` when that is not enough — a changed path that was not
    a skill file of ``previous`` (a new file, an ignore file, a folder) or one that is gone — and
    the caller must run :func:`load_skills`.
    """
    known = set(previous.files)
    if not all(path in known and file_source.is_file(path) for path in changed):
        return None
    loader = _Loader(file_source, cache, unchanged=known.difference(changed))
    for step in previous.plan:
        if isinstance(step, Finding):
            loader.warnings.append(step)
            loader.plan.append(step)
        else:
            loader._load_file(*step)
    return loader.result()


class _Loader:
    def __init__(
        self, file_source: FileSource, cache: SkillParseCache, unchanged: set[str] | None = None
    ) -> None:
        self.file_source = file_source
        self.cache = cache
        self.unchanged = unchanged or set()
        self.plan: list[tuple[SkillRoot, SkillCandidate] | Finding] = []
        self.skills: dict[str, Skill] = {}
        self.warnings: list[Finding] = []
        self.collisions: list[Finding] = []
        self.files: list[str] = []
        self.directories: list[str] = []
        self.seen_real: set[str] = set()
        self.parsed = 0
        self.reused = 0

    def result(self) -> LoadSkillsResult:
        return LoadSkillsResult(
            tuple(self.skills.values()),
            tuple(self.warnings + self.collisions),
            tuple(self.files),
            tuple(self.directories),
            self.parsed,
            self.reused,
            tuple(self.plan),
        )

    def load_root(self, root: SkillRoot) -> None:
        path = os.path.abspath(root.path)
        if root.explicit:
            self._load_explicit(root, path)
            return
        if os.path.isdir(path):
            self._load_folder(root, path, "agents" if root.mode == "agents" else "pi")
        elif path.endswith(".md") and self.file_source.is_file(path):
            self._load_file(root, SkillCandidate(path, canonicalize_path(path)))

    def _load_explicit(self, root: SkillRoot, path: str) -> None:
        if self.file_source.is_file(path):
            if path.endswith(".md"):
                self._load_file(root, SkillCandidate(path, canonicalize_path(path)))
            else:
                self._path_warning(
                    path,
                    "skill-path-not-markdown",
                    "This skill path is a file but not a markdown (.md) file; it is ignored.",
                    "skill path is not a markdown file",
                )
            return
        if os.path.isdir(path):
            self._load_folder(root, path, "pi", explicit=True)
        elif not os.path.exists(path):
            self._path_warning(
                path,
                "skill-path-missing",
                "This skill path does not exist.",
                "skill path does not exist",
            )
        else:
            self._path_warning(
                path,
                "skill-path-not-markdown",
                "This skill path is neither a folder nor a markdown (.md) file; it is ignored.",
                "skill path is not a markdown file",
            )

    def _path_warning(self, path: str, rule: str, message: str, pi_message: str) -> None:
        finding = Finding(SourceRange(path), "warning", rule, message, pi_message=pi_message)
        self.warnings.append(finding)
        self.plan.append(finding)

    def _load_folder(
        self, root: SkillRoot, path: str, mode: ScanMode, *, explicit: bool = False
    ) -> None:
        found = discover_skill_files(path, mode, self.file_source, explicit=explicit)
        self.directories.extend(found.directories)
        self.warnings.extend(found.findings)
        self.plan.extend(found.findings)
        for candidate in found.candidates:
            self._load_file(root, candidate)

    def _analysis(self, path: str) -> SkillFile:
        """The file's analysis: from the cache when it is current, else read and parsed now."""
        parsed = self.cache.peek(path) if path in self.unchanged else None
        if parsed is None:
            version = self.file_source.version(path)
            parsed = self.cache.get(path, version)
            if parsed is None:
                parsed = read_skill_file(path, self.file_source)
                self.cache.put(path, version, parsed)
                self.parsed += 1
                return parsed
        self.reused += 1
        return parsed

    def _load_file(self, root: SkillRoot, candidate: SkillCandidate) -> None:
        if candidate.real_path in self.seen_real:
            return
        self.seen_real.add(candidate.real_path)
        self.plan.append((root, candidate))
        path = candidate.path
        self.files.append(path)
        parsed = self._analysis(path)
        self.warnings.extend(parsed.findings)
        if not parsed.loadable or parsed.name is None or parsed.description is None:
            return
        skill = Skill(
            name=parsed.name,
            description=parsed.description,
            file_path=path,
            base_dir=os.path.dirname(path),
            scope=root.scope,
            source=root.source,
            origin=root.origin,
            disable_model_invocation=parsed.disable_model_invocation,
            name_range=parsed.name_range,
            description_range=parsed.description_range,
            source_base_dir=root.base_dir,
            fields=parsed.fields,
        )
        winner = self.skills.get(skill.name)
        if winner is None:
            self.skills[skill.name] = skill
            return
        self.collisions.append(_collision(skill, winner))


def _collision(loser: Skill, winner: Skill) -> Finding:
    return name_collision_finding(
        loser,
        winner,
        resource_type="skill",
        rule="skill-name-collision",
        message=f'A skill named "{loser.name}" was already loaded from {winner.file_path}; this '
        "one is ignored.",
        related=f'the skill "{winner.name}" that is used',
        pi_name=loser.name,
    )
