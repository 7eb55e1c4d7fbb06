"""The fast paths of session loading and projection give what the plain ways give.

Each fast path is checked against a straightforward reference on many small random inputs:
the line-by-line parse against decoding the whole file first, the shared JSON decoder against
``json.loads``, the index-walking branch and the backward context walk against the forward
ones, the C-encoder ``JSON.stringify`` length against :func:`json_stringify`.
"""

from __future__ import annotations

import gc
import json
import random
from typing import Any

import pytest

from pi_lsp.js.json import JsonParseError, json_stringify, parse_json
from pi_lsp.js.text import JS_WHITESPACE, js_trim, utf16_len
from pi_lsp.resources.agent_dir import decode_text
from pi_lsp.session.context import UNSET, _forward, build_session_context
from pi_lsp.session.entry_store import IndexedEntries
from pi_lsp.session.errors import NotASessionError
from pi_lsp.session.lines import ParsedLines, gc_paused, parse_session_bytes
from pi_lsp.session.session_file import SessionFile
from pi_lsp.session.tokens import _stringified_length
from pi_lsp.session.tree import branch, index_entries

# ---------------------------------------------------------------------------------------------
# parse_json


def _reject(name: str) -> Any:
    raise JsonParseError(f"{name} is not valid JSON")


def _reference_parse(text: str) -> tuple[str, Any]:
    try:
        return "ok", json.loads(text, parse_constant=_reject)
    except (ValueError, RecursionError) as error:
        return "error", str(error)


@pytest.mark.parametrize(
    "text",
    [
        "{}",
        ' {"a": 1} ',
        '{"a":1}\r',
        "\ufeff{}",
        '{"a":NaN}',
        "-Infinity",
        "[1,2",
        '{"a":1} x',
        "",
        "  ",
        '"\\ud800"',
        "[" * 50_000,
        "1e400",
        '{"a":1}{',
    ],
)
def test_parse_json_matches_json_loads_with_its_messages(text: str) -> None:
    try:
        got: tuple[str, Any] = "ok", parse_json(text)
    except JsonParseError as error:
        got = "error", str(error)
    assert repr(got) == repr(_reference_parse(text))


# ---------------------------------------------------------------------------------------------
# Lines


def _reference_lines(path: str, data: bytes) -> ParsedLines:
    """The whole-text parse the line-by-line one replaced (decode, split, parse)."""
    from pi_lsp.session.lines import _preview, _warning

    result = ParsedLines(path, ends_with_newline=not data or data.endswith(b"\n"))
    text, _had_bom, first_bad = decode_text(data)
    lines = text.split("\n")
    nonblank = [i for i, line in enumerate(lines) if js_trim(line)]
    if not nonblank:
        return result
    first, last = nonblank[0], nonblank[-1]
    if first_bad is not None:
        bad = text.count("\n", 0, first_bad)
        message = f"line {bad + 1} is not valid UTF-8; the bad bytes are read as U+FFFD"
        result.findings.append(_warning(path, bad, "session-invalid-utf8", message))
    for index in nonblank:
        line = lines[index]
        if index == first:
            line = line.lstrip(JS_WHITESPACE)
        if index == last:
            line = line.rstrip(JS_WHITESPACE)
        try:
            value = json.loads(line, parse_constant=_reject)
        except (ValueError, RecursionError) as error:
            if index == len(lines) - 1 and not result.ends_with_newline:
                result.torn_last_line = True
                rule = "session-torn-last-line"
                message = (
                    f"line {index + 1} is incomplete (the file ends without a newline and the "
                    "line is not valid JSON, as after a crash during a write); it is skipped"
                )
            else:
                rule = "session-line-not-json"
                message = (
                    f"line {index + 1} is not valid JSON and is skipped ({error}): {_preview(line)}"
                )
            result.findings.append(_warning(path, index, rule, message))
            continue
        if not isinstance(value, dict):
            message = f"line {index + 1} is JSON but not an object and is skipped: {_preview(line)}"
            result.findings.append(_warning(path, index, "session-line-not-object", message))
            continue
        result.records.append(value)
        result.lines.append(index)
    return result


_PIECES = [
    b'{"type":"session","id":"a"}',
    b'{"id":"b"}',
    b"\xef\xbb\xbf",
    b" ",
    b"\t",
    b"\r",
    b"\xc2\xa0",
    b"\xe2\x80\xa8",
    b"\xff",
    b"\xe2\x82",
    b"[1]",
    b'{"a":NaN}',
    b'{"x":"\xc3\xa9"}',
    b"{",
    b"}",
    b"\n",
    b"\n",
    b"\n",
    b"1",
    b'\xef\xbb\xbf{"q":1}',
]


def test_line_by_line_parse_matches_the_whole_text_parse() -> None:
    rng = random.Random(1)
    for _ in range(5000):
        data = b"".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 8)))
        got, want = parse_session_bytes("p", data), _reference_lines("p", data)
        assert (got.records, got.lines, got.ends_with_newline, got.torn_last_line) == (
            want.records,
            want.lines,
            want.ends_with_newline,
            want.torn_last_line,
        ), data
        assert [repr(f) for f in got.findings] == [repr(f) for f in want.findings], data


def test_gc_is_back_on_after_a_load_even_a_failed_one(tmp_path: Any) -> None:
    assert gc.isenabled()
    good = tmp_path / "good.jsonl"
    good.write_bytes(b'{"type":"session","version":3,"id":"s","cwd":"/"}\n')
    SessionFile.read(good)
    assert gc.isenabled()
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"type":"message","id":"x"}\n')
    with pytest.raises(NotASessionError):
        SessionFile.read(bad)
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_gc_paused_leaves_a_disabled_gc_disabled() -> None:
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


# ---------------------------------------------------------------------------------------------
# Branch and context


_KINDS = [
    "message",
    "message",
    "compaction",
    "thinking_level_change",
    "model_change",
    "label",
    "branch_summary",
]


def _random_entries(rng: random.Random) -> tuple[list[dict[str, Any]], list[str | None]]:
    """Small trees with repeated ids, missing and self parents, cycles, every entry kind."""
    n = rng.randint(0, 14)
    ids = [f"e{rng.randint(0, n + 2)}" if rng.random() < 0.9 else None for _ in range(n)]
    entries: list[dict[str, Any]] = []
    for i in range(n):
        kind = rng.choice(_KINDS)
        item: dict[str, Any] = {"type": kind}
        if ids[i] is not None:
            item["id"] = ids[i]
        r = rng.random()
        if i and r < 0.6:
            item["parentId"] = ids[i - 1]
        elif r < 0.95:
            item["parentId"] = rng.choice([*ids, None, "zz"])
        else:
            item["parentId"] = ids[i]
        if kind == "message":
            role = rng.choice(["user", "assistant"])
            item["message"] = {"role": role, "provider": f"p{i}", "model": "m", "content": f"x{i}"}
        elif kind == "compaction":
            first_kept = rng.choice([*ids, None, "zz"])
            item.update(summary=f"s{i}", firstKeptEntryId=first_kept, tokensBefore=i)
        elif kind == "thinking_level_change":
            item["thinkingLevel"] = rng.choice(["low", "high", None])
        elif kind == "model_change":
            item.update(provider=f"pp{i}", modelId="mm")
        elif kind == "branch_summary":
            item.update(summary="b", fromId="x")
        entries.append(item)
    return entries, ids


def _same_context(a: Any, b: Any) -> bool:
    return (a.messages, a.thinking_level, a.model, [id(e) for e in a.entries]) == (
        b.messages,
        b.thinking_level,
        b.model,
        [id(e) for e in b.entries],
    )


def test_backward_context_walk_matches_the_forward_pass() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        entries, ids = _random_entries(rng)
        indexed = IndexedEntries(entries)
        index = index_entries(entries)
        for leaf in [UNSET, "", "zz", *[i for i in ids if i]]:
            target = index.get(leaf) if isinstance(leaf, str) and leaf else None
            if target is None:
                if not entries:
                    continue
                target = entries[-1]
            want = _forward(index, target, target.get("id"))
            assert _same_context(build_session_context(entries, leaf), want), (entries, leaf)
            assert _same_context(build_session_context(indexed, leaf), want), (entries, leaf)
            got = build_session_context(entries, leaf, by_id=index)
            assert _same_context(got, want), (entries, leaf)


def test_indexed_branch_matches_branch_also_while_entries_are_added() -> None:
    rng = random.Random(11)
    for _ in range(3000):
        entries, ids = _random_entries(rng)
        half = len(entries) // 2
        indexed = IndexedEntries(entries[:half])
        indexed.branch("e1")  # links built before the additions
        for count in range(half, len(entries)):
            indexed.add(entries[count])
            index = index_entries(entries[: count + 1])
            assert indexed.by_id == index
            for leaf in {i for i in ids if i}:
                got = [id(e) for e in indexed.branch(leaf)]
                assert got == [id(e) for e in branch(index, leaf)], (entries, leaf)


# ---------------------------------------------------------------------------------------------
# JSON.stringify length


_ATOMS: list[Any] = [
    None,
    True,
    False,
    0,
    -5,
    10**20,
    10**21,
    -(10**21),
    1.5,
    1.0,
    'a"b',
    "\ud800",
    "é\n\t\x01",
    "😀",
    "",
    2**53 + 1,
    float("nan"),
]
_KEYS: list[Any] = ["a", "0", "1", "10", "01", "b c", "\udc00", "é", "-1", "4294967295", "²", 3]


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    r = rng.random()
    if depth > 3 or r < 0.4:
        return rng.choice(_ATOMS)
    if r < 0.7:
        return {rng.choice(_KEYS): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    if r < 0.85:
        return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return tuple(_random_value(rng, depth + 1) for _ in range(2))


def test_stringified_length_is_json_stringify_length() -> None:
    rng = random.Random(5)
    for _ in range(5000):
        value = _random_value(rng)
        assert _stringified_length(value) == utf16_len(json_stringify(value)), repr(value)
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    assert _stringified_length(deep) == utf16_len(json_stringify(deep))
