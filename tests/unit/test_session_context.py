"""The active-path projection ``build_session_context`` and ``entry_messages`` (spec §8.6)."""

from __future__ import annotations

import math
from typing import Any

from pi_lsp.session.context import UNSET, SessionContext, build_session_context, entry_messages

Entry = dict[str, Any]


class Chain:
    """Builds a session's entries; each new entry hangs under the previous one unless told."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.second = 0

    def add(self, entry_id: str, kind: str, parent: str | bool | None = True, **extra: Any) -> str:
        if parent is True:
            parent = self.entries[-1]["id"] if self.entries else None
        self.second += 1
        self.entries.append(
            {
                "type": kind,
                "id": entry_id,
                "parentId": parent,
                "timestamp": f"2025-01-01T00:00:{self.second:02d}.000Z",
                **extra,
            }
        )
        return entry_id

    def user(self, entry_id: str, parent: str | bool | None = True) -> str:
        message = {"role": "user", "content": f"u{entry_id}", "timestamp": self.second}
        return self.add(entry_id, "message", parent, message=message)

    def assistant(self, entry_id: str, parent: str | bool | None = True, model: str = "m") -> str:
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": f"a{entry_id}"}],
            "provider": "p",
            "model": model,
            "stopReason": "stop",
            "timestamp": self.second,
        }
        return self.add(entry_id, "message", parent, message=message)

    def compaction(self, entry_id: str, first_kept: str, parent: str | bool | None = True) -> str:
        return self.add(
            entry_id,
            "compaction",
            parent,
            summary=f"summary {entry_id}",
            firstKeptEntryId=first_kept,
            tokensBefore=1000,
        )


def texts(context: SessionContext) -> list[str]:
    """Each message as a short tag: its text, or ``summary …`` for summaries."""
    tags = []
    for message in context.messages:
        role = message["role"]
        if role in ("compactionSummary", "branchSummary"):
            tags.append(message["summary"])
        elif role == "custom":
            tags.append(f"custom:{message['content']}")
        elif isinstance(message["content"], str):
            tags.append(message["content"])
        else:
            tags.append(message["content"][0]["text"])
    return tags


def entry_ids(context: SessionContext) -> list[str]:
    return [entry["id"] for entry in context.entries]


def test_compaction_keeps_from_first_kept_entry() -> None:
    # 1u,2a,3u,4a,C5(first=3),6u,7a → summary, 3, 4, 6, 7
    c = Chain()
    c.user("1"), c.assistant("2"), c.user("3"), c.assistant("4")
    c.compaction("5", first_kept="3")
    c.user("6"), c.assistant("7")
    context = build_session_context(c.entries)
    assert texts(context) == ["summary 5", "u3", "a4", "u6", "a7"]
    assert entry_ids(context) == ["5", "3", "4", "6", "7"]


def test_latest_compaction_wins() -> None:
    # 1u,2a,C3(first=1),4u,5a,C6(first=4),7u → summary(C6), 4, 5, 7
    c = Chain()
    c.user("1"), c.assistant("2")
    c.compaction("3", first_kept="1")
    c.user("4"), c.assistant("5")
    c.compaction("6", first_kept="4")
    c.user("7")
    assert texts(build_session_context(c.entries)) == ["summary 6", "u4", "a5", "u7"]


def test_older_compaction_inside_the_kept_range_is_projected_too() -> None:
    # Pi quirk (case compaction-split-after-compaction): C5 lies in C8's kept range.
    c = Chain()
    c.user("1"), c.assistant("2"), c.user("3"), c.assistant("4")
    c.compaction("5", first_kept="3")
    c.user("6"), c.assistant("7")
    c.compaction("8", first_kept="4")
    c.user("9")
    context = build_session_context(c.entries)
    assert texts(context) == ["summary 8", "a4", "summary 5", "u6", "a7", "u9"]
    assert [m["role"] for m in context.messages][:3] == [
        "compactionSummary",
        "assistant",
        "compactionSummary",
    ]


def test_first_kept_entry_not_found_keeps_nothing_before_the_compaction() -> None:
    c = Chain()
    c.user("1"), c.assistant("2")
    c.compaction("3", first_kept="missing")
    c.user("4")
    assert texts(build_session_context(c.entries)) == ["summary 3", "u4"]


def test_first_kept_after_the_compaction_is_not_searched() -> None:
    c = Chain()
    c.user("1")
    c.compaction("2", first_kept="3")
    c.user("3"), c.assistant("4")
    context = build_session_context(c.entries)
    assert texts(context) == ["summary 2", "u3", "a4"]
    assert entry_ids(context) == ["2", "3", "4"]


def test_context_entries_include_entries_without_messages() -> None:
    # 1u, custom2, 3a, custom4, 5u, C6(first 4), custom7, 8a → entries [6,4,5,7,8]
    c = Chain()
    c.user("1")
    c.add("2", "custom", customType="x")
    c.assistant("3")
    c.add("4", "custom", customType="x")
    c.user("5")
    c.compaction("6", first_kept="4")
    c.add("7", "custom", customType="x")
    c.assistant("8")
    context = build_session_context(c.entries)
    assert entry_ids(context) == ["6", "4", "5", "7", "8"]
    assert [m["role"] for m in context.messages] == ["compactionSummary", "user", "assistant"]


def test_branches_follow_the_leaf() -> None:
    c = Chain()
    c.user("1"), c.assistant("2")
    c.user("3"), c.assistant("4")
    c.user("5", parent="2"), c.assistant("6")
    assert texts(build_session_context(c.entries, "4")) == ["u1", "a2", "u3", "a4"]
    assert texts(build_session_context(c.entries, "6")) == ["u1", "a2", "u5", "a6"]
    assert texts(build_session_context(c.entries, "2")) == ["u1", "a2"]


def test_branch_with_compaction_on_the_other_branch_is_unaffected() -> None:
    c = Chain()
    c.user("1"), c.assistant("2"), c.user("3"), c.assistant("4")
    c.compaction("5", first_kept="3")
    c.user("6", parent="2")
    assert texts(build_session_context(c.entries, "6")) == ["u1", "a2", "u6"]


def test_unknown_or_unset_leaf_means_the_last_entry() -> None:
    c = Chain()
    c.user("1"), c.assistant("2")
    c.user("3", parent="1")
    expected = ["u1", "u3"]
    assert texts(build_session_context(c.entries)) == expected
    assert texts(build_session_context(c.entries, UNSET)) == expected
    assert texts(build_session_context(c.entries, "nope")) == expected
    assert texts(build_session_context(c.entries, "")) == expected


def test_null_leaf_and_no_entries_give_an_empty_context() -> None:
    c = Chain()
    c.add("t", "thinking_level_change", thinkingLevel="high")
    c.user("1")
    for context in (build_session_context(c.entries, None), build_session_context([])):
        assert context == SessionContext([], "off", None, [])


def test_orphan_path_is_cut_at_the_missing_parent() -> None:
    c = Chain()
    c.user("1"), c.assistant("2")
    c.user("3", parent="gone"), c.assistant("4")
    assert texts(build_session_context(c.entries)) == ["u3", "a4"]


def test_thinking_level_and_model_follow_the_whole_path() -> None:
    c = Chain()
    c.add("m", "model_change", provider="prov", modelId="first")
    c.add("t", "thinking_level_change", thinkingLevel="high")
    c.user("1"), c.assistant("2", model="second"), c.user("3"), c.assistant("4", model="third")
    c.compaction("5", first_kept="3")
    c.user("6")
    context = build_session_context(c.entries)
    # set before the compaction and outside its kept range: still honoured
    assert context.thinking_level == "high"
    assert context.model == {"provider": "p", "modelId": "third"}
    c.add("m2", "model_change", provider="prov", modelId="fourth")
    assert build_session_context(c.entries).model == {"provider": "prov", "modelId": "fourth"}
    assert build_session_context(c.entries, "t").model == {"provider": "prov", "modelId": "first"}


def test_thinking_level_on_another_branch_is_ignored() -> None:
    c = Chain()
    c.user("1")
    c.add("t", "thinking_level_change", thinkingLevel="high")
    c.user("2", parent="1")
    context = build_session_context(c.entries)
    assert context.thinking_level == "off" and context.model is None


def test_entry_messages_shapes() -> None:
    stamp = "2025-12-09T00:53:29.825Z"
    base = {"id": "x", "parentId": None, "timestamp": stamp}
    custom = {
        **base,
        "type": "custom_message",
        "customType": "note",
        "content": "hi",
        "display": True,
    }
    assert entry_messages(custom) == [
        {
            "role": "custom",
            "customType": "note",
            "content": "hi",
            "display": True,
            "timestamp": 1765241609825,
        }
    ]
    with_details = entry_messages({**custom, "details": {"k": 1}})[0]
    assert list(with_details) == [
        "role",
        "customType",
        "content",
        "display",
        "details",
        "timestamp",
    ]
    summary = {**base, "type": "branch_summary", "fromId": "old", "summary": "went away"}
    assert entry_messages(summary) == [
        {
            "role": "branchSummary",
            "summary": "went away",
            "fromId": "old",
            "timestamp": 1765241609825,
        }
    ]
    assert entry_messages({**summary, "summary": ""}) == []
    compaction = {
        **base,
        "type": "compaction",
        "summary": "",
        "firstKeptEntryId": "y",
        "tokensBefore": 5,
    }
    assert entry_messages(compaction) == [
        {"role": "compactionSummary", "summary": "", "tokensBefore": 5, "timestamp": 1765241609825}
    ]
    for kind in ("thinking_level_change", "model_change", "custom", "label", "session_info"):
        assert entry_messages({**base, "type": kind}) == []


def test_message_entries_pass_their_message_through() -> None:
    message = {"role": "user", "content": "hi", "timestamp": 7}
    entry = {"type": "message", "id": "x", "parentId": None, "timestamp": "x", "message": message}
    assert entry_messages(entry)[0] is message
    null_content = {**message, "content": None}
    converted = entry_messages({**entry, "message": null_content})
    assert converted == [{"role": "user", "content": [], "timestamp": 7}]
    assert null_content["content"] is None
    assert entry_messages({**entry, "message": None}) == []


def test_unparsable_entry_timestamp_gives_nan() -> None:
    entry = {"type": "compaction", "id": "x", "timestamp": "{ISO}", "summary": "s"}
    assert math.isnan(entry_messages(entry)[0]["timestamp"])


def test_by_id_index_can_be_passed_in() -> None:
    c = Chain()
    c.user("1"), c.assistant("2")
    by_id = {e["id"]: e for e in c.entries}
    assert texts(build_session_context(c.entries, "2", by_id=by_id)) == ["u1", "a2"]


def test_long_path_projects_in_linear_time() -> None:
    c = Chain()
    for i in range(0, 100_000, 2):
        c.user(str(i))
        c.assistant(str(i + 1))
    c.compaction("C", first_kept="50000")
    context = build_session_context(c.entries)
    assert len(context.messages) == 1 + 50_000
