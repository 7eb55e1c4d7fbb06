"""What the language server knows between requests: buffers, snapshots, lint, what is shown.

Plain Python, no pygls: the server adapts it to the protocol. A rebuild takes the changed paths
(its reason), reloads only the working directories those paths can affect — each one
incrementally through ``reload_resources`` — and re-lints only the snapshots that changed.
Lint results are keyed by absolute path so that files which are not open get diagnostics too.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from pi_lsp.lint.checks import LintRun, LintSettings
from pi_lsp.lint.engine import (
    Diagnostic,
    LintConfig,
    lint_resources,
    merge_working_directories,
    working_directories,
)
from pi_lsp.prompt.assemble import build_prompt
from pi_lsp.prompt.system_prompt import PromptDocument
from pi_lsp.regular_files import MAX_RESOURCE_FILE_BYTES, read_regular_text
from pi_lsp.resources.context_files import CONTEXT_FILE_NAMES
from pi_lsp.resources.file_source import DISK, FileSource, OverlayFileSource
from pi_lsp.resources.loader import (
    LoadOptions,
    ResourceCache,
    Resources,
    load_resources,
    reload_resources,
)
from pi_lsp.resources.relevance import affecting_changes
from pi_lsp.server.settings import ServerSettings

Progress = Callable[[int, int, str], None]  # (done, total, cwd)


@dataclass(frozen=True)
class Rebuild:
    """What one rebuild did: its reason, what it reloaded, and the diagnostics by file."""

    reason: frozenset[str] | None  # None: everything
    reloaded: tuple[str, ...]  # working directories whose snapshot changed
    diagnostics: Mapping[str, list[Diagnostic]]


@dataclass
class WorkspaceState:
    root: str
    settings: ServerSettings = field(default_factory=ServerSettings)
    buffers: dict[str, tuple[int, str]] = field(default_factory=dict)  # path -> (version, text)
    cache: ResourceCache = field(default_factory=ResourceCache)
    #: where files without an open buffer are read from
    disk: FileSource = DISK
    snapshots: dict[str, Resources] = field(default_factory=dict)  # real cwd -> snapshot
    #: diagnostics by file after the last rebuild
    diagnostics: Mapping[str, list[Diagnostic]] = field(default_factory=dict)
    _linted: dict[str, tuple[Resources, list[Diagnostic]]] = field(default_factory=dict)
    _cwds: list[str] | None = None
    _prompts: dict[str, tuple[Resources, PromptDocument]] = field(default_factory=dict)
    _realpaths: dict[str, str] = field(default_factory=dict)
    _read_sets: dict[str, tuple[Resources, frozenset[str]]] = field(default_factory=dict)

    def file_source(
        self, buffers: Mapping[str, tuple[int, str]] | None = None
    ) -> OverlayFileSource:
        return OverlayFileSource(dict(self.buffers if buffers is None else buffers), self.disk)

    def options(self, cwd: str) -> LoadOptions:
        return LoadOptions(cwd=cwd, agent_dir=self.settings.agent_dir)

    def snapshot(self, cwd: str) -> Resources:
        """The latest snapshot for ``cwd``, loaded now if there is none yet."""
        key = os.path.realpath(cwd)
        known = self.snapshots.get(key)
        if known is not None:
            return known
        resources = load_resources(self.options(cwd), self.file_source(), self.cache)
        self.snapshots[resources.cwd] = resources
        return resources

    def prompt(self, cwd: str) -> PromptDocument:
        """The system prompt of ``cwd``'s latest snapshot (built once per snapshot)."""
        resources = self.snapshot(cwd)
        known = self._prompts.get(resources.cwd)
        if known is not None and known[0] is resources:
            return known[1]
        document = build_prompt(resources)
        self._prompts[resources.cwd] = (resources, document)
        return document

    def _real(self, cwd: str) -> str:
        real = self._realpaths.get(cwd)
        if real is None:
            real = self._realpaths[cwd] = os.path.realpath(cwd)
        return real

    def _read_set(self, resources: Resources) -> frozenset[str]:
        """The files ``resources`` was read from, as a set kept as long as the snapshot."""
        known = self._read_sets.get(resources.cwd)
        if known is None or known[0] is not resources:
            known = self._read_sets[resources.cwd] = (
                resources,
                frozenset(resources.watched_files),
            )
        return known[1]

    def lint_config(self) -> LintConfig:
        return LintConfig(
            settings=LintSettings(model_window=self.settings.model_window),
            severities=self.settings.severities,
            file_seconds=self.settings.file_budget_ms / 1000,
        )

    def settings_changed(self, settings: ServerSettings) -> None:
        """New settings: every snapshot and lint result is out of date."""
        self.settings = settings
        self.snapshots.clear()
        self._linted.clear()

    # --- rebuilding -------------------------------------------------------------------------

    def _working_directories(self, changed: Collection[str] | None) -> list[str]:
        """The working directories, walked again only when a context file came or went."""
        known = self._cwds
        if (
            known is None
            or changed is None
            or any(_may_add_or_remove_cwd(p, known) for p in changed)
        ):
            self._cwds = working_directories(self.root)
            self._realpaths.clear()
            return self._cwds
        return known

    def rebuild(
        self,
        changed: Collection[str] | None,
        buffers: Mapping[str, tuple[int, str]] | None = None,
        progress: Progress | None = None,
    ) -> Rebuild:
        """Bring every working directory up to date after ``changed`` (``None``: anything).

        ``buffers`` is a copy of the open buffers taken when the rebuild was asked for (so the
        rebuild can run off the event loop while more edits arrive).
        """
        paths = None if changed is None else {os.path.abspath(p) for p in changed}
        source = self.file_source(buffers)
        cwds = self._working_directories(paths)
        snapshots: dict[str, Resources] = {}
        reloaded: list[str] = []
        for done, cwd in enumerate(cwds):
            if progress is not None:
                progress(done, len(cwds), cwd)
            previous = self.snapshots.get(self._real(cwd))
            if previous is None or paths is None:
                resources = load_resources(self.options(cwd), source, self.cache)
            else:
                affecting = affecting_changes(previous, paths, self._read_set(previous))
                resources = (
                    reload_resources(previous, affecting, source, self.cache)
                    if affecting
                    else previous
                )
            snapshots[resources.cwd] = resources
            if resources is not previous:
                reloaded.append(resources.cwd)
        self.snapshots = snapshots
        self.diagnostics = self._diagnostics(LintRun(source))
        return Rebuild(
            reason=None if paths is None else frozenset(paths),
            reloaded=tuple(reloaded),
            diagnostics=self.diagnostics,
        )

    def _diagnostics(self, run: LintRun) -> dict[str, list[Diagnostic]]:
        """Diagnostics of every snapshot grouped by file, re-linting changed snapshots only
        (``run`` shared by them)."""
        config = self.lint_config()
        linted: dict[str, tuple[Resources, list[Diagnostic]]] = {}
        for cwd, resources in self.snapshots.items():
            known = self._linted.get(cwd)
            if known is not None and known[0] is resources:
                linted[cwd] = known
            else:
                linted[cwd] = (resources, lint_resources(resources, config, run))
        self._linted = linted
        by_path: dict[str, list[Diagnostic]] = defaultdict(list)
        merged = merge_working_directories(
            [(cwd, diagnostics) for cwd, (_, diagnostics) in linted.items()],
            os.path.realpath(self.root),
        )
        for diagnostic in merged:
            by_path[diagnostic.finding.where.path].append(diagnostic)
        return by_path

    def lint(self) -> Mapping[str, list[Diagnostic]]:
        """Diagnostics of every working directory by file (after the last rebuild, or now)."""
        if not self.snapshots:
            self.rebuild(None)
        return self.diagnostics

    # --- reading ----------------------------------------------------------------------------

    def text_of(self, path: str) -> str | None:
        buffer = self.buffers.get(path)
        if buffer is not None:
            return buffer[1]
        try:
            text = read_regular_text(path, MAX_RESOURCE_FILE_BYTES)
        except OSError:
            return None  # missing, unreadable, a pipe or device, too large: nothing to show
        return text.replace("\r\n", "\n").replace("\r", "\n")  # as a text-mode read gives

    def cwd_for(self, path: str) -> str:
        """The working directory a file speaks for: its folder, or the root for others."""
        folder = os.path.dirname(path)
        return folder if os.path.isdir(folder) else self.root


def _may_add_or_remove_cwd(path: str, cwds: Collection[str]) -> bool:
    """A change that can make a folder start or stop being a working directory."""
    if os.path.basename(path) in CONTEXT_FILE_NAMES:
        # a context file appeared where there was no working directory, or one went away
        return os.path.isfile(path) != (os.path.dirname(path) in cwds)
    return not os.path.isfile(path)  # a folder (or something gone): walk again
