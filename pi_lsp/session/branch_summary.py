"""Branch summaries: what the user leaves behind when moving elsewhere in the tree (spec §11).

Navigating from the current leaf to another entry abandons the part of the old branch below
their common ancestor. On request, that part is summarized and the summary is stored as a
``branch_summary`` entry at the new position, so the conversation that continues there knows
what was tried. Four steps:

* :func:`collect_entries_for_branch_summary` — the abandoned entries, oldest first;
* :func:`prepare_branch_entries` — their messages, newest first until a token budget is spent
  (tool results left out), and the files they touched;
* :func:`generate_branch_summary` — one request to a :class:`Summarizer`;
* :func:`navigate_tree` — the whole move on a session (Pi's ``navigateTree``), with hooks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pi_lsp.session.context import entry_messages
from pi_lsp.session.entry_store import UNKNOWN, IndexedEntries, Unknown
from pi_lsp.session.file_ops import FileOperations, format_file_operations
from pi_lsp.session.llm_messages import convert_to_llm, js_truthy
from pi_lsp.session.serialization import conversation_prompt, serialize_conversation
from pi_lsp.session.summarizer import (
    BRANCH_LABEL,
    Summarizer,
    SummaryAborted,
    SummaryModel,
    SummaryRequest,
    checked_text,
    make_summary_request,
)
from pi_lsp.session.summary_prompts import (
    BRANCH_SUMMARY_PROMPT,
    SUMMARIZER_SYSTEM_PROMPT,
    with_additional_focus,
)
from pi_lsp.session.tokens import DEFAULT_BRANCH_SUMMARY_RESERVE_TOKENS, estimate_message_tokens
from pi_lsp.session.tree import index_entries, lowest_common_ancestor

__all__ = [
    "BRANCH_SUMMARY_MAX_TOKENS",
    "BRANCH_SUMMARY_PREAMBLE",
    "FALLBACK_CONTEXT_WINDOW",
    "NOTHING_TO_SUMMARIZE",
    "NO_MODEL",
    "RUN_ACTIVE",
    "BeforeTreeDecision",
    "BranchCollection",
    "BranchPreparation",
    "BranchSummaryResult",
    "NavigableSession",
    "NavigationError",
    "NavigationResult",
    "TreeNavigation",
    "branch_summary_entry",
    "branch_summary_request",
    "collect_entries_for_branch_summary",
    "generate_branch_summary",
    "navigate_tree",
    "prepare_branch_entries",
]

Entry = dict[str, Any]
Message = dict[str, Any]

#: Output cap of a branch summary (before the model's own cap and the provider clamp).
BRANCH_SUMMARY_MAX_TOKENS = 4096
#: The window assumed when the model does not say.
FALLBACK_CONTEXT_WINDOW = 128000
#: Share of the budget under which a summary entry is still taken once the budget is spent.
SUMMARY_ENTRY_SLACK = 0.9
#: Stored when there was nothing to summarize (no request is made).
NOTHING_TO_SUMMARIZE = "No content to summarize"
#: What a generated branch summary starts with (a wrapper, kept as Pi writes it).
BRANCH_SUMMARY_PREAMBLE = (
    "The user explored a different conversation branch before returning here.\n"
    "Summary of that exploration:\n\n"
)


# ---------------------------------------------------------------------------------------------
# Collecting and preparing


@dataclass(frozen=True, slots=True)
class BranchCollection:
    """The abandoned entries (oldest first) and the deepest entry both branches share."""

    entries: tuple[Entry, ...]
    common_ancestor_id: str | None


def collect_entries_for_branch_summary(
    by_id: Mapping[str, Entry],
    old_leaf_id: str | None,
    target_id: str,
    *,
    common: str | Unknown | None = UNKNOWN,
) -> BranchCollection:
    """``collectEntriesForBranchSummary``: the old leaf's ancestors up to (not including) the
    deepest entry also on the target's path; without an old leaf, nothing.

    ``A─B─C─D(old)`` and ``A─E─F(target)`` give ``B, C, D``. The common ancestor is never
    included; compaction and branch-summary entries on the way are. ``common``: that ancestor
    when the caller knows it already.
    """
    if old_leaf_id is None:
        return BranchCollection((), None)
    if isinstance(common, Unknown):
        common = lowest_common_ancestor(by_id, old_leaf_id, target_id)
    collected: list[Entry] = []
    seen: set[str] = set()
    current: str | None = old_leaf_id
    while current is not None and current != common and current not in seen:
        entry = by_id.get(current)
        if entry is None:
            break
        seen.add(current)
        collected.append(entry)
        parent = entry.get("parentId")
        current = parent if isinstance(parent, str) else None
    collected.reverse()
    return BranchCollection(tuple(collected), common)


@dataclass(frozen=True, slots=True)
class BranchPreparation:
    """The messages to summarize (oldest first), the files touched, their estimated tokens."""

    messages: tuple[Message, ...]
    file_ops: FileOperations
    total_tokens: int


def _branch_message(entry: Entry) -> Message | None:
    """The message an entry contributes to a branch summary (tool results are left out)."""
    messages = entry_messages(entry)
    if not messages:
        return None
    message = messages[0]
    if entry.get("type") == "message" and message.get("role") == "toolResult":
        return None
    return message


def prepare_branch_entries(entries: Sequence[Entry], token_budget: int) -> BranchPreparation:
    """``prepareBranchEntries``: messages from newest to oldest while they fit the budget.

    File lists carried by earlier pi-generated branch summaries among ``entries`` are taken
    first; each message's tool calls count even when the message itself no longer fits. A
    ``token_budget`` of 0 or less means no limit. Once a message does not fit, a compaction or
    branch summary is still taken if less than 90 % of the budget is used; then it stops.
    """
    file_ops = FileOperations()
    for entry in entries:
        if (
            entry.get("type") == "branch_summary"
            and not js_truthy(entry.get("fromHook"))
            and entry.get("details")
        ):
            file_ops.seed_from_details(entry.get("details"))

    picked: list[Message] = []
    total = 0
    for entry in reversed(entries):
        message = _branch_message(entry)
        if message is None:
            continue
        file_ops.add_message(message)
        tokens = estimate_message_tokens(message)
        if token_budget > 0 and total + tokens > token_budget:
            is_summary = entry.get("type") in ("compaction", "branch_summary")
            if is_summary and total < SUMMARY_ENTRY_SLACK * token_budget:
                picked.append(message)
                total += tokens
            break
        picked.append(message)
        total += tokens
    picked.reverse()
    return BranchPreparation(tuple(picked), file_ops, total)


# ---------------------------------------------------------------------------------------------
# Generating


@dataclass(frozen=True, slots=True)
class BranchSummaryResult:
    """A branch summary: the text to store, the files, the usage (None without a request)."""

    summary: str
    read_files: tuple[str, ...] = ()
    modified_files: tuple[str, ...] = ()
    usage: Mapping[str, Any] | None = None
    requested: bool = True

    @property
    def details(self) -> dict[str, list[str]] | None:
        """``{readFiles, modifiedFiles}`` for the entry; None when no summary was generated."""
        if not self.requested:
            return None
        return {"readFiles": list(self.read_files), "modifiedFiles": list(self.modified_files)}


def _instructions(custom_instructions: str | None, replace_instructions: bool) -> str:
    if custom_instructions and replace_instructions:
        return custom_instructions
    return with_additional_focus(BRANCH_SUMMARY_PROMPT, custom_instructions)


def branch_summary_request(
    messages: Sequence[Message],
    model: SummaryModel,
    *,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
) -> SummaryRequest:
    """The request for a branch summary: no reasoning option, at most 4096 output tokens (or
    the model's cap if lower), then the provider clamp."""
    text = conversation_prompt(
        serialize_conversation(convert_to_llm(messages)),
        _instructions(custom_instructions, replace_instructions),
    )
    budget = BRANCH_SUMMARY_MAX_TOKENS
    if model.max_tokens > 0:
        budget = min(budget, model.max_tokens)
    return make_summary_request(BRANCH_LABEL, SUMMARIZER_SYSTEM_PROMPT, text, budget, model)


async def generate_branch_summary(
    entries: Sequence[Entry],
    summarizer: Summarizer,
    model: SummaryModel,
    *,
    reserve_tokens: int = DEFAULT_BRANCH_SUMMARY_RESERVE_TOKENS,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
) -> BranchSummaryResult:
    """``generateBranchSummary``: summarize the abandoned ``entries``.

    The input budget is the model's window (128000 when unknown) minus ``reserve_tokens``
    (``branchSummary.reserveTokens``). With no message to summarize the result is
    ``No content to summarize`` and no request is made. Raises :class:`SummaryError` for a
    refused answer and :class:`SummaryAborted` for an aborted one.
    """
    window = model.context_window or FALLBACK_CONTEXT_WINDOW
    prepared = prepare_branch_entries(entries, window - reserve_tokens)
    if not prepared.messages:
        return BranchSummaryResult(NOTHING_TO_SUMMARIZE, requested=False)
    request = branch_summary_request(
        prepared.messages,
        model,
        custom_instructions=custom_instructions,
        replace_instructions=replace_instructions,
    )
    response = await summarizer.complete(request)
    text = checked_text(response, BRANCH_LABEL)
    read_files = prepared.file_ops.read_files
    modified_files = prepared.file_ops.modified_files
    summary = BRANCH_SUMMARY_PREAMBLE + text + format_file_operations(read_files, modified_files)
    return BranchSummaryResult(
        summary, tuple(read_files), tuple(modified_files), response.usage, requested=True
    )


def branch_summary_entry(
    from_id: str,
    summary: str,
    *,
    details: Mapping[str, Any] | None = None,
    usage: Mapping[str, Any] | None = None,
    from_hook: bool | None = None,
) -> dict[str, Any]:
    """The ``branch_summary`` entry fields in Pi's order (storage adds ``id``, ``parentId`` —
    the new leaf — and ``timestamp`` after ``type``). ``from_id`` is the leaf before the
    navigation, ``"root"`` when there was none."""
    entry: dict[str, Any] = {"type": "branch_summary", "fromId": from_id, "summary": summary}
    if details is not None:
        entry["details"] = dict(details)
    if usage is not None:
        entry["usage"] = dict(usage)
    if from_hook is not None:
        entry["fromHook"] = from_hook
    return entry


# ---------------------------------------------------------------------------------------------
# Navigating


class NavigationError(Exception):
    """Navigation refused: a run is active, no model to summarize with, unknown target."""


class NavigableSession(Protocol):
    """What :func:`navigate_tree` needs of a session (``SessionFile`` provides it)."""

    @property
    def leaf_id(self) -> str | None: ...

    @property
    def entries(self) -> Sequence[Entry]: ...

    def get_entry(self, entry_id: str) -> Entry | None: ...

    def branch(self, entry_id: str) -> None: ...

    def reset_leaf(self) -> None: ...

    def branch_with_summary(
        self,
        target_id: str | None,
        summary: str,
        details: Any = None,
        from_hook: bool | None = None,
        usage: Mapping[str, Any] | None = None,
    ) -> str: ...

    def append_label_change(self, target_id: str, label: str | None) -> str: ...


@dataclass(frozen=True, slots=True)
class TreeNavigation:
    """The planned move, as the before-tree hook sees it (Pi's tree preparation)."""

    target_id: str
    old_leaf_id: str | None
    common_ancestor_id: str | None
    entries_to_summarize: tuple[Entry, ...]
    user_wants_summary: bool
    custom_instructions: str | None
    replace_instructions: bool
    label: str | None


@dataclass(frozen=True, slots=True)
class BeforeTreeDecision:
    """A before-tree hook's answer: cancel, supply a summary, or override the options."""

    cancel: bool = False
    summary: str | None = None
    details: Mapping[str, Any] | None = None
    custom_instructions: str | None = None
    replace_instructions: bool | None = None
    label: str | None = None


@dataclass(frozen=True, slots=True)
class NavigationResult:
    """``navigateTree``'s answer. ``editor_text`` is the text of a user or custom message the
    user navigated to (to edit and send again)."""

    cancelled: bool = False
    aborted: bool = False
    editor_text: str | None = None
    summary_entry: Mapping[str, Any] | None = None
    new_leaf_id: str | None = None
    from_hook: bool = False
    tree: TreeNavigation | None = field(default=None, repr=False)


BeforeTreeHook = Callable[[TreeNavigation], Awaitable[BeforeTreeDecision | None]]
AfterTreeHook = Callable[[NavigationResult], Awaitable[None]]

RUN_ACTIVE = "Wait for the current response to finish before navigating the session tree."
NO_MODEL = "No model available for summarization"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(
        block["text"]
        for block in content
        if isinstance(block, Mapping)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
    )


def _landing(target: Entry) -> tuple[str | None, str | None]:
    """Where the leaf goes for ``target`` and the editor text: a user or custom message is
    re-opened for editing (the leaf goes to its parent), anything else becomes the leaf."""
    kind = target.get("type")
    message = target.get("message")
    parent = target.get("parentId")
    parent_id = parent if isinstance(parent, str) else None
    if kind == "message" and isinstance(message, Mapping) and message.get("role") == "user":
        return parent_id, _text_of(message.get("content"))
    if kind == "custom_message":
        return parent_id, _text_of(target.get("content"))
    target_id = target.get("id")
    return (target_id if isinstance(target_id, str) else None), None


async def navigate_tree(
    session: NavigableSession,
    target_id: str,
    *,
    summarize: bool = False,
    summarizer: Summarizer | None = None,
    model: SummaryModel | None = None,
    reserve_tokens: int = DEFAULT_BRANCH_SUMMARY_RESERVE_TOKENS,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    label: str | None = None,
    run_active: bool = False,
    before_tree: BeforeTreeHook | None = None,
    after_tree: AfterTreeHook | None = None,
) -> NavigationResult:
    """``navigateTree``: move the session's leaf to ``target_id``, summarizing what is left.

    A user (or custom) message target is re-opened: the leaf goes to its parent and its text
    is returned for editing. With a summary, a ``branch_summary`` entry is appended at the new
    position (``fromId`` = the leaf before the move) and ``label`` goes on it; without one the
    leaf just moves and ``label`` goes on the target. Raises :class:`NavigationError`
    (run active, no model, unknown target) and :class:`SummaryError` when the summary is
    refused; an aborted summary gives ``cancelled`` and ``aborted`` with the session unchanged.
    """
    if run_active:
        raise NavigationError(RUN_ACTIVE)
    old_leaf = session.leaf_id
    if target_id == old_leaf:
        return NavigationResult(new_leaf_id=old_leaf)
    if summarize and (summarizer is None or model is None):
        raise NavigationError(NO_MODEL)
    target = session.get_entry(target_id)
    if target is None:
        raise NavigationError(f"Entry {target_id} not found")

    entries = session.entries
    if isinstance(entries, IndexedEntries):
        # by positions: only the abandoned branch's entries are read (they are summarized)
        common = entries.common_ancestor(old_leaf, target_id)
        collection = collect_entries_for_branch_summary(
            entries.by_id, old_leaf, target_id, common=common
        )
    else:
        collection = collect_entries_for_branch_summary(index_entries(entries), old_leaf, target_id)
    plan = TreeNavigation(
        target_id,
        old_leaf,
        collection.common_ancestor_id,
        collection.entries,
        summarize,
        custom_instructions,
        replace_instructions,
        label,
    )

    hook_summary: BeforeTreeDecision | None = None
    if before_tree is not None:
        decision = await before_tree(plan)
        if decision is not None:
            if decision.cancel:
                return NavigationResult(cancelled=True, tree=plan)
            if decision.summary is not None and summarize:
                hook_summary = decision
            if decision.custom_instructions is not None:
                custom_instructions = decision.custom_instructions
            if decision.replace_instructions is not None:
                replace_instructions = decision.replace_instructions
            if decision.label is not None:
                label = decision.label

    summary_text: str | None = None
    details: Mapping[str, Any] | None = None
    usage: Mapping[str, Any] | None = None
    from_hook = hook_summary is not None
    if hook_summary is not None and hook_summary.summary is not None:
        summary_text, details = hook_summary.summary, hook_summary.details
    elif summarize and collection.entries:
        assert summarizer is not None and model is not None
        try:
            generated = await generate_branch_summary(
                collection.entries,
                summarizer,
                model,
                reserve_tokens=reserve_tokens,
                custom_instructions=custom_instructions,
                replace_instructions=replace_instructions,
            )
        except SummaryAborted:
            return NavigationResult(cancelled=True, aborted=True, tree=plan)
        summary_text, details, usage = generated.summary, generated.details, generated.usage

    new_leaf, editor_text = _landing(target)
    summary_entry: Mapping[str, Any] | None = None
    if summary_text is not None:
        entry_id = session.branch_with_summary(
            new_leaf, summary_text, dict(details) if details is not None else None, from_hook, usage
        )
        summary_entry = session.get_entry(entry_id)
        if label:
            session.append_label_change(entry_id, label)
    else:
        if new_leaf is None:
            session.reset_leaf()
        else:
            session.branch(new_leaf)
        if label:
            session.append_label_change(target_id, label)

    result = NavigationResult(
        editor_text=editor_text,
        summary_entry=summary_entry,
        new_leaf_id=session.leaf_id,
        from_hook=from_hook,
        tree=plan,
    )
    if after_tree is not None:
        await after_tree(result)
    return result
