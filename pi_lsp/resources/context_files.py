"""Context files (spec §3.1): ``AGENTS.override.md`` … ``CLAUDE.MD`` from the agent dir and
from every directory between the filesystem root and the cwd.

Per directory the first candidate name that is a regular file wins; the agent dir's file comes
first, then the ancestors outermost first. A linked git worktree nested inside its main
checkout does not also load the main checkout's file of the same name. Context files are loaded
whatever the project trust. All reads go through a :class:`FileSource`, so unsaved editor
buffers count; a file that cannot be read yields a :class:`Finding` and the next name is tried.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from pi_lsp.regular_files import MAX_RESOURCE_FILE_BYTES, file_kind, read_regular_text
from pi_lsp.resources.agent_dir import (
    canonicalize_path,
    decode_text,
    node_error_text,
    offset_to_position,
    resolve_path,
)
from pi_lsp.resources.file_source import DISK, FileSource
from pi_lsp.resources.model import Finding, RelatedLocation, SourceRange
from pi_lsp.tools.paths import ancestor_dirs

CONTEXT_FILE_NAMES = ("AGENTS.override.md", "AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD")

ContextScope = Literal["global", "project"]


@dataclass(frozen=True, slots=True)
class ContextFile:
    """A loaded context file. ``content`` is the text without a leading BOM; ``shadows`` lists
    the other candidate files in the same directory that lose to this one."""

    path: str
    content: str
    scope: ContextScope
    shadows: tuple[str, ...] = ()
    had_bom: bool = False
    version: object = None

    @property
    def directory(self) -> str:
        return os.path.dirname(self.path)

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def where(self) -> SourceRange:
        return SourceRange.whole_text(self.path, self.content)


@dataclass(frozen=True, slots=True)
class GitPaths:
    """What Pi's ``findGitPaths`` finds from a directory upward."""

    repo_dir: str
    common_git_dir: str
    head_path: str


@dataclass(frozen=True, slots=True)
class WorktreeShadow:
    """In a linked worktree nested inside its main checkout, the main checkout's file that the
    worktree's own file of the same name replaces (``shadowed_path`` is a realpath)."""

    shadowed_path: str
    worktree_file: str
    worktree_root: str
    main_repo_root: str


@dataclass(frozen=True, slots=True)
class ContextFiles:
    """The context files in prompt order, what went wrong, and what a worktree left out."""

    files: tuple[ContextFile, ...]
    findings: tuple[Finding, ...] = ()
    suppressed: tuple[ContextFile, ...] = ()
    worktree: WorktreeShadow | None = None
    disabled: bool = False

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(f.path for f in self.files)


def _invalid_utf8_finding(path: str, text: str, offset: int) -> Finding:
    line, column = offset_to_position(text, offset)
    return Finding(
        SourceRange(path, line, column, line, column + 1),
        "warning",
        "context-file-invalid-utf8",
        f"{os.path.basename(path)} is not valid UTF-8; invalid bytes are read as U+FFFD",
    )


def _special_file_finding(path: str, name: str) -> Finding | None:
    """A warning when a candidate name is a pipe, socket or device (Pi skips it silently)."""
    try:
        kind = file_kind(os.stat(path).st_mode)
    except OSError:
        return None
    if kind is None or kind == "directory":
        return None
    return Finding(
        SourceRange(path),
        "warning",
        "context-file-not-regular",
        f"{name} is a {kind}, not a regular file: pi-lsp does not read it, Pi skips it, and "
        "the next candidate name is tried",
    )


def same_file(a: str, b: str) -> bool:
    """Whether two paths name one file (a symlink and its target are one file)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def loaded_as(files: tuple[ContextFile, ...], path: str) -> ContextFile | None:
    """The loaded context file that ``path`` is: by name, else by identity (``CLAUDE.md``
    linked to the ``AGENTS.md`` Pi reads is that file, not a shadowed one)."""
    by_name = next((f for f in files if f.path == path), None)
    return by_name or next((f for f in files if same_file(f.path, path)), None)


def read_context_file(
    directory: str, scope: ContextScope = "project", *, source: FileSource = DISK
) -> tuple[ContextFile | None, tuple[Finding, ...]]:
    """The context file Pi picks in ``directory`` (or ``None``), plus read problems."""
    findings: list[Finding] = []
    for index, name in enumerate(CONTEXT_FILE_NAMES):
        path = os.path.join(directory, name)
        if not source.is_file(path):
            special = _special_file_finding(path, name)
            if special is not None:
                findings.append(special)
            continue
        version = source.version(path)
        try:
            raw = source.read_bytes(path)
        except OSError as error:
            pi_error = f"Error: {node_error_text(error, 'open', path)}"
            findings.append(
                Finding(
                    SourceRange(path),
                    "warning",
                    "context-file-unreadable",
                    f"Cannot read {name} ({error.strerror or error}); the next candidate "
                    "name is tried",
                    pi_message=f"Warning: Could not read {path}: {pi_error}",
                )
            )
            continue
        text, had_bom, first_bad = decode_text(raw)
        if first_bad is not None:
            findings.append(_invalid_utf8_finding(path, text, first_bad))
        shadows = tuple(
            other
            for other in (os.path.join(directory, n) for n in CONTEXT_FILE_NAMES[index + 1 :])
            if source.is_file(other) and not same_file(other, path)
        )
        return ContextFile(path, text, scope, shadows, had_bom, version), tuple(findings)
    return None, tuple(findings)


def _node_resolve(base: str, path: str) -> str:
    """Node's ``path.resolve(base, path)`` (no ``~`` expansion)."""
    return os.path.normpath(os.path.join(base, path))


def find_git_paths(cwd: str) -> GitPaths | None:
    """Pi's ``findGitPaths``: the first ``.git`` from ``cwd`` upward (a directory, or a file
    ``gitdir: X``); ``None`` when there is none or it does not lead to a ``HEAD``."""
    for directory in ancestor_dirs(cwd):
        git_path = os.path.join(directory, ".git")
        if os.path.exists(git_path):
            try:
                if os.path.isfile(git_path):
                    content = read_regular_text(git_path, MAX_RESOURCE_FILE_BYTES).strip()
                    if content.startswith("gitdir: "):
                        git_dir = _node_resolve(directory, content[8:].strip())
                        head = os.path.join(git_dir, "HEAD")
                        if not os.path.exists(head):
                            return None
                        common_file = os.path.join(git_dir, "commondir")
                        common = git_dir
                        if os.path.exists(common_file):
                            common_text = read_regular_text(common_file, MAX_RESOURCE_FILE_BYTES)
                            common = _node_resolve(git_dir, common_text.strip())
                        return GitPaths(directory, common, head)
                elif os.path.isdir(git_path):
                    head = os.path.join(git_path, "HEAD")
                    if not os.path.exists(head):
                        return None
                    return GitPaths(directory, git_path, head)
            except OSError:
                return None
    return None


def find_worktree_shadow(cwd: str, *, source: FileSource = DISK) -> WorktreeShadow | None:
    """The main checkout's context file that a nested linked worktree's own file replaces.

    Only for a worktree strictly inside the main checkout whose ``.git`` is the common git
    dir (not a sibling worktree, a bare-repo container or a submodule) and whose root has a
    context file of its own.
    """
    git = find_git_paths(cwd)
    if git is None:
        return None
    common = canonicalize_path(git.common_git_dir)
    worktree_root = canonicalize_path(git.repo_dir)
    main_root = os.path.dirname(common)
    if not worktree_root.startswith(main_root + os.sep):
        return None
    if canonicalize_path(os.path.join(main_root, ".git")) != common:
        return None
    own, _ = read_context_file(worktree_root, source=source)
    if own is None:
        return None
    return WorktreeShadow(os.path.join(main_root, own.name), own.path, worktree_root, main_root)


def _dedupe_findings(findings: list[Finding]) -> tuple[Finding, ...]:
    seen: set[tuple[str, str, str]] = set()
    out: list[Finding] = []
    for finding in findings:
        key = (finding.where.path, finding.rule, finding.message)
        if key not in seen:
            seen.add(key)
            out.append(finding)
    return tuple(out)


def load_context_files(
    cwd: str,
    agent_dir: str,
    *,
    no_context_files: bool = False,
    source: FileSource = DISK,
) -> ContextFiles:
    """Pi's ``loadProjectContextFiles`` (``no_context_files`` = ``--no-context-files``)."""
    if no_context_files:
        return ContextFiles((), disabled=True)
    resolved_cwd = resolve_path(cwd)
    findings: list[Finding] = []
    files: list[ContextFile] = []
    seen: set[str] = set()

    global_file, problems = read_context_file(resolve_path(agent_dir), "global", source=source)
    findings.extend(problems)
    if global_file is not None:
        files.append(global_file)
        seen.add(global_file.path)

    shadow = find_worktree_shadow(resolved_cwd, source=source)
    ancestors: list[ContextFile] = []
    suppressed: list[ContextFile] = []
    for directory in ancestor_dirs(resolved_cwd):
        found, problems = read_context_file(directory, source=source)
        findings.extend(problems)
        if found is not None:
            if shadow is not None and canonicalize_path(found.path) == shadow.shadowed_path:
                suppressed.append(found)
                findings.append(_suppressed_finding(found, shadow))
            elif found.path not in seen:
                ancestors.append(found)
                seen.add(found.path)
    files.extend(reversed(ancestors))
    return ContextFiles(
        tuple(files),
        _dedupe_findings(findings),
        tuple(suppressed),
        shadow if suppressed else None,
    )


def _suppressed_finding(file: ContextFile, shadow: WorktreeShadow) -> Finding:
    return Finding(
        SourceRange(file.path),
        "information",
        "context-file-worktree-shadowed",
        f"Not loaded in the linked worktree {shadow.worktree_root}: its own {file.name} "
        "replaces this one",
        related=(
            RelatedLocation(SourceRange(shadow.worktree_file), "the worktree's own context file"),
        ),
    )
