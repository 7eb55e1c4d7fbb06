"""Pi's settings: global ``<agentDir>/settings.json`` deep-merged with the project's
``<cwd>/.pi/settings.json`` (read only when the project is trusted), spec §10.1 and §4.4.

Merging follows Pi: objects merge key by key, recursively, the project winning; any other value
(array, string, number, boolean, null) from the project replaces the global one. Each file gets
Pi's legacy-key migrations first. A file that cannot be read or parsed counts as ``{}`` and yields
a :class:`Finding` at the offending line and column; files are never written here.

The files are read with :func:`pi_lsp.js.json_document.parse_json_document`.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from pi_lsp.js.json import js_string
from pi_lsp.js.json_document import JsonSyntaxError, parse_json_document
from pi_lsp.resources.agent_dir import (
    LineIndex,
    decode_text,
    node_error_text,
    resolve_path,
)
from pi_lsp.resources.file_source import DISK, FileSource
from pi_lsp.resources.layout import CONFIG_DIR_NAME
from pi_lsp.resources.model import Finding, SourceRange

SettingsScope = Literal["global", "project"]
SettingsStatus = Literal["missing", "empty", "loaded", "invalid", "unreadable", "untrusted"]
DefaultProjectTrust = Literal["always", "never", "ask"]

SETTINGS_FILE_NAME = "settings.json"


# ---------------------------------------------------------------------------------------------
# Settings files


@dataclass(frozen=True, slots=True)
class SettingsFile:
    """One settings file as Pi sees it (after migration); ``data`` is ``{}`` unless loaded."""

    scope: SettingsScope
    path: str
    status: SettingsStatus
    data: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    key_ranges: Mapping[str, SourceRange] = field(default_factory=lambda: MappingProxyType({}))
    findings: tuple[Finding, ...] = ()
    version: object = None

    @property
    def exists(self) -> bool:
        return self.status not in ("missing", "untrusted")

    def key_range(self, key: str) -> SourceRange | None:
        return self.key_ranges.get(key)


@dataclass(frozen=True, slots=True)
class Settings:
    """Merged settings plus, per top-level key, where its value came from."""

    merged: Mapping[str, Any]
    global_file: SettingsFile
    project_file: SettingsFile
    origins: Mapping[str, tuple[SourceRange, ...]]

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.global_file.findings + self.project_file.findings

    def get(self, key: str, default: Any = None) -> Any:
        return self.merged.get(key, default)

    def origin(self, key: str) -> tuple[SourceRange, ...]:
        """Where ``key``'s merged value comes from, the winning file first."""
        return self.origins.get(key, ())

    @property
    def default_project_trust(self) -> DefaultProjectTrust:
        """Pi reads ``defaultProjectTrust`` from the global file only."""
        return default_project_trust(self.global_file.data)


def global_settings_path(agent_dir: str) -> str:
    return os.path.join(resolve_path(agent_dir), SETTINGS_FILE_NAME)


def project_settings_path(cwd: str) -> str:
    return os.path.join(resolve_path(cwd), CONFIG_DIR_NAME, SETTINGS_FILE_NAME)


def default_project_trust(global_settings: Mapping[str, Any]) -> DefaultProjectTrust:
    value = global_settings.get("defaultProjectTrust")
    return value if value in ("always", "never") else "ask"


def migrate_settings(settings: dict[str, Any]) -> dict[str, str]:
    """Apply Pi's legacy-key migrations in place; returns ``{new key: old key}`` for the keys
    whose value moved, so their source line can still be found."""
    moved: dict[str, str] = {}
    if "queueMode" in settings and "steeringMode" not in settings:
        settings["steeringMode"] = settings.pop("queueMode")
        moved["steeringMode"] = "queueMode"
    if "transport" not in settings and isinstance(settings.get("websockets"), bool):
        settings["transport"] = "websocket" if settings.pop("websockets") else "sse"
        moved["transport"] = "websockets"
    skills = settings.get("skills")
    if isinstance(skills, dict):
        if "enableSkillCommands" in skills and "enableSkillCommands" not in settings:
            settings["enableSkillCommands"] = skills["enableSkillCommands"]
            moved["enableSkillCommands"] = "skills"
        directories = skills.get("customDirectories")
        if isinstance(directories, list) and directories:
            settings["skills"] = directories
        else:
            del settings["skills"]
    retry = settings.get("retry")
    if isinstance(retry, dict):
        provider = retry.get("provider")
        if isinstance(provider, list):
            provider = {str(i): v for i, v in enumerate(provider)}
        elif not isinstance(provider, dict):
            provider = None
        max_delay = retry.get("maxDelayMs")
        is_number = isinstance(max_delay, int | float) and not isinstance(max_delay, bool)
        if is_number and (provider is None or provider.get("maxRetryDelayMs") is None):
            retry["provider"] = {**(provider or {}), "maxRetryDelayMs": max_delay}
        retry.pop("maxDelayMs", None)
    return moved


def deep_merge(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Pi's ``deepMergeObjects``: objects merge recursively, anything else from ``overrides``
    replaces; the inputs are not modified."""
    result = copy.deepcopy(dict(base))
    for key, value in overrides.items():
        current = result.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            result[key] = deep_merge(current, value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def json_error_range(path: str, text: str, lines: LineIndex, error: JsonSyntaxError) -> SourceRange:
    """Where ``JSON.parse`` failed in ``text``: the offending character (empty at the end)."""
    line, column = lines.position(error.offset)
    return SourceRange.line(path, line, column, column + (1 if error.offset < len(text) else 0))


def _finding(where: SourceRange, rule: str, message: str, pi_text: str | None) -> Finding:
    """A warning (Pi goes on with ``{}``); ``pi_text`` is the error text in Pi's stderr line."""
    pi_message = None
    if pi_text is not None:
        pi_message = f"Warning: Invalid settings file {where.path}: {pi_text}"
    return Finding(where, "warning", rule, message, pi_message=pi_message)


def read_settings_file(
    path: str, scope: SettingsScope, *, source: FileSource = DISK
) -> SettingsFile:
    """Read one settings file the way Pi loads it (never writes it)."""
    if not (source.is_file(path) or os.path.exists(path)):
        return SettingsFile(scope, path, "missing")
    version = source.version(path)
    try:
        raw = source.read_bytes(path)
    except OSError as error:
        text = node_error_text(error, "open", path)
        finding = _finding(
            SourceRange(path),
            "settings-unreadable",
            f"Cannot read {scope} settings file {path}: {error.strerror or error}; using {{}}",
            text,
        )
        return SettingsFile(scope, path, "unreadable", findings=(finding,), version=version)
    if not raw:
        return SettingsFile(scope, path, "empty", version=version)
    text, _had_bom, _bad = decode_text(raw)
    lines = LineIndex(text)
    try:
        document = parse_json_document(text)
    except JsonSyntaxError as error:
        where = json_error_range(path, text, lines, error)
        finding = _finding(
            where,
            "settings-invalid-json",
            f"Invalid JSON in {scope} settings file at line {where.start_line + 1}, "
            f"column {where.start_column + 1}: "
            f"{error.message}; the file is ignored",
            error.message,
        )
        return SettingsFile(scope, path, "invalid", findings=(finding,), version=version)
    value = document.value
    if not isinstance(value, dict):
        kind = "an array" if isinstance(value, list) else "null" if value is None else "a value"
        finding = _finding(
            lines.range(path, 0, len(text)),
            "settings-not-object",
            f"{scope.capitalize()} settings file {path} must hold a JSON object, not {kind}; "
            "the file is ignored",
            # Pi's migration step fails on primitives; an array passes silently.
            None
            if isinstance(value, list)
            else f"Cannot use 'in' operator to search for 'queueMode' in {js_string(value)}",
        )
        return SettingsFile(scope, path, "invalid", findings=(finding,), version=version)
    data: dict[str, Any] = value
    moved = migrate_settings(data)
    members = document.top_level()
    ranges: dict[str, SourceRange] = {}
    for key in data:
        member = members.get(moved.get(key, key))
        if member is not None:
            ranges[key] = lines.range(path, member.key_start, member.end)
    return SettingsFile(
        scope,
        path,
        "loaded",
        MappingProxyType(data),
        MappingProxyType(ranges),
        version=version,
    )


def load_settings(
    cwd: str,
    agent_dir: str,
    *,
    project_trusted: bool,
    source: FileSource = DISK,
) -> Settings:
    """Global settings merged with the project's (only when ``project_trusted``)."""
    global_file = read_settings_file(global_settings_path(agent_dir), "global", source=source)
    project_path = project_settings_path(cwd)
    if project_trusted:
        project_file = read_settings_file(project_path, "project", source=source)
    else:
        project_file = SettingsFile("project", project_path, "untrusted")
    merged = deep_merge(global_file.data, project_file.data)
    origins: dict[str, tuple[SourceRange, ...]] = {}
    for key in merged:
        chain: list[SourceRange] = []
        in_project = key in project_file.data
        if in_project and (where := project_file.key_range(key)) is not None:
            chain.append(where)
        merges = isinstance(project_file.data.get(key), dict) and isinstance(
            global_file.data.get(key), dict
        )
        if (not in_project or merges) and (where := global_file.key_range(key)) is not None:
            chain.append(where)
        origins[key] = tuple(chain)
    return Settings(MappingProxyType(merged), global_file, project_file, MappingProxyType(origins))
