"""The bash output accumulator: fixed memory, exact counters, the same view as one big cut."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.tools.output_accumulator import OutputAccumulator
from pi_lsp.tools.truncation import (
    complete_utf8_prefix_len,
    is_valid_utf8,
    truncate_tail,
    utf8_len,
)


def _feed(
    data: bytes, cuts: list[int], tmp: Path, want_text: bool = True, **limits: int
) -> OutputAccumulator:
    acc = OutputAccumulator(spill_prefix="pi-bash", temp_dir=str(tmp), **limits)
    positions = sorted({c % (len(data) + 1) for c in cuts} | {0, len(data)})
    for start, end in itertools.pairwise(positions):
        acc.append(data[start:end], want_text=want_text)
    acc.finish()
    return acc


_pieces = st.sampled_from(
    [
        b"a",
        b"bc",
        b"\n",
        b"\r\n",
        "é".encode(),
        "中".encode(),
        "🙂".encode(),
        b"\xff",
        b"\xe4\xb8",
        b"\x80",
        b"\x00",
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(_pieces, max_size=400),
    cuts=st.lists(st.integers(0, 5000), max_size=30),
    max_lines=st.integers(1, 30),
    max_bytes=st.integers(1, 120),
    want_text=st.booleans(),
)
def test_chunked_stream_gives_the_cut_of_the_whole(
    tmp_path_factory: pytest.TempPathFactory,
    parts: list[bytes],
    cuts: list[int],
    max_lines: int,
    max_bytes: int,
    want_text: bool,
) -> None:
    tmp = tmp_path_factory.mktemp("spill")
    data = b"".join(parts)
    acc = _feed(data, cuts, tmp, want_text, max_lines=max_lines, max_bytes=max_bytes)
    snapshot = acc.snapshot(persist_if_truncated=True)
    acc.close()
    whole = data.decode("utf-8", "replace")
    reference = truncate_tail(whole, max_lines=max_lines, max_bytes=max_bytes)
    cut = snapshot.truncation

    if cut.content != reference.content:
        # Pi cuts the in-memory tail, not the whole: when what is left after dropping a
        # partial first line fits the limits, Pi keeps it as is, final newline included.
        assert cut.content == reference.content + "\n"
        assert whole.endswith("\n")
    assert cut.truncated == reference.truncated
    assert cut.total_lines == reference.total_lines
    assert cut.total_bytes == reference.total_bytes == utf8_len(whole)
    assert cut.output_lines == reference.output_lines
    assert cut.last_line_partial == reference.last_line_partial
    assert utf8_len(cut.content) <= max_bytes or not cut.truncated
    # the last line's real size, newline or not
    body = whole[:-1] if whole.endswith("\n") else whole
    assert snapshot.last_line_bytes == utf8_len(body.split("\n")[-1])
    # every raw byte is in the spill file once the output was cut
    if cut.truncated:
        assert snapshot.full_output_path is not None
        assert Path(snapshot.full_output_path).read_bytes() == data
    # memory: the rolling tail never holds more than four times the byte budget (+ one chunk)
    assert len(acc._tail) <= 4 * max_bytes + len(data)


def test_memory_stays_bounded_on_a_long_stream(tmp_path: Path) -> None:
    acc = OutputAccumulator(spill_prefix="pi-bash", temp_dir=str(tmp_path))
    line = ("x" * 99 + "\n").encode()
    chunk = line * 655  # ~64 KiB
    for _ in range(300):  # ~20 MB
        acc.append(chunk)
        assert len(acc._tail) <= 2 * acc.max_rolling_bytes + len(chunk)
        assert not acc._held_chunks or acc.full_output_path is None
    acc.finish()
    snap = acc.snapshot(True)
    acc.close()
    assert snap.truncation.total_lines == 655 * 300
    assert snap.truncation.output_lines == 512  # 512 lines of 100 bytes fit in 51,200
    assert os.path.getsize(snap.full_output_path or "") == len(chunk) * 300


def test_small_output_makes_no_file(tmp_path: Path) -> None:
    acc = _feed(b"hello\n", [], tmp_path)
    snap = acc.snapshot(True)
    assert snap.full_output_path is None
    assert snap.truncation.content == "hello\n"
    assert list(tmp_path.iterdir()) == []


def test_line_limit_alone_opens_the_file(tmp_path: Path) -> None:
    data = b"".join(b"%d\n" % i for i in range(2001))
    acc = _feed(data, [], tmp_path)
    snap = acc.snapshot(True)
    assert snap.truncation.truncated_by == "lines"
    assert Path(snap.full_output_path or "").read_bytes() == data


def test_invalid_utf8_counts_replacement_characters(tmp_path: Path) -> None:
    acc = _feed(b"\xff\xfeok\n", [1], tmp_path)
    snap = acc.snapshot()
    assert snap.truncation.content == "\ufffd\ufffdok\n"
    assert snap.truncation.total_bytes == 9  # two U+FFFD of three bytes, "ok", newline


def test_character_split_across_chunks_decodes_once(tmp_path: Path) -> None:
    data = "中🙂".encode()
    acc = OutputAccumulator(temp_dir=str(tmp_path))
    texts = [acc.append(data[i : i + 1]) for i in range(len(data))]
    texts.append(acc.finish())
    assert "".join(texts) == "中🙂"
    assert acc.snapshot().truncation.content == "中🙂"


def test_unfinished_character_at_the_end_becomes_a_replacement(tmp_path: Path) -> None:
    acc = _feed(b"ab\xe4\xb8", [], tmp_path)
    assert acc.snapshot().truncation.content == "ab\ufffd"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"plain ascii" * 5000,
        ("mixed é 中 🙂 text\n" * 3000).encode(),
        ("🙂" * 20000).encode(),
        ("🙂" * 20000).encode()[:-1],
        ("é" * 20000).encode() + b"\xff",
        b"\x80" + ("é" * 20000).encode(),
        ("中" * 8000).encode()[1:],
    ],
)
def test_validation_in_slices_agrees_with_a_strict_decode(data: bytes) -> None:
    try:
        data.decode("utf-8")
        expected = True
    except UnicodeDecodeError:
        expected = False
    assert is_valid_utf8(data) is expected


def test_complete_prefix_holds_back_only_an_unfinished_character() -> None:
    assert complete_utf8_prefix_len(b"ab") == 2
    assert complete_utf8_prefix_len(b"a\xe4\xb8") == 1
    assert complete_utf8_prefix_len("中".encode()) == 3
    assert complete_utf8_prefix_len(b"a\xf0\x9f\x99") == 1
    assert complete_utf8_prefix_len(b"a\x80\x80\x80\x80") == 5  # stray continuation bytes
    assert complete_utf8_prefix_len(b"a\xff") == 2
