"""Project trust (spec §4): what needs it, the ``trust.json`` store, and the decision.

A project is *trust-requiring* when its own ``.pi`` folder holds settings or resources, or an
``.agents/skills`` folder exists in it or any ancestor (§4.1). The store
``<agentDir>/trust.json`` maps canonical (realpath) directories to ``true``/``false``/``null``;
the nearest ancestor with a boolean decides (§4.2). :func:`resolve_project_trust` applies Pi's
order (§4.3) and says which rule decided and which store entry it used.

Reads never change the store: a broken ``trust.json`` becomes an error :class:`Finding` (Pi
itself stops with that error) and the project counts as untrusted. Reads and writes hold Pi's
lock, the directory ``trust.json.lock`` (10 attempts, 20 ms apart, stale after 10 s), so pi-lsp
and a running Pi never interleave.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal

from pi_lsp.js.json import js_object_keys, json_stringify
from pi_lsp.js.json_document import JsonSyntaxError, parse_json_document
from pi_lsp.js.text import utf16_sort_key
from pi_lsp.regular_files import MAX_RESOURCE_FILE_BYTES, read_regular_file
from pi_lsp.resources.agent_dir import (
    LineIndex,
    canonicalize_path,
    decode_text,
    home_dir,
    node_error_text,
    resolve_path,
)
from pi_lsp.resources.layout import (
    CONFIG_DIR_NAME,
    PROMPTS_DIR_NAME,
    SKILLS_DIR_NAME,
    agents_skills_dir,
)
from pi_lsp.resources.model import Finding, SourceRange
from pi_lsp.resources.settings import (
    DefaultProjectTrust,
    global_settings_path,
    json_error_range,
    read_settings_file,
)
from pi_lsp.tools.file_mutation import FileMutationError, write_text_file
from pi_lsp.tools.paths import ancestor_dirs

TRUST_FILE_NAME = "trust.json"
LOCK_SUFFIX = ".lock"
LOCK_ATTEMPTS = 10
LOCK_DELAY_SECONDS = 0.020
LOCK_STALE_SECONDS = 10.0
LOCKED_MESSAGE = "Lock file is already being held"

TRUST_REQUIRING_CONFIG_ENTRIES = (
    "settings.json",
    "extensions",
    SKILLS_DIR_NAME,
    PROMPTS_DIR_NAME,
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
)

TrustRule = Literal[
    "cli-approve",
    "cli-no-approve",
    "nothing-requires-trust",
    "saved-decision",
    "default-always",
    "default-never",
    "no-ui",
    "ask",
    "store-error",
]


# ---------------------------------------------------------------------------------------------
# §4.1 what requires trust


@dataclass(frozen=True, slots=True)
class TrustRequirement:
    """One thing that makes the project need trust: an entry of ``<cwd>/.pi`` or an
    ``.agents/skills`` folder in the cwd or an ancestor."""

    path: str
    kind: Literal["pi-config", "agents-skills"]


def trust_requirements(cwd: str, home: str | None = None) -> tuple[TrustRequirement, ...]:
    """Everything that makes ``cwd`` trust-requiring (empty: the project counts as trusted)."""
    current = canonicalize_path(resolve_path(cwd))
    home_path = canonicalize_path(resolve_path(home if home is not None else home_dir()))
    user_skills = agents_skills_dir(home_path)
    found: list[TrustRequirement] = []
    config_dir = os.path.join(current, CONFIG_DIR_NAME)
    for entry in TRUST_REQUIRING_CONFIG_ENTRIES:
        path = os.path.join(config_dir, entry)
        if os.path.exists(path):
            found.append(TrustRequirement(path, "pi-config"))
    for directory in ancestor_dirs(current):
        skills = agents_skills_dir(directory)
        if skills != user_skills and os.path.exists(skills):
            found.append(TrustRequirement(skills, "agents-skills"))
    return tuple(found)


def requires_trust(cwd: str, home: str | None = None) -> bool:
    """Pi's ``hasTrustRequiringProjectResources`` (§4.1)."""
    return bool(trust_requirements(cwd, home))


# ---------------------------------------------------------------------------------------------
# §4.2 the store


@dataclass(frozen=True, slots=True)
class TrustEntry:
    """A decision in ``trust.json``: ``key`` is the directory, ``where`` its line."""

    key: str
    decision: bool | None
    where: SourceRange


@dataclass(frozen=True, slots=True)
class TrustStore:
    """The content of ``trust.json``; ``ok`` is false when Pi would refuse to use it."""

    path: str
    exists: bool
    ok: bool
    entries: Mapping[str, TrustEntry]
    findings: tuple[Finding, ...] = ()

    def decision(self, directory: str) -> bool | None:
        entry = self.entries.get(directory)
        return None if entry is None else entry.decision

    def lookup(self, cwd: str) -> TrustEntry | None:
        """The nearest entry with a boolean, walking from canonical ``cwd`` up to the root."""
        for directory in ancestor_dirs(canonicalize_path(resolve_path(cwd))):
            entry = self.entries.get(directory)
            if entry is not None and entry.decision is not None:
                return entry
        return None


class TrustStoreError(Exception):
    """The store cannot be used or updated; ``findings`` says why (nothing was written)."""

    def __init__(self, findings: tuple[Finding, ...]) -> None:
        super().__init__("; ".join(f.message for f in findings))
        self.findings = findings


class TrustLockError(OSError):
    """The lock could not be taken (``locked`` when another process held it throughout)."""

    def __init__(self, lock_path: str, message: str, locked: bool) -> None:
        super().__init__(errno.EEXIST if locked else errno.EIO, message, lock_path)
        self.lock_path = lock_path
        self.locked = locked
        self.message = message


def trust_store_path(agent_dir: str) -> str:
    return os.path.join(resolve_path(agent_dir), TRUST_FILE_NAME)


def _try_take_lock(lock_path: str) -> bool:
    """One attempt, as proper-lockfile makes it: ``mkdir``; a lock older than the stale limit
    is removed and taken over. False when someone else holds it."""
    try:
        os.mkdir(lock_path)
        return True
    except FileExistsError:
        pass
    try:
        age = time.time() - os.stat(lock_path).st_mtime
    except FileNotFoundError:
        age = None  # released meanwhile: one more try, without the stale check
    if age is not None:
        if age <= LOCK_STALE_SECONDS:
            return False
        with contextlib.suppress(FileNotFoundError):
            os.rmdir(lock_path)
    try:
        os.mkdir(lock_path)
        return True
    except FileExistsError:
        return False


@contextlib.contextmanager
def trust_lock(store_path: str) -> Iterator[None]:
    """Hold ``<store>.lock`` (creating the store's directory); raises :class:`TrustLockError`."""
    lock_path = store_path + LOCK_SUFFIX
    try:
        os.makedirs(os.path.dirname(store_path), exist_ok=True)
        for attempt in range(1, LOCK_ATTEMPTS + 1):
            if _try_take_lock(lock_path):
                break
            if attempt == LOCK_ATTEMPTS:
                raise TrustLockError(lock_path, LOCKED_MESSAGE, locked=True)
            time.sleep(LOCK_DELAY_SECONDS)
    except OSError as error:
        if isinstance(error, TrustLockError):
            raise
        syscall = "mkdir"
        raise TrustLockError(
            lock_path, node_error_text(error, syscall, error.filename or lock_path), locked=False
        ) from error
    try:
        yield
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.rmdir(lock_path)


def _store_finding(where: SourceRange, rule: str, message: str, pi_message: str | None) -> Finding:
    return Finding(where, "error", rule, message, pi_message=pi_message)


def _parse_store(store_path: str, raw: bytes) -> TrustStore:
    text, _had_bom, _bad = decode_text(raw)
    lines = LineIndex(text)
    try:
        document = parse_json_document(text)
    except JsonSyntaxError as error:
        where = json_error_range(store_path, text, lines, error)
        finding = _store_finding(
            where,
            "trust-store-invalid-json",
            f"Trust store is not valid JSON (line {where.start_line + 1}, "
            f"column {where.start_column + 1}): {error.message}",
            f"Failed to read trust store {store_path}: {error.message}",
        )
        return TrustStore(store_path, True, False, MappingProxyType({}), (finding,))
    value = document.value
    if not isinstance(value, dict):
        finding = _store_finding(
            lines.range(store_path, 0, len(text)),
            "trust-store-not-object",
            "Trust store must be a JSON object mapping directories to true, false or null",
            f"Invalid trust store {store_path}: expected an object",
        )
        return TrustStore(store_path, True, False, MappingProxyType({}), (finding,))
    members = document.top_level()
    entries: dict[str, TrustEntry] = {}
    findings: list[Finding] = []
    for key in js_object_keys(value):
        decision = value[key]
        member = members[key]
        if decision is True or decision is False or decision is None:
            where = lines.range(store_path, member.key_start, member.end)
            entries[key] = TrustEntry(key, decision, where)
            continue
        quoted = json_stringify(key)
        findings.append(
            _store_finding(
                lines.range(store_path, member.value_start, member.end),
                "trust-store-invalid-value",
                f"Trust decision for {quoted} must be true, false or null",
                None
                if findings
                else f"Invalid trust store {store_path}: value for {quoted} must be true, "
                "false, or null",
            )
        )
    if findings:
        return TrustStore(store_path, True, False, MappingProxyType({}), tuple(findings))
    return TrustStore(store_path, True, True, MappingProxyType(entries))


def _read_unlocked(store_path: str) -> TrustStore:
    if not os.path.exists(store_path):
        return TrustStore(store_path, False, True, MappingProxyType({}))
    try:
        raw = read_regular_file(store_path, MAX_RESOURCE_FILE_BYTES)
    except OSError as error:
        text = node_error_text(error, "open", store_path)
        finding = _store_finding(
            SourceRange(store_path),
            "trust-store-unreadable",
            f"Cannot read the trust store: {error.strerror or error}",
            f"Failed to read trust store {store_path}: {text}",
        )
        return TrustStore(store_path, True, False, MappingProxyType({}), (finding,))
    return _parse_store(store_path, raw)


def read_trust_store(agent_dir: str) -> TrustStore:
    """Read ``<agent_dir>/trust.json`` under Pi's lock; problems become findings.

    A missing store is an empty, usable one (and no lock or directory is created for it).
    When the lock cannot be taken the store is read anyway and a warning says so.
    """
    store_path = trust_store_path(agent_dir)
    if not os.path.exists(store_path):
        return _read_unlocked(store_path)
    try:
        with trust_lock(store_path):
            return _read_unlocked(store_path)
    except TrustLockError as error:
        store = _read_unlocked(store_path)
        finding = Finding(
            SourceRange(store_path),
            "warning",
            "trust-store-locked" if error.locked else "trust-store-lock-failed",
            f"Could not lock the trust store ({error.message}); read it without the lock",
            pi_message=error.message,
        )
        return TrustStore(store.path, store.exists, store.ok, store.entries, (finding,))


def _sorted_store_text(data: Mapping[str, bool | None]) -> str:
    ordered = sorted(data, key=utf16_sort_key)
    return json_stringify({key: data[key] for key in ordered}, indent=2) + "\n"


def save_trust_many(agent_dir: str, updates: Sequence[tuple[str, bool | None]]) -> TrustStore:
    """Apply ``(directory, decision)`` updates (``None`` deletes the key) under the lock and
    write the store sorted and pretty-printed, in one rename (a reader never sees half a
    store). Directories are canonicalized.

    Raises :class:`TrustStoreError` without writing when the current store is broken,
    :class:`TrustLockError` when the lock cannot be taken and :class:`OSError` when the write
    fails; :func:`unwritten_reason` words any of them for a person.
    """
    store_path = trust_store_path(agent_dir)
    with trust_lock(store_path):
        current = _read_unlocked(store_path)
        if not current.ok:
            raise TrustStoreError(current.findings)
        data: dict[str, bool | None] = {k: e.decision for k, e in current.entries.items()}
        for directory, decision in updates:
            key = canonicalize_path(resolve_path(directory))
            if decision is None:
                data.pop(key, None)
            else:
                data[key] = decision
        try:
            write_text_file(store_path, _sorted_store_text(data))
        except FileMutationError as error:
            raise OSError(errno.EIO, str(error), store_path) from error
        return _read_unlocked(store_path)


def save_trust(agent_dir: str, directory: str, decision: bool | None) -> TrustStore:
    """Record (``None``: remove) the decision for ``directory``; see :func:`save_trust_many`."""
    return save_trust_many(agent_dir, [(directory, decision)])


def located_message(finding: Finding) -> str:
    """``file:line: message`` for a store problem."""
    return f"{finding.where.path}:{finding.where.start_line + 1}: {finding.message}"


def unwritten_reason(error: OSError | TrustStoreError) -> str:
    """Why :func:`save_trust_many` left ``trust.json`` as it was, naming the file (and line)."""
    if isinstance(error, TrustStoreError):
        problems = "; ".join(located_message(f) for f in error.findings)
        return f"trust.json was not changed because it cannot be read: {problems}"
    if isinstance(error, TrustLockError):
        return f"trust.json was not changed: cannot lock {error.lock_path} ({error.message})"
    return f"trust.json was not changed: {error.strerror or error} ({error.filename})"


# ---------------------------------------------------------------------------------------------
# §4.3 resolution


@dataclass(frozen=True, slots=True)
class TrustChoice:
    """One answer of Pi's "Trust project folder?" dialog and the store updates it makes."""

    label: str
    trusted: bool
    updates: tuple[tuple[str, bool | None], ...]


def trust_choices(cwd: str, *, include_session_only: bool = True) -> tuple[TrustChoice, ...]:
    """The dialog's options, in Pi's order (the parent option is absent at the root)."""
    path = canonicalize_path(resolve_path(cwd))
    parent = os.path.dirname(path)
    choices = [TrustChoice("Trust", True, ((path, True),))]
    if parent != path:
        choices.append(
            TrustChoice(f"Trust parent folder ({parent})", True, ((parent, True), (path, None)))
        )
    if include_session_only:
        choices.append(TrustChoice("Trust (this session only)", True, ()))
    choices.append(TrustChoice("Do not trust", False, ((path, False),)))
    if include_session_only:
        choices.append(TrustChoice("Do not trust (this session only)", False, ()))
    return tuple(choices)


@dataclass(frozen=True, slots=True)
class TrustDecision:
    """Whether the project is trusted, and why.

    ``rule`` names the step of §4.3 that decided; ``entry`` is the ``trust.json`` entry used by
    ``saved-decision``; ``setting`` the ``defaultProjectTrust`` line for ``default-*``;
    ``requirements`` what makes the project need trust. ``rule == "ask"`` means Pi would show
    its dialog now (only with ``has_ui``); until answered the project is untrusted.
    """

    trusted: bool
    rule: TrustRule
    cwd: str
    reason: str
    store_path: str
    entry: TrustEntry | None = None
    setting: SourceRange | None = None
    default_project_trust: DefaultProjectTrust = "ask"
    requirements: tuple[TrustRequirement, ...] = ()
    findings: tuple[Finding, ...] = ()

    @property
    def needs_prompt(self) -> bool:
        return self.rule == "ask"


def resolve_project_trust(
    cwd: str,
    agent_dir: str,
    *,
    approve: bool | None = None,
    default_project_trust: DefaultProjectTrust | None = None,
    has_ui: bool = False,
    home: str | None = None,
) -> TrustDecision:
    """Decide trust in Pi's order (§4.3).

    ``approve`` is the CLI override (``True`` = ``--approve``, ``False`` = ``--no-approve``).
    ``default_project_trust`` defaults to the global settings' value. Extension
    ``project_trust`` hooks are not run (pi-lsp loads no extensions).
    """
    canonical = canonicalize_path(resolve_path(cwd))
    store_path = trust_store_path(agent_dir)
    requirements = trust_requirements(canonical, home)
    if approve is not None:
        rule: TrustRule = "cli-approve" if approve else "cli-no-approve"
        reason = "--approve was given" if approve else "--no-approve was given"
        return TrustDecision(
            approve, rule, canonical, reason, store_path, requirements=requirements
        )
    if not requirements:
        return TrustDecision(
            True,
            "nothing-requires-trust",
            canonical,
            "the project has no .pi settings or resources and no .agents/skills folder",
            store_path,
        )
    store = read_trust_store(agent_dir)
    if not store.ok:
        return TrustDecision(
            False,
            "store-error",
            canonical,
            f"the trust store {store_path} is invalid, so Pi stops here",
            store_path,
            requirements=requirements,
            findings=store.findings,
        )
    entry = store.lookup(canonical)
    if entry is not None:
        where = "this folder" if entry.key == canonical else f"the parent folder {entry.key}"
        verdict = "trusted" if entry.decision else "not trusted"
        return TrustDecision(
            bool(entry.decision),
            "saved-decision",
            canonical,
            f"{store_path} marks {where} as {verdict}",
            store_path,
            entry=entry,
            requirements=requirements,
            findings=store.findings,
        )
    setting: SourceRange | None = None
    if default_project_trust is None:
        settings_file = read_settings_file(global_settings_path(agent_dir), "global")
        value = settings_file.data.get("defaultProjectTrust")
        default_project_trust = value if value in ("always", "never") else "ask"
        if default_project_trust != "ask":
            setting = settings_file.key_range("defaultProjectTrust")
    common: dict[str, Any] = {
        "store_path": store_path,
        "setting": setting,
        "default_project_trust": default_project_trust,
        "requirements": requirements,
        "findings": store.findings,
    }
    if default_project_trust == "always":
        reason = 'the global setting defaultProjectTrust is "always"'
        return TrustDecision(True, "default-always", canonical, reason, **common)
    if default_project_trust == "never":
        reason = 'the global setting defaultProjectTrust is "never"'
        return TrustDecision(False, "default-never", canonical, reason, **common)
    if not has_ui:
        reason = "no decision is saved and there is nobody to ask"
        return TrustDecision(False, "no-ui", canonical, reason, **common)
    reason = "no decision is saved: Pi would ask whether to trust this folder"
    return TrustDecision(False, "ask", canonical, reason, **common)
