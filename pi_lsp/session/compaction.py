"""Compaction: replace the older part of a branch by a summary (spec §10.5, §10.7).

Three steps, each usable on its own:

* :func:`prepare_compaction` looks at the active path and decides what would happen: where to
  cut (:mod:`cut_point`), which messages to summarize, whether a turn is split, the tokens
  before, the earlier summary to build on and the files touched. No model, no writes.
* :func:`compact` asks a :class:`~pi_lsp.session.summarizer.Summarizer` for the summary (one
  request, or two for a split turn) and returns a :class:`CompactionResult`. A refused answer
  (error, token cap, tool call) raises; nothing is returned to persist.
* :func:`compaction_entry` builds the ``compaction`` entry Pi writes for a result.

:func:`run_compaction` strings them together with the extension hooks (one that can cancel or
supply the summary, one told about the stored entry) the way Pi's session does.

pi-lsp corrects one of Pi's accidents here unless ``pi_quirks`` is set (spec §15.3, conformance
case ``compaction-split-after-compaction``): when Pi's cut falls before the previous compaction
entry, that entry stays in the kept range and its old summary is projected again in the middle
of the context, after newer messages, while the new summary is built without it. pi-lsp moves
the cut to just past the previous compaction (a kept range never holds an older summary), and
when a split turn leaves nothing else to summarize it carries the previous summary forward
instead of writing ``No prior history.``. For session files Pi already wrote that way, an
older summary left inside the span being summarized is given to the model as part of the
transcript (Pi leaves every compaction entry out of it, so such a summary was lost for good at
the next compaction). See ``tests/conformance/overrides/README.md``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any, Literal, Protocol

from pi_lsp.session.context import UNSET, build_session_context, entry_messages
from pi_lsp.session.cut_point import CutPoint, find_cut_point, is_cut_point, settle_cut
from pi_lsp.session.entry_store import EntryPath
from pi_lsp.session.file_ops import FileOperations, format_file_operations
from pi_lsp.session.llm_messages import convert_to_llm, js_truthy
from pi_lsp.session.serialization import conversation_prompt, serialize_conversation
from pi_lsp.session.summarizer import (
    HISTORY_LABEL,
    TURN_PREFIX_LABEL,
    Summarizer,
    SummaryAborted,
    SummaryError,
    SummaryModel,
    SummaryRequest,
    add_usage,
    checked_text,
    make_summary_request,
    summary_budget,
)
from pi_lsp.session.summary_prompts import (
    HISTORY_SUMMARY_PROMPT,
    SUMMARIZER_SYSTEM_PROMPT,
    TURN_PREFIX_PROMPT,
    UPDATE_SUMMARY_PROMPT,
    with_additional_focus,
)
from pi_lsp.session.tokens import (
    CompactionSettings,
    estimate_context_tokens,
    estimate_messages_tokens,
)

__all__ = [
    "ALREADY_COMPACTED",
    "NOTHING_TO_COMPACT",
    "NO_PRIOR_HISTORY",
    "SPLIT_TURN_SEPARATOR",
    "AfterCompactEvent",
    "BeforeCompactDecision",
    "BeforeCompactEvent",
    "CompactionCancelled",
    "CompactionOutcome",
    "CompactionPreparation",
    "CompactionReason",
    "CompactionRefused",
    "CompactionResult",
    "EntryStore",
    "appender",
    "compact",
    "compaction_entry",
    "compaction_requests",
    "estimated_tokens_after",
    "prepare_compaction",
    "prepare_compaction_or_reason",
    "run_compaction",
]

Entry = dict[str, Any]
Message = dict[str, Any]
CompactionReason = Literal["manual", "threshold", "overflow"]

#: Why a manual compaction does nothing (Pi's messages).
ALREADY_COMPACTED = "Already compacted"
NOTHING_TO_COMPACT = "Nothing to compact (session too small)"

#: The history part of a split-turn summary when nothing precedes the turn.
NO_PRIOR_HISTORY = "No prior history."
#: Between the history summary and the turn-prefix summary of a split turn.
SPLIT_TURN_SEPARATOR = "\n\n---\n\n**Turn Context (split turn):**\n\n"

#: Shares of ``reserveTokens`` a summary may spend on output.
HISTORY_SHARE = 0.8
TURN_PREFIX_SHARE = 0.5


class CompactionRefused(SummaryError):
    """A manual compaction that has nothing to do (``Already compacted``, ``Nothing to …``)."""


class CompactionCancelled(SummaryAborted):
    """A before-compact hook cancelled the compaction."""

    def __init__(self) -> None:
        super().__init__("Compaction cancelled")


@dataclass(frozen=True, slots=True)
class CompactionPreparation:
    """What compacting the path would do (``prepareCompaction``), plus where things are.

    Indices point into ``path_entries``. ``messages_to_summarize`` are the messages of the
    entries from ``span_start`` up to the turn start (split turn) or the first kept entry,
    compaction entries left out (unless ``pi_quirks`` is off and the compaction is older than
    the previous one, see the module docstring); ``turn_prefix_messages`` those from the turn
    start to the first kept entry. ``moved_cut_from`` is the index Pi would have cut at when
    pi-lsp moved the cut past the previous compaction; ``carry_previous_summary`` is set when
    a split turn leaves no history and the previous summary stands in for it.
    """

    first_kept_entry_id: str
    messages_to_summarize: tuple[Message, ...]
    turn_prefix_messages: tuple[Message, ...]
    is_split_turn: bool
    tokens_before: int
    previous_summary: str | None
    file_ops: FileOperations
    settings: CompactionSettings
    #: the active branch (a session's path reads entries kept in its file when indexed)
    path_entries: Sequence[Entry] = ()
    span_start: int = 0
    first_kept_entry_index: int = 0
    turn_start_index: int = -1
    previous_compaction_index: int | None = None
    moved_cut_from: int | None = None
    carry_previous_summary: bool = False
    pi_quirks: bool = False

    @property
    def history_end(self) -> int:
        """Index after the last entry summarized as history."""
        return self.turn_start_index if self.is_split_turn else self.first_kept_entry_index

    @property
    def summarized_entries(self) -> tuple[Entry, ...]:
        """The path entries whose messages are summarized (history, then turn prefix)."""
        older_from = None if self.pi_quirks else self.previous_compaction_index
        path = self.path_entries
        return tuple(
            entry
            for index in range(self.span_start, min(self.first_kept_entry_index, len(path)))
            if entry_messages(entry := path[index])
            and (
                entry.get("type") != "compaction" or (older_from is not None and index < older_from)
            )
        )

    @property
    def kept_entries(self) -> tuple[Entry, ...]:
        """The path entries from the first kept one on."""
        return tuple(self.path_entries[self.first_kept_entry_index :])


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """``CompactionResult``: the summary and what the entry records about it."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: Mapping[str, Any] | None = None
    usage: Mapping[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        """The result as Pi reports it in events (``details``/``usage`` only when present)."""
        data: dict[str, Any] = {
            "summary": self.summary,
            "firstKeptEntryId": self.first_kept_entry_id,
            "tokensBefore": self.tokens_before,
        }
        if self.usage is not None:
            data["usage"] = dict(self.usage)
        if self.details is not None:
            data["details"] = dict(self.details)
        return data


# ---------------------------------------------------------------------------------------------
# Preparation


def _messages_of(
    path: Sequence[Entry], start: int, stop: int, older_summaries_from: int | None
) -> tuple[Message, ...]:
    """The first message of each entry of ``path[start:stop]``, compaction entries left out —
    except, when ``older_summaries_from`` is an index, compactions before it (older ones than
    the previous compaction, which a Pi-written file can hold in a kept range)."""
    messages: list[Message] = []
    for index in range(start, max(start, stop)):
        entry = path[index]
        if entry.get("type") == "compaction" and (
            older_summaries_from is None or index >= older_summaries_from
        ):
            continue
        projected = entry_messages(entry)
        if projected:
            messages.append(projected[0])
    return tuple(messages)


def _last_compaction_index(path: Sequence[Entry]) -> int | None:
    kinds = path.kinds() if isinstance(path, EntryPath) else [e.get("type") for e in path]
    for index in range(len(kinds) - 1, -1, -1):
        if kinds[index] == "compaction":
            return index
    return None


def _position_of(path: Sequence[Entry], entry_id: Any, near: int) -> int:
    """Index of the entry with id ``entry_id`` on ``path``, else ``near + 1``.

    A string id is unique on a path, so it is looked for from ``near`` backwards first (the
    kept entries of a compaction lie just before it) and the rest only if need be.
    """
    ids = path.ids() if isinstance(path, EntryPath) else [entry.get("id") for entry in path]
    if isinstance(entry_id, str):
        for index in chain(range(near - 1, -1, -1), range(near, len(ids))):
            if ids[index] == entry_id:
                return index
        return near + 1
    return next((i for i, key in enumerate(ids) if key == entry_id), near + 1)


def _context_tokens(path: Sequence[Entry]) -> int:
    if not path:
        return 0
    leaf = path[-1].get("id")
    context = build_session_context(path, leaf if isinstance(leaf, str) else UNSET)
    return estimate_context_tokens(context.messages).tokens


def _past_previous_compaction(
    path: Sequence[Entry], cut: CutPoint, previous: int, start: int
) -> CutPoint | None:
    """The cut moved to the first allowed entry after the previous compaction (None if none)."""
    if cut.first_kept_entry_index > previous:
        return None
    later = next((i for i in range(previous + 1, len(path)) if is_cut_point(path[i])), None)
    if later is None:
        return None
    return settle_cut(path, later, start, len(path))


def prepare_compaction_or_reason(
    path_entries: Sequence[Entry],
    settings: CompactionSettings,
    *,
    pi_quirks: bool = False,
) -> CompactionPreparation | str:
    """:func:`prepare_compaction`, but saying why (Pi's words) when there is nothing to do."""
    # a session's path reads entries kept in its file only where the plan looks
    path = path_entries if isinstance(path_entries, EntryPath) else tuple(path_entries)
    if path and path[-1].get("type") == "compaction":
        return ALREADY_COMPACTED

    previous_index = _last_compaction_index(path)
    previous = path[previous_index] if previous_index is not None else None
    previous_summary: str | None = None
    span_start = 0
    if previous is not None and previous_index is not None:
        summary = previous.get("summary")
        previous_summary = summary if isinstance(summary, str) and summary else None
        first_kept = previous.get("firstKeptEntryId")
        span_start = _position_of(path, first_kept, previous_index)

    tokens_before = _context_tokens(path)
    end = len(path)
    cut = find_cut_point(path, span_start, end, settings.keep_recent_tokens, pi_quirks=pi_quirks)
    moved_from: int | None = None
    if not pi_quirks and previous_index is not None:
        moved = _past_previous_compaction(path, cut, previous_index, span_start)
        if moved is not None:
            moved_from, cut = cut.first_kept_entry_index, moved

    first_kept_index = cut.first_kept_entry_index
    history_end = cut.turn_start_index if cut.is_split_turn else first_kept_index
    older_from = None if pi_quirks else previous_index
    to_summarize = _messages_of(path, span_start, history_end, older_from)
    turn_prefix = (
        _messages_of(path, cut.turn_start_index, first_kept_index, older_from)
        if cut.is_split_turn
        else ()
    )
    if not to_summarize and not turn_prefix:
        return NOTHING_TO_COMPACT
    first_kept_id = path[first_kept_index].get("id") if first_kept_index < end else None
    if not isinstance(first_kept_id, str):
        # only possible when the span holds no entry a kept part may start at
        return NOTHING_TO_COMPACT

    file_ops = FileOperations()
    if previous is not None and not js_truthy(previous.get("fromHook")):
        file_ops.seed_from_details(previous.get("details"))
    file_ops.add_messages(to_summarize)
    file_ops.add_messages(turn_prefix)

    return CompactionPreparation(
        first_kept_entry_id=first_kept_id,
        messages_to_summarize=to_summarize,
        turn_prefix_messages=turn_prefix,
        is_split_turn=cut.is_split_turn,
        tokens_before=tokens_before,
        previous_summary=previous_summary,
        file_ops=file_ops,
        settings=settings,
        path_entries=path,
        span_start=span_start,
        first_kept_entry_index=first_kept_index,
        turn_start_index=cut.turn_start_index,
        previous_compaction_index=previous_index,
        moved_cut_from=moved_from,
        carry_previous_summary=(
            not pi_quirks
            and cut.is_split_turn
            and not to_summarize
            and previous_summary is not None
        ),
        pi_quirks=pi_quirks,
    )


def prepare_compaction(
    path_entries: Sequence[Entry],
    settings: CompactionSettings,
    *,
    pi_quirks: bool = False,
) -> CompactionPreparation | None:
    """``prepareCompaction(pathEntries, settings)``: the plan, or None when there is nothing
    to compact (the path ends with a compaction, or nothing lies before the cut).

    ``path_entries`` is the active branch, root first (``tree.branch``). ``pi_quirks``
    reproduces Pi's cut exactly (see the module docstring and :func:`find_cut_point`).
    """
    prepared = prepare_compaction_or_reason(path_entries, settings, pi_quirks=pi_quirks)
    return prepared if isinstance(prepared, CompactionPreparation) else None


# ---------------------------------------------------------------------------------------------
# Summarizing


def _transcript(messages: Sequence[Message]) -> str:
    return serialize_conversation(convert_to_llm(messages))


def _strip_file_lists(summary: str, details: Any) -> str:
    """``summary`` without the file lists it ends with (they are listed again afterwards)."""
    if not isinstance(details, Mapping):
        return summary
    read = details.get("readFiles")
    modified = details.get("modifiedFiles")
    tail = format_file_operations(
        read if isinstance(read, list) else [], modified if isinstance(modified, list) else []
    )
    if tail and summary.endswith(tail):
        return summary[: -len(tail)]
    return summary


def _carried_history(preparation: CompactionPreparation) -> str:
    summary = preparation.previous_summary or NO_PRIOR_HISTORY
    index = preparation.previous_compaction_index
    if index is None:
        return summary
    previous = preparation.path_entries[index]
    if js_truthy(previous.get("fromHook")):
        return summary
    return _strip_file_lists(summary, previous.get("details"))


def _reasoning(model: SummaryModel, thinking_level: str | None) -> str | None:
    if model.reasoning and thinking_level and thinking_level != "off":
        return thinking_level
    return None


def compaction_requests(
    preparation: CompactionPreparation,
    model: SummaryModel,
    *,
    custom_instructions: str | None = None,
    thinking_level: str | None = "off",
) -> tuple[SummaryRequest | None, SummaryRequest | None]:
    """The requests :func:`compact` would send: (history, turn prefix), None where none is.

    The history request uses the update instructions when there is an earlier summary; the
    turn-prefix request only happens for a split turn.
    """
    reserve = preparation.settings.reserve_tokens
    reasoning = _reasoning(model, thinking_level)
    now = int(time.time() * 1000)

    def request(label: str, share_of_reserve: float, prompt_text: str) -> SummaryRequest:
        budget = summary_budget(share_of_reserve, reserve, model)
        return make_summary_request(
            label,
            SUMMARIZER_SYSTEM_PROMPT,
            prompt_text,
            budget,
            model,
            reasoning=reasoning,
            timestamp_ms=now,
        )

    history: SummaryRequest | None = None
    prefix: SummaryRequest | None = None
    split = preparation.is_split_turn and bool(preparation.turn_prefix_messages)
    if preparation.messages_to_summarize or not split:
        previous = preparation.previous_summary
        instructions = UPDATE_SUMMARY_PROMPT if previous else HISTORY_SUMMARY_PROMPT
        text = conversation_prompt(
            _transcript(preparation.messages_to_summarize),
            with_additional_focus(instructions, custom_instructions),
            previous,
        )
        history = request(HISTORY_LABEL, HISTORY_SHARE, text)
    if split:
        text = conversation_prompt(
            _transcript(preparation.turn_prefix_messages), TURN_PREFIX_PROMPT
        )
        prefix = request(TURN_PREFIX_LABEL, TURN_PREFIX_SHARE, text)
    return history, prefix


async def compact(
    preparation: CompactionPreparation,
    summarizer: Summarizer,
    model: SummaryModel,
    *,
    custom_instructions: str | None = None,
    thinking_level: str | None = "off",
) -> CompactionResult:
    """``compact(preparation, …)``: ask for the summary and assemble the result.

    * split turn: the history (summarized first, or ``No prior history.`` when nothing
      precedes the turn — pi-lsp carries the earlier summary instead, see the module
      docstring), the separator, then the turn-prefix summary; usage is the sum of both;
    * otherwise one history summary (an update when there is an earlier summary);
    * then the ``<read-files>`` / ``<modified-files>`` lists.

    Raises :class:`SummaryError` for a refused answer (Pi's messages: failed, hit the token
    cap, called a tool) and :class:`SummaryAborted` for an aborted one.
    """
    history_request, prefix_request = compaction_requests(
        preparation, model, custom_instructions=custom_instructions, thinking_level=thinking_level
    )
    usages: list[Mapping[str, Any] | None] = []
    history_text: str | None = None
    if history_request is not None:
        response = await summarizer.complete(history_request)
        history_text = checked_text(response, HISTORY_LABEL)
        usages.append(response.usage)
    if prefix_request is not None:
        response = await summarizer.complete(prefix_request)
        prefix_text = checked_text(response, TURN_PREFIX_LABEL)
        usages.append(response.usage)
        if history_text is None:
            history_text = (
                _carried_history(preparation)
                if preparation.carry_previous_summary
                else NO_PRIOR_HISTORY
            )
        summary = history_text + SPLIT_TURN_SEPARATOR + prefix_text
    else:
        summary = history_text or ""

    file_ops = preparation.file_ops
    read_files, modified_files = file_ops.read_files, file_ops.modified_files
    summary += format_file_operations(read_files, modified_files)
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=preparation.first_kept_entry_id,
        tokens_before=preparation.tokens_before,
        details={"readFiles": read_files, "modifiedFiles": modified_files},
        usage=add_usage(usages),
    )


def estimated_tokens_after(entries: Sequence[Entry], leaf_id: str) -> int:
    """``estimatedTokensAfter``: the plain estimate of the context rebuilt at ``leaf_id`` (the
    stored compaction entry), summary included."""
    return estimate_messages_tokens(build_session_context(entries, leaf_id).messages)


def compaction_entry(result: CompactionResult, *, from_hook: bool = False) -> dict[str, Any]:
    """The ``compaction`` entry for ``result`` without ``id``/``parentId``/``timestamp`` (the
    storage adds them after ``type``): summary, firstKeptEntryId, tokensBefore, details and
    usage when present, and ``fromHook`` (``false`` for summaries pi-lsp generated)."""
    entry: dict[str, Any] = {
        "type": "compaction",
        "summary": result.summary,
        "firstKeptEntryId": result.first_kept_entry_id,
        "tokensBefore": result.tokens_before,
    }
    if result.details is not None:
        entry["details"] = dict(result.details)
    if result.usage is not None:
        entry["usage"] = dict(result.usage)
    entry["fromHook"] = from_hook
    return entry


# ---------------------------------------------------------------------------------------------
# With hooks


@dataclass(frozen=True, slots=True)
class BeforeCompactEvent:
    """Told to the before-compact hook (Pi's ``session_before_compact``)."""

    preparation: CompactionPreparation
    branch_entries: tuple[Entry, ...]
    custom_instructions: str | None
    reason: CompactionReason
    will_retry: bool


@dataclass(frozen=True, slots=True)
class BeforeCompactDecision:
    """A before-compact hook's answer: cancel, or supply the result (no model call)."""

    cancel: bool = False
    compaction: CompactionResult | None = None


@dataclass(frozen=True, slots=True)
class AfterCompactEvent:
    """Told to the after-compact hook (Pi's ``session_compact``): the stored entry."""

    entry: Mapping[str, Any]
    result: CompactionResult
    from_hook: bool
    reason: CompactionReason
    will_retry: bool


@dataclass(frozen=True, slots=True)
class CompactionOutcome:
    """A finished compaction: the result, the entry as appended, whether a hook wrote it."""

    result: CompactionResult
    entry: Mapping[str, Any]
    from_hook: bool
    preparation: CompactionPreparation = field(repr=False)


BeforeCompactHook = Callable[[BeforeCompactEvent], Awaitable[BeforeCompactDecision | None]]
AfterCompactHook = Callable[[AfterCompactEvent], Awaitable[None]]
AppendEntry = Callable[[dict[str, Any]], Mapping[str, Any]]


class EntryStore(Protocol):
    """What appending needs of a session (``SessionFile`` provides it)."""

    def append_entry(self, entry_type: str, payload: Mapping[str, Any]) -> str: ...

    def get_entry(self, entry_id: str) -> Entry | None: ...


def appender(session: EntryStore) -> AppendEntry:
    """An ``append_entry`` for :func:`run_compaction` that appends to ``session`` at its leaf
    and returns the stored entry (with ``id``, ``parentId`` and ``timestamp``)."""

    def append(fields: dict[str, Any]) -> Mapping[str, Any]:
        payload = {key: value for key, value in fields.items() if key != "type"}
        entry_id = session.append_entry(str(fields["type"]), payload)
        stored = session.get_entry(entry_id)
        return stored if stored is not None else {"id": entry_id, **fields}

    return append


async def run_compaction(
    path_entries: Sequence[Entry],
    settings: CompactionSettings,
    summarizer: Summarizer,
    model: SummaryModel,
    *,
    reason: CompactionReason = "manual",
    will_retry: bool = False,
    custom_instructions: str | None = None,
    thinking_level: str | None = "off",
    append_entry: AppendEntry | None = None,
    before_compact: BeforeCompactHook | None = None,
    after_compact: AfterCompactHook | None = None,
    pi_quirks: bool = False,
) -> CompactionOutcome | None:
    """Prepare, consult the hook, summarize, append the entry, tell the after-hook.

    A manual compaction with nothing to do raises :class:`CompactionRefused`; an automatic
    one returns None. A cancelling hook raises :class:`CompactionCancelled`; a hook that
    supplies a result skips the model and the entry gets ``fromHook: true``. A refused summary
    raises before anything is appended. ``append_entry`` receives the entry fields (see
    :func:`compaction_entry`) and returns the stored entry (with its id); without it the
    fields are the outcome's entry.
    """
    prepared = prepare_compaction_or_reason(path_entries, settings, pi_quirks=pi_quirks)
    if isinstance(prepared, str):
        if reason == "manual":
            raise CompactionRefused(prepared)
        return None
    preparation = prepared

    supplied: CompactionResult | None = None
    if before_compact is not None:
        event = BeforeCompactEvent(
            preparation, tuple(path_entries), custom_instructions, reason, will_retry
        )
        decision = await before_compact(event)
        if decision is not None and decision.cancel:
            raise CompactionCancelled()
        if decision is not None:
            supplied = decision.compaction

    from_hook = supplied is not None
    result = supplied or await compact(
        preparation,
        summarizer,
        model,
        custom_instructions=custom_instructions,
        thinking_level=thinking_level,
    )
    fields = compaction_entry(result, from_hook=from_hook)
    entry: Mapping[str, Any] = append_entry(fields) if append_entry is not None else fields
    if after_compact is not None:
        await after_compact(AfterCompactEvent(entry, result, from_hook, reason, will_retry))
    return CompactionOutcome(result, entry, from_hook, preparation)
