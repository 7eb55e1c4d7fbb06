"""Truncation as Pi 0.85.0 does it: spec §1.3–§1.8 and the unit cases of §14.2."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.tools.truncation import (
    format_size,
    truncate_head,
    truncate_line,
    truncate_tail,
    utf8_len,
)

# (input, options, head expectation, tail expectation); an expectation lists the fields to check.
EDGE_CASES = [
    ("", {}, {"content": "", "truncated": False, "total_lines": 0, "output_lines": 0}, None),
    ("a\nb\n", {"max_lines": 2}, {"content": "a\nb\n", "truncated": False, "total_lines": 2}, None),
    ("a\nb\n", {"max_lines": 1}, {"content": "a", "truncated_by": "lines"}, {"content": "b"}),
    ("a\nb\nc", {"max_lines": 2}, {"content": "a\nb"}, {"content": "b\nc"}),
    (
        "ZZZZZZZZZZ\n",
        {"max_bytes": 4},
        {"content": "", "first_line_exceeds_limit": True, "truncated_by": "bytes"},
        {"content": "ZZZZ", "last_line_partial": True, "output_lines": 1, "output_bytes": 4},
    ),
    (
        "éé\nabc",
        {"max_bytes": 4},
        {"content": "éé", "truncated_by": "bytes", "output_bytes": 4},
        {"content": "abc", "output_bytes": 3},
    ),
    (
        "éé\nabc",
        {"max_bytes": 3},
        {"content": "", "first_line_exceeds_limit": True},
        {"content": "abc"},
    ),
    (
        "aé🙂b",
        {"max_bytes": 5},
        {"content": "", "first_line_exceeds_limit": True},
        {"content": "🙂b", "last_line_partial": True, "output_bytes": 5},
    ),
    (
        "abc🙂",
        {"max_bytes": 3},
        {"content": "", "first_line_exceeds_limit": True},
        {"content": "", "last_line_partial": True, "output_lines": 1, "output_bytes": 0},
    ),
    ("a\r\nb\r\n", {"max_lines": 1}, {"content": "a\r"}, {"content": "b\r"}),
    (
        "line1\nline2\nline3",
        {"max_bytes": 11},
        {"content": "line1\nline2", "output_bytes": 11},
        {"content": "line2\nline3"},
    ),
    ("\n", {"max_lines": 0}, {"content": "", "truncated_by": "lines", "total_lines": 1}, None),
    (
        "X" * 300000 + "\n",
        {"max_bytes": 1024, "max_lines": 100},
        None,
        {
            "content": "X" * 1024,
            "output_bytes": 1024,
            "output_lines": 1,
            "last_line_partial": True,
            "truncated_by": "bytes",
        },
    ),
]


@pytest.mark.parametrize(("text", "opts", "head", "tail"), EDGE_CASES)
def test_edge_table(text: str, opts: dict[str, int], head: dict | None, tail: dict | None) -> None:
    # "same" in the spec's table: the tail shares the head's expectation where it gives none.
    for fn, expected in (
        (truncate_head, head),
        (truncate_tail, tail if tail is not None else head),
    ):
        if expected is None:
            continue
        result = fn(text, **opts)
        for field, value in expected.items():
            assert getattr(result, field) == value, (fn.__name__, field)


def test_head_small_multibyte_is_untouched() -> None:
    result = truncate_head("aé🙂\nb", max_bytes=100)
    assert not result.truncated
    assert result.total_bytes == 9


def test_trailing_newline_does_not_open_a_line() -> None:
    result = truncate_head("line\nline\nline\n", max_lines=3)
    assert not result.truncated
    assert result.total_lines == 3


def test_truncated_by_is_null_exactly_when_not_truncated() -> None:
    assert truncate_tail("abc").truncated_by is None
    assert truncate_tail("a\nb\nc", max_lines=1).truncated_by == "lines"


def test_result_json_has_pi_field_names() -> None:
    data = truncate_tail("a\nb\nc", max_lines=1).to_json()
    assert list(data) == [
        "content",
        "truncated",
        "truncatedBy",
        "totalLines",
        "totalBytes",
        "outputLines",
        "outputBytes",
        "lastLinePartial",
        "firstLineExceedsLimit",
        "maxLines",
        "maxBytes",
    ]


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0B"),
        (1023, "1023B"),
        (1024, "1.0KB"),
        (51200, "50.0KB"),
        (94515, "92.3KB"),
        (90001, "87.9KB"),
        (60000, "58.6KB"),
        (102400, "100.0KB"),
        (1048576, "1.0MB"),
        (1048576 * 3 // 2, "1.5MB"),
    ],
)
def test_format_size(size: int, text: str) -> None:
    assert format_size(size) == text


def test_truncate_line() -> None:
    assert truncate_line("x" * 500) == ("x" * 500, False)
    cut, was_cut = truncate_line("x" * 501)
    assert was_cut
    assert cut == "x" * 500 + "... [truncated]"


def test_truncate_line_counts_utf16_units() -> None:
    # 250 emoji are 500 UTF-16 units: not cut; one more and the 500-unit cut lands on a boundary.
    assert truncate_line("🙂" * 250) == ("🙂" * 250, False)
    cut, _ = truncate_line("🙂" * 251)
    assert cut == "🙂" * 250 + "... [truncated]"
    # An odd cut splits a surrogate pair: the orphan half reaches the model as U+FFFD.
    cut, _ = truncate_line("a" + "🙂" * 300)
    assert cut == "a" + "🙂" * 249 + "\ufffd... [truncated]"


def _reference_tail_suffix(text: str, max_bytes: int) -> str:
    data = text.encode("utf-8", "surrogatepass")
    start = max(0, len(data) - max_bytes)
    while start < len(data) and data[start] & 0xC0 == 0x80:
        start += 1
    return data[start:].decode("utf-8", "surrogatepass")


_texts = st.text(
    alphabet=st.sampled_from(["a", "b", "\n", "\r", "é", "中", "🙂", " ", "\x00"]), max_size=300
)


@settings(max_examples=300, deadline=None)
@given(text=_texts, max_lines=st.integers(0, 40), max_bytes=st.integers(0, 200))
def test_tail_is_a_suffix_within_both_limits(text: str, max_lines: int, max_bytes: int) -> None:
    result = truncate_tail(text, max_lines=max_lines, max_bytes=max_bytes)
    if not result.truncated:
        assert result.content == text
        return
    content = result.content
    assert utf8_len(content) == result.output_bytes <= max_bytes
    assert result.output_lines <= max_lines
    body = text[:-1] if text.endswith("\n") else text
    assert body.endswith(content)
    if result.last_line_partial:
        # only a cut inside the last line is partial, and it is the UTF-8-safe suffix
        assert "\n" not in content
        last_line = body.split("\n")[-1]
        assert content == _reference_tail_suffix(last_line, max_bytes)
    elif content:
        # whole lines only: what precedes the kept text ends a line
        prefix = body[: len(body) - len(content)]
        assert prefix == "" or prefix.endswith("\n")
        assert len(content.split("\n")) == result.output_lines


@settings(max_examples=300, deadline=None)
@given(text=_texts, max_lines=st.integers(0, 40), max_bytes=st.integers(0, 200))
def test_head_is_a_prefix_of_whole_lines(text: str, max_lines: int, max_bytes: int) -> None:
    result = truncate_head(text, max_lines=max_lines, max_bytes=max_bytes)
    if not result.truncated:
        assert result.content == text
        return
    content = result.content
    assert utf8_len(content) == result.output_bytes <= max_bytes
    assert result.output_lines <= max_lines
    if result.first_line_exceeds_limit:
        assert content == ""
        assert utf8_len(text.split("\n")[0]) > max_bytes
        return
    assert text.startswith(content)
    if result.output_lines == 0:
        assert content == ""
        return
    rest = text[len(content) :]
    assert rest == "" or rest.startswith("\n")
    assert len(content.split("\n")) == result.output_lines


@settings(max_examples=200, deadline=None)
@given(text=_texts, max_bytes=st.integers(0, 200))
def test_tail_with_ten_lines_matches_the_byte_suffix_rule(text: str, max_bytes: int) -> None:
    # spec §14.2: for a single line, the tail is "encode, last b bytes, skip continuation bytes".
    line = text.replace("\n", "")
    result = truncate_tail(line, max_lines=10, max_bytes=max_bytes)
    assert result.content == _reference_tail_suffix(line, max_bytes)
