"""Asking the user before a chat's agent runs a tool that changes things (``pi/approve``).

Pi itself never asks: it trusts the user and the operating system. The editor may choose to be
asked (setting ``approvalMode``): ``never`` (Pi's behaviour, the default), ``bash``, or
``mutating`` (bash, edit and write). Before such a call runs, the server sends the client one
``pi/approve`` request carrying the call — the bash command and its working directory, or the
file an edit or write changes and the unified diff of that change, computed without writing —
and waits for the answer:

- ``allow`` runs the call; ``allowSession`` runs it and every later call of the same kind in
  this session (bash; or file changes: edit and write) without asking;
- ``deny`` gives the model an error result ("… denied by the user", with the user's reason);
- ``applied`` (an edit or write): the editor wrote the question's ``proposed`` text itself
  after the user reviewed it; the tool does not run, and the model gets its success result when
  the file holds that text, else an error.

Not asked: a command that starts with an allow-listed prefix (``approvalAllowCommands``, whole
words; a command with shell operators, substitutions or redirections is always asked about), a
change to an allow-listed path (``approvalAllowPaths``: a file, or a folder and everything
below it), and an edit that cannot apply (the call fails as it would in Pi, nothing is
written). A client that does not implement the request (method not found) gets Pi's behaviour
for the rest of the session. When the run is aborted while a question is open, the question is
withdrawn (``$/cancelRequest``) and the call ends as aborted.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcMethodNotFound

from pi_lsp.agent.tool_runner import BeforeToolCallContext, BeforeToolCallResult
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.requests import plain
from pi_lsp.server.settings import ServerSettings
from pi_lsp.session.session_file import SessionFile
from pi_lsp.tools.base import AbortSignal, ToolError, ToolResult
from pi_lsp.tools.edit import edit_success, normalize_to_lf, proposed_edit_file, split_bom
from pi_lsp.tools.node_errors import read_regular_file
from pi_lsp.tools.paths import resolve_to_cwd
from pi_lsp.tools.text_diff import unified_patch
from pi_lsp.tools.write import write_success

log = logging.getLogger(__name__)

APPROVE = "pi/approve"

#: The tools each mode asks about.
ASKED_TOOLS: Mapping[str, frozenset[str]] = {
    "never": frozenset(),
    "bash": frozenset({"bash"}),
    "mutating": frozenset({"bash", "edit", "write"}),
}

#: What one "allow for this session" covers: bash, or the file changes (edit and write).
SCOPE_OF = {"bash": "bash", "edit": "files", "write": "files"}

#: Longest diff sent; a longer one is cut at a line break and marked ``diffTruncated``.
MAX_DIFF_CHARS = 200_000

#: Longest file text sent as ``proposed`` (what the editor shows and applies on review).
MAX_PROPOSED_CHARS = 2_000_000

#: A command containing any of these (operators, substitutions, redirections, line breaks)
#: runs more than its first words say, so an allow-listed prefix never skips its question.
_SHELL_SYNTAX = frozenset(";&|`$<>()\n\r")

DECISIONS = ("allow", "allowSession", "applied", "deny")


def command_allowed(command: str, prefixes: Sequence[str]) -> bool:
    """Whether ``command`` starts with the words of an allow-listed prefix and is one simple
    command (no shell syntax that could run something else)."""
    if any(char in _SHELL_SYNTAX for char in command):
        return False
    words = command.split()
    for prefix in prefixes:
        wanted = prefix.split()
        if wanted and words[: len(wanted)] == wanted:
            return True
    return False


def path_allowed(absolute: str, entries: Sequence[str], cwd: str) -> bool:
    """Whether ``absolute`` (symlinks resolved) is an allow-listed file or lies in a listed
    folder; relative entries are taken from ``cwd``."""
    target = os.path.realpath(absolute)
    for entry in entries:
        base = os.path.realpath(resolve_to_cwd(entry, cwd))
        if target == base or target.startswith(base.rstrip(os.sep) + os.sep):
            return True
    return False


def _clipped(diff: str) -> tuple[str, bool]:
    if len(diff) <= MAX_DIFF_CHARS:
        return diff, False
    cut = diff.rfind("\n", 0, MAX_DIFF_CHARS)
    return diff[: cut + 1 if cut > 0 else MAX_DIFF_CHARS], True


def _current_text(absolute: str) -> str | None:
    """The file's text before a write, or None for a file that does not exist yet."""
    if not os.path.lexists(absolute):
        return None
    try:
        return read_regular_file(absolute).decode("utf-8", "replace")
    except ToolError:
        return None


@dataclass(frozen=True, slots=True)
class Question:
    """One ``pi/approve`` question (its params without session and call id) and, for a file
    change, the text the file would hold and the call's success result if the editor applies
    it."""

    params: dict[str, Any]
    proposed: str | None = None
    success: ToolResult | None = None


def question_for(
    name: str, args: Mapping[str, Any], cwd: str, settings: ServerSettings
) -> Question | None:
    """The question for a call, or None when it is not asked about (allow-listed, or an edit
    that cannot apply)."""
    if name == "bash":
        command = str(args.get("command", ""))
        if command_allowed(command, settings.approval_allow_commands):
            return None
        question: dict[str, Any] = {"tool": name, "command": command, "cwd": cwd}
        if args.get("timeout") is not None:
            question["timeout"] = args["timeout"]
        return Question(question)
    path = str(args.get("path", ""))
    absolute = resolve_to_cwd(path, cwd)
    if path_allowed(absolute, settings.approval_allow_paths, cwd):
        return None
    if name == "edit":
        try:
            applied, proposed = proposed_edit_file(dict(args), cwd)
        except ToolError:
            return None  # the call fails without writing: nothing to approve
        old: str | None = applied.base_content
        new = applied.new_content
        success = edit_success(path, len(args["edits"]), applied)
    else:
        old, new = _current_text(absolute), str(args.get("content", ""))
        proposed, success = new, write_success(path)
    diff, truncated = _clipped(unified_patch(path, old or "", new))
    question = {
        "tool": name,
        "path": absolute,
        "displayPath": path,
        "cwd": cwd,
        "newFile": old is None,
        "diff": diff,
    }
    if truncated:
        question["diffTruncated"] = True
    if len(proposed) <= MAX_PROPOSED_CHARS:
        question["proposed"] = proposed
    return Question(question, proposed, success)


def holds(absolute: str, proposed: str) -> bool:
    """Whether the file now holds ``proposed`` (its BOM and line-break style aside)."""
    try:
        raw = read_regular_file(absolute).decode("utf-8", "replace")
    except (ToolError, OSError):
        return False
    return normalize_to_lf(split_bom(raw)[1]) == normalize_to_lf(split_bom(proposed)[1])


def not_applied(name: str, path: str) -> str:
    """The error result the model reads when the editor said it applied a change the file does
    not hold."""
    return (
        f"{name} call not applied: {path} does not hold the proposed change "
        "(the editor applied something else, or the file changed since)"
    )


def denial(name: str, reason: str | None) -> str:
    """The error result the model reads for a denied call."""
    return f"{name} call denied by the user" + (f": {reason}" if reason else "")


def _reason(answer: Mapping[str, Any]) -> str | None:
    reason = answer.get("reason")
    return reason.strip() or None if isinstance(reason, str) else None


class ApprovalGate:
    """The ``before_tool_call`` hook of one held session: asks, and remembers what the user
    allowed for the session and whether the client can be asked at all."""

    def __init__(self, ls: PiLanguageServer, session: SessionFile) -> None:
        self.ls = ls
        self.session = session
        self.allowed: set[str] = set()
        self.unsupported = False

    async def __call__(self, context: BeforeToolCallContext) -> BeforeToolCallResult | None:
        name = str(context.tool_call.get("name", ""))
        settings = self.ls.state.settings
        if self.unsupported or name not in ASKED_TOOLS.get(settings.approval_mode, frozenset()):
            return None
        scope = SCOPE_OF[name]
        if scope in self.allowed:
            return None
        cwd = self.session.cwd
        question = await asyncio.to_thread(question_for, name, context.args, cwd, settings)
        if question is None:
            return None
        params = {
            "session": self.session.session_id,
            "toolCallId": str(context.tool_call.get("id", "")),
            **question.params,
        }
        try:
            answer = await self._ask(params, context.signal)
        except JsonRpcMethodNotFound:
            self.unsupported = True  # a client without approvals: Pi's behaviour
            return None
        except Exception as error:
            log.warning("%s failed: %s", APPROVE, error)
            return BeforeToolCallResult(
                block=True, reason=f"{name} call not run: the user could not be asked ({error})"
            )
        if answer is None:  # aborted: the runner ends the call as aborted
            return None
        decision = answer.get("decision")
        if decision == "allowSession":
            self.allowed.add(scope)
        if decision in ("allow", "allowSession"):
            return None
        if decision == "applied" and question.proposed is not None:
            return await asyncio.to_thread(self._settle, name, question)
        if decision != "deny":
            log.warning("%s: not an answer: %r", APPROVE, answer)
        return BeforeToolCallResult(block=True, reason=denial(name, _reason(answer)))

    @staticmethod
    def _settle(name: str, question: Question) -> BeforeToolCallResult:
        """The call the editor says it applied: its success result when the file holds the
        proposed text, else an error; the tool itself does not write again."""
        absolute, shown = str(question.params["path"]), str(question.params["displayPath"])
        assert question.proposed is not None and question.success is not None
        if holds(absolute, question.proposed):
            return BeforeToolCallResult(settled=question.success)
        return BeforeToolCallResult(settled=ToolResult.error(not_applied(name, shown)))

    async def _ask(
        self, params: dict[str, Any], signal: AbortSignal | None
    ) -> dict[str, Any] | None:
        """The client's answer, or None when ``signal`` aborts first (the question is then
        withdrawn)."""
        msg_id = f"approve-{uuid.uuid4()}"
        answer = self.ls.protocol.send_request_async(APPROVE, params, msg_id=msg_id)
        # A withdrawn question may still be answered (or refused) later: nobody waits for it.
        answer.add_done_callback(lambda done: done.cancelled() or done.exception())
        aborted = asyncio.ensure_future(signal.wait()) if signal is not None else None
        try:
            waits: set[asyncio.Future[Any]] = {answer}
            if aborted is not None:
                waits.add(aborted)
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if aborted is not None:
                aborted.cancel()
            if not answer.done():
                self._withdraw(msg_id)
        if not answer.done():
            return None
        result = plain(answer.result())
        return result if isinstance(result, dict) else {}

    def _withdraw(self, msg_id: str) -> None:
        with contextlib.suppress(Exception):
            self.ls.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
