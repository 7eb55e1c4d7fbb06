"""What the language server knows between requests: open buffers, snapshots, published files.

Plain Python, no pygls: the server module adapts it to the protocol. Lint results are keyed by
absolute path so that files which are not open get diagnostics too.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field

from pi_lsp.lint.checks import LintSettings
from pi_lsp.lint.engine import Diagnostic, LintConfig, lint_resources, working_directories
from pi_lsp.resources.file_source import OverlayFileSource
from pi_lsp.resources.loader import LoadOptions, ResourceCache, Resources, load_resources
from pi_lsp.server.settings import ServerSettings


@dataclass
class WorkspaceState:
    root: str
    settings: ServerSettings = field(default_factory=ServerSettings)
    buffers: dict[str, tuple[int, str]] = field(default_factory=dict)  # path -> (version, text)
    cache: ResourceCache = field(default_factory=ResourceCache)
    snapshots: dict[str, Resources] = field(default_factory=dict)  # cwd -> snapshot
    published: set[str] = field(default_factory=set)  # paths with diagnostics shown

    def file_source(self) -> OverlayFileSource:
        return OverlayFileSource(self.buffers)

    def snapshot(self, cwd: str) -> Resources:
        """The snapshot for ``cwd``, loaded now (with the overlay and the shared cache)."""
        options = LoadOptions(cwd=cwd, agent_dir=self.settings.agent_dir)
        resources = load_resources(options, self.file_source(), self.cache)
        self.snapshots[resources.cwd] = resources
        return resources

    def lint(self) -> dict[str, list[Diagnostic]]:
        """Diagnostics of every working directory under the root, grouped by file."""
        config = LintConfig(
            settings=LintSettings(model_window=self.settings.model_window),
            severities=self.settings.severities,
        )
        by_path: dict[str, list[Diagnostic]] = defaultdict(list)
        seen: set[tuple[object, ...]] = set()
        for cwd in working_directories(self.root):
            for diagnostic in lint_resources(self.snapshot(cwd), config):
                f = diagnostic.finding
                key = (f.where, f.rule, f.message)
                if key not in seen:
                    seen.add(key)
                    by_path[f.where.path].append(diagnostic)
        return by_path

    def text_of(self, path: str) -> str | None:
        buffer = self.buffers.get(path)
        if buffer is not None:
            return buffer[1]
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                return handle.read()
        except OSError:
            return None

    def cwd_for(self, path: str) -> str:
        """The working directory a file speaks for: its folder, or the root for others."""
        folder = os.path.dirname(path)
        return folder if os.path.isdir(folder) else self.root
