"""Running the linter: over one Resources snapshot, or over every working directory of a tree."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from pi_lsp.lint import vocabulary
from pi_lsp.lint.catalogue import Role, load_catalogue, merge, parse_roles
from pi_lsp.lint.checks import LintRun, LintSettings, run_checks
from pi_lsp.lint.rules import Rule, rule_for
from pi_lsp.regular_files import MAX_RESOURCE_FILE_BYTES, read_regular_text
from pi_lsp.resources.context_files import CONTEXT_FILE_NAMES
from pi_lsp.resources.file_source import DISK, FileSource
from pi_lsp.resources.loader import LoadOptions, ResourceCache, Resources, load_resources
from pi_lsp.resources.model import Finding, Severity, SourceRange
from pi_lsp.resources.settings import Settings
from pi_lsp.resources.shown_paths import shown_path

#: Folders never searched for working directories.
SKIPPED_DIRS = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".hg", ".svn"})


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A finding with its rule and the severity it has after configuration."""

    finding: Finding
    rule: Rule
    severity: Severity

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        where = self.finding.where
        return (where.path, where.start_line, where.start_column, self.rule.code)


@dataclass(frozen=True, slots=True)
class LintConfig:
    settings: LintSettings = field(default_factory=LintSettings)
    #: rule name or code -> severity, or "off" to silence it
    severities: Mapping[str, str] = field(default_factory=dict)
    #: seconds one context file may take to be read for instructions (None: no limit)
    file_seconds: float | None = None


def instruction_findings(resources: Resources, seconds: float | None = None) -> list[Finding]:
    """Conflicting and duplicate instructions among the context files that load together,
    each file read for at most ``seconds`` (``None``: no limit), with the catalogue the
    settings extend (``lint.catalogue``); a bad catalogue entry is a finding of its own."""
    from pi_lsp.lint.conflicts import find_conflicts

    words, problems = user_vocabulary(resources.settings)
    chain = [(f.path, f.content) for f in resources.context_files.files]
    if not chain:
        return problems
    with vocabulary.using(words):
        return [*problems, *find_conflicts(chain, seconds=seconds)]


def user_vocabulary(settings: Settings) -> tuple[vocabulary.Vocabulary | None, list[Finding]]:
    """The shipped catalogue plus the roles of ``lint.catalogue`` in the global then the
    project settings (``None``: no user roles), and a finding per entry that cannot be used."""
    roles: list[Role] = []
    problems: list[Finding] = []
    for file in (settings.global_file, settings.project_file):
        lint = file.data.get("lint") if file.status == "loaded" else None
        if not isinstance(lint, Mapping) or "catalogue" not in lint:
            continue
        entries = lint["catalogue"]
        found, errors = parse_roles(entries)
        roles.extend(found)
        for index, message in errors:
            where = _entry_range(file.path, file.key_range("lint"), index)
            problems.append(
                Finding(
                    where,
                    "warning",
                    "lint-catalogue-invalid",
                    f"lint.catalogue in {file.path}: {message}; the entry is skipped",
                    data={"entry": index},
                )
            )
    if not roles:
        return None, problems
    return _compiled(json.dumps([_role_key(r) for r in roles], sort_keys=True), tuple(roles)), (
        problems
    )


def _role_key(role: Role) -> object:
    return repr(role)


_COMPILED: dict[str, vocabulary.Vocabulary] = {}


def _compiled(key: str, roles: tuple[Role, ...]) -> vocabulary.Vocabulary:
    """One compiled vocabulary per distinct set of user roles (a few kept)."""
    found = _COMPILED.get(key)
    if found is None:
        if len(_COMPILED) >= 8:
            _COMPILED.pop(next(iter(_COMPILED)))
        found = _COMPILED[key] = vocabulary.Vocabulary(merge(load_catalogue(), roles), key)
    return found


def _entry_range(path: str, lint: SourceRange | None, index: int) -> SourceRange:
    """Where entry ``index`` of ``lint.catalogue`` starts in the settings file (the ``lint``
    key when it cannot be told)."""
    fallback = lint or SourceRange(path)
    try:  # the file may have been swapped for a pipe or a huge file since it was loaded
        text = read_regular_text(path, MAX_RESOURCE_FILE_BYTES)
    except OSError:
        return fallback
    offset = _entry_offset(text, _line_offset(text, fallback.start_line), index)
    if offset is None:
        return fallback
    line = text.count("\n", 0, offset)
    column = offset - (text.rfind("\n", 0, offset) + 1)
    return SourceRange(path, line, column, line, column)


def _line_offset(text: str, line: int) -> int:
    offset = 0
    for _ in range(line):
        found = text.find("\n", offset)
        if found < 0:
            return offset
        offset = found + 1
    return offset


def _entry_offset(text: str, start: int, index: int) -> int | None:
    """The offset of element ``index`` of the array after ``"catalogue"`` (from ``start``);
    ``index`` -1: the value itself."""
    key = text.find('"catalogue"', start)
    if key < 0:
        return None
    colon = text.find(":", key + len('"catalogue"'))
    if colon < 0:
        return None
    at = colon + 1
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    if index < 0 or at >= len(text) or text[at] != "[":
        return at if at < len(text) else None
    depth, element, in_string, escaped = 0, 0, False, False
    expecting = True
    for position in range(at, len(text)):
        char = text[position]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if depth == 1 and expecting and char not in " \t\r\n,]":
            if element == index:
                return position
            expecting = False
        if char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return None
        elif char == "," and depth == 1:
            element += 1
            expecting = True
    return None


def _diagnostic(finding: Finding, config: LintConfig) -> Diagnostic | None:
    rule = rule_for(finding.rule)
    configured = config.severities.get(rule.name) or config.severities.get(rule.code)
    if configured == "off":
        return None
    severity: Severity = finding.severity
    if configured in ("error", "warning", "information", "hint"):
        severity = configured  # type: ignore[assignment]
    return Diagnostic(finding, rule, severity)


def configured_diagnostics(findings: Iterable[Finding], config: LintConfig) -> list[Diagnostic]:
    """``findings`` as diagnostics with their configured severities (rules turned off left out)."""
    return [d for f in findings if (d := _diagnostic(f, config)) is not None]


def lint_resources(
    resources: Resources, config: LintConfig | None = None, run: LintRun | None = None
) -> list[Diagnostic]:
    """Every diagnostic for one working directory's snapshot; ``run`` is what the working
    directories of one lint run share (see :class:`~pi_lsp.lint.checks.LintRun`)."""
    config = config or LintConfig()
    findings = [
        *resources.findings,
        *run_checks(resources, config.settings, run),
        *instruction_findings(resources, config.file_seconds),
    ]
    diagnostics = [d for f in findings if (d := _diagnostic(f, config)) is not None]
    return merge_working_directories([(resources.cwd, diagnostics)], resources.cwd)


def working_directories(root: str) -> list[str]:
    """``root`` and every folder below it that holds a context file (hidden folders skipped)."""
    found = [root]
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.startswith("."))
        if folder != root and any(name in files for name in CONTEXT_FILE_NAMES):
            found.append(folder)
    return found


@dataclass(frozen=True, slots=True)
class TreeLint:
    """What linting a tree found: the diagnostics, once each, and every context file some
    working directory of the tree loads (first seen first; empty: none was found)."""

    diagnostics: list[Diagnostic]
    context_files: tuple[str, ...]


def lint_tree(
    root: str,
    *,
    agent_dir: str | None = None,
    approve: bool | None = None,
    config: LintConfig | None = None,
    source: FileSource = DISK,
    env: dict[str, str] | None = None,
    home: str | None = None,
) -> TreeLint:
    """Lint every working directory under ``root`` that has a context file, once per problem."""
    cache = ResourceCache()
    run = LintRun(source)
    root = os.path.abspath(root)
    linted: list[tuple[str, list[Diagnostic]]] = []
    context_files: dict[str, None] = {}
    for cwd in working_directories(root):
        options = LoadOptions(cwd=cwd, agent_dir=agent_dir, approve=approve, env=env, home=home)
        resources = load_resources(options, source, cache)
        context_files.update(dict.fromkeys(f.path for f in resources.context_files.files))
        linted.append((cwd, lint_resources(resources, config, run)))
    return TreeLint(merge_working_directories(linted, root), tuple(context_files))


def _resolved_per_working_directory(finding: Finding) -> bool:
    """A name collision: which resource wins depends on the working directory it loads for."""
    return finding.data.get("piType") == "collision"


def _listed(names: Sequence[str], shown: int = 3) -> str:
    quoted = [f"`{name}`" for name in names[:shown]]
    if len(names) > shown:
        return ", ".join(quoted) + f" and {len(names) - shown} more"
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def merge_working_directories(
    linted: Sequence[tuple[str, Sequence[Diagnostic]]], root: str
) -> list[Diagnostic]:
    """The diagnostics of several working directories as one list: a problem seen from many
    of them once, and a name collision saying which working directories it was resolved for
    (the same loser can lose to another winner elsewhere), named relative to ``root``."""
    found: dict[tuple[object, ...], tuple[Diagnostic, list[str]]] = {}
    for cwd, diagnostics in linted:
        for diagnostic in diagnostics:
            f = diagnostic.finding
            key = (f.where, f.rule, f.message)
            known = found.setdefault(key, (diagnostic, []))
            if cwd not in known[1]:
                known[1].append(cwd)
    several = len(linted) > 1
    out: list[Diagnostic] = []
    for diagnostic, cwds in found.values():
        finding = diagnostic.finding
        if several and _resolved_per_working_directory(finding):
            names = _listed([shown_path(cwd, root) for cwd in cwds])
            noun = "directory" if len(cwds) == 1 else "directories"
            message = f"{finding.message.rstrip('.')} in the working {noun} {names}."
            diagnostic = replace(diagnostic, finding=replace(finding, message=message))
        out.append(diagnostic)
    return sorted(out, key=lambda d: d.sort_key)


def count_by_severity(diagnostics: Sequence[Diagnostic]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for diagnostic in diagnostics:
        counts[diagnostic.severity] = counts.get(diagnostic.severity, 0) + 1
    return counts
