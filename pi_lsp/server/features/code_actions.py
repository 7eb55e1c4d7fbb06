"""Code actions: the fixes of :mod:`pi_lsp.lint.fixes` as LSP quick fixes, and the
``pi-lsp.trustProject`` command behind "Trust this project".

The diagnostics come from the request (``context.diagnostics``, which carry the rule and the
finding's data in ``data``): each is turned back into an engine diagnostic, and the fixes are
computed against the files as the server sees them now (open buffers over the disk). A fix
becomes a ``WorkspaceEdit``: ``documentChanges`` with versioned edits when the client supports
them, else ``changes``. Renaming a folder needs ``documentChanges`` and the ``rename``
resource operation; a fix that needs it is dropped for other clients (the fixes engine already
offers them a name-only variant, since it is told whether renames are possible).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.lint.engine import Diagnostic, user_vocabulary
from pi_lsp.lint.fixes import FIXABLE_RULES, Fix, FixContext, TrustProject, fixes_for
from pi_lsp.lint.rules import BY_CODE, BY_NAME, Rule
from pi_lsp.lint.vocabulary import Vocabulary
from pi_lsp.resources.agent_dir import home_dir
from pi_lsp.resources.model import Finding, RelatedLocation, Severity, SourceRange
from pi_lsp.server.convert import code_point_column, lsp_range, path_of, uri_of
from pi_lsp.server.features.trust import set_trust
from pi_lsp.server.language_server import PiLanguageServer

TRUST_COMMAND = "pi-lsp.trustProject"
SOURCE = "pi-lsp"

_SEVERITY: dict[types.DiagnosticSeverity | None, Severity] = {
    types.DiagnosticSeverity.Error: "error",
    types.DiagnosticSeverity.Warning: "warning",
    types.DiagnosticSeverity.Information: "information",
    types.DiagnosticSeverity.Hint: "hint",
}


@dataclass(frozen=True, slots=True)
class EditSupport:
    """What the client can apply: ``CodeAction`` literals, ``documentChanges``, renames."""

    literals: bool
    document_changes: bool
    rename: bool

    @classmethod
    def of(cls, capabilities: types.ClientCapabilities) -> EditSupport:
        workspace_edit = capabilities.workspace and capabilities.workspace.workspace_edit
        code_action = capabilities.text_document and capabilities.text_document.code_action
        document_changes = bool(workspace_edit and workspace_edit.document_changes)
        operations = (workspace_edit and workspace_edit.resource_operations) or ()
        return cls(
            literals=bool(code_action and code_action.code_action_literal_support),
            document_changes=document_changes,
            rename=document_changes and types.ResourceOperationKind.Rename in operations,
        )


# --- client diagnostics back to engine diagnostics ---------------------------------------------


def source_range(path: str, where: types.Range, text: str | None) -> SourceRange:
    """An LSP range (UTF-16 columns) of ``path`` as the engine counts it (code points)."""
    lines = (text or "").split("\n")

    def column(position: types.Position) -> int:
        line = lines[position.line] if 0 <= position.line < len(lines) else ""
        return code_point_column(line, position.character)

    return SourceRange(
        path, where.start.line, column(where.start), where.end.line, column(where.end)
    )


def _rule_of(diagnostic: types.Diagnostic) -> Rule | None:
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    name = data.get("rule")
    if isinstance(name, str) and name in BY_NAME:
        return BY_NAME[name]
    return BY_CODE.get(diagnostic.code) if isinstance(diagnostic.code, str) else None


def engine_diagnostic(ls: PiLanguageServer, path: str, lsp: types.Diagnostic) -> Diagnostic | None:
    """The engine diagnostic a client's pi-lsp diagnostic of ``path`` stands for."""
    if lsp.source != SOURCE:
        return None
    rule = _rule_of(lsp)
    if rule is None or rule.name not in FIXABLE_RULES:
        return None
    text_of = ls.state.text_of
    related = tuple(
        RelatedLocation(
            source_range(
                path_of(info.location.uri),
                info.location.range,
                text_of(path_of(info.location.uri)),
            ),
            info.message,
        )
        for info in lsp.related_information or ()
    )
    data = lsp.data if isinstance(lsp.data, dict) else {}
    severity = _SEVERITY.get(lsp.severity, rule.severity)
    finding = Finding(
        source_range(path, lsp.range, text_of(path)),
        severity,
        rule.name,
        lsp.message,
        related=related,
        data={k: v for k, v in data.items() if k != "rule"},
    )
    return Diagnostic(finding, rule, severity)


# --- fixes to code actions ---------------------------------------------------------------------


def _skill_names(ls: PiLanguageServer) -> frozenset[str]:
    snapshots = list(ls.state.snapshots.values()) or [ls.state.snapshot(ls.state.root)]
    return frozenset(skill.name for resources in snapshots for skill in resources.skills)


def _vocabulary(ls: PiLanguageServer, path: str) -> Vocabulary | None:
    """The catalogue the lint read ``path`` with: that of the first working directory whose
    context files include it (its settings may extend the shipped catalogue)."""
    for resources in ls.state.snapshots.values():
        if any(f.path == path for f in resources.context_files.files):
            return user_vocabulary(resources.settings)[0]
    return None


def workspace_edit(ls: PiLanguageServer, fix: Fix, support: EditSupport) -> types.WorkspaceEdit:
    """``fix``'s edits (and renames, which need ``documentChanges``) as a ``WorkspaceEdit``."""
    by_path: dict[str, list[types.TextEdit]] = {}
    for edit in fix.edits:
        text = ls.state.text_of(edit.path)
        by_path.setdefault(edit.path, []).append(
            types.TextEdit(range=lsp_range(edit.where, text), new_text=edit.new_text)
        )
    if not support.document_changes:
        return types.WorkspaceEdit(changes={uri_of(p): edits for p, edits in by_path.items()})
    changes: list[
        types.TextDocumentEdit | types.CreateFile | types.RenameFile | types.DeleteFile
    ] = []
    for path, edits in by_path.items():
        version = ls.state.buffers[path][0] if path in ls.state.buffers else None
        changes.append(
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(
                    uri=uri_of(path), version=version
                ),
                edits=list(edits),
            )
        )
    for old, new in fix.renames:
        changes.append(
            types.RenameFile(
                old_uri=uri_of(old),
                new_uri=uri_of(new),
                options=types.RenameFileOptions(overwrite=False, ignore_if_exists=False),
            )
        )
    return types.WorkspaceEdit(document_changes=changes)


def _command(fix: Fix) -> types.Command | None:
    if isinstance(fix.command, TrustProject):
        return types.Command(
            title=fix.title, command=TRUST_COMMAND, arguments=[fix.command.directory]
        )
    return None


def _wanted(kind: str, only: Sequence[str] | None) -> bool:
    if not only:
        return True
    return any(o in ("", kind) or kind.startswith(o + ".") for o in only)


def code_actions(
    ls: PiLanguageServer, params: types.CodeActionParams
) -> list[types.CodeAction | types.Command]:
    """The code actions for the pi-lsp diagnostics the client sent with ``params``."""
    path = path_of(params.text_document.uri)
    support = EditSupport.of(ls.client_capabilities)
    pairs = [
        (lsp, engine)
        for lsp in params.context.diagnostics
        if (engine := engine_diagnostic(ls, path, lsp)) is not None
    ]
    if not pairs:
        return []
    needs_names = any(e.rule.name == "skill-name-collision" for _, e in pairs)
    context = FixContext(
        text_of=ls.state.text_of,
        skill_names=_skill_names(ls) if needs_names else frozenset(),
        can_rename=support.rename,
        home=home_dir(),
        seconds=ls.state.settings.file_budget_ms / 1000,
        vocabulary=_vocabulary(ls, path),
    )
    actions: dict[tuple[object, ...], types.CodeAction] = {}
    commands: list[types.Command] = []
    for lsp, engine in pairs:
        for fix in fixes_for(engine, context):
            if not _wanted(fix.kind, params.context.only):
                continue
            command = _command(fix)
            if not support.literals:
                if command is not None and command not in commands:
                    commands.append(command)
                continue
            if fix.renames and not support.rename:
                continue
            key = (fix.title, fix.kind, fix.edits, fix.renames, fix.command)
            action = actions.get(key)
            if action is not None:
                action.diagnostics = [*(action.diagnostics or ()), lsp]
                continue
            actions[key] = types.CodeAction(
                title=fix.title,
                kind=fix.kind,
                diagnostics=[lsp],
                edit=workspace_edit(ls, fix, support) if fix.edits or fix.renames else None,
                command=command,
                is_preferred=fix.preferred or None,
            )
    return [*actions.values()] if support.literals else [*commands]


def _directory_argument(ls: PiLanguageServer, arguments: Iterable[Any]) -> str:
    directory = next(iter(arguments), None)
    if not isinstance(directory, str) or not directory:
        raise JsonRpcInvalidParams(f"{TRUST_COMMAND} takes one argument: the project folder")
    if directory.startswith("file:"):
        directory = path_of(directory)
    return os.path.abspath(os.path.join(ls.state.root, directory))


def register(server: PiLanguageServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(
        ls: PiLanguageServer, params: types.CodeActionParams
    ) -> list[types.CodeAction | types.Command]:
        return code_actions(ls, params)

    @server.command(TRUST_COMMAND)
    def trust_project(ls: PiLanguageServer, *arguments: Any) -> dict[str, Any]:
        """Trust the project folder given as the only argument (as Pi's dialog would)."""
        directory = _directory_argument(ls, arguments)
        result = set_trust(ls, directory, True)
        ls.log_to_client(f"pi-lsp: trusted {result['cwd']} in {result['storePath']}")
        return result
