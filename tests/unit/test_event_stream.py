"""The numbered, coalescing event stream: order, completeness, numbering, merging."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from pi_lsp.server.event_stream import EventStream, StreamClosed


class FakeTime:
    """A clock the test moves by hand, and timers that fire when it passes them."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: list[FakeTimer] = []

    def clock(self) -> float:
        return self.now

    def schedule(self, delay: float, callback: Callable[[], None]) -> FakeTimer:
        timer = FakeTimer(self.now + delay, callback)
        self.timers.append(timer)
        return timer

    def advance(self, seconds: float) -> None:
        self.now += seconds
        for timer in list(self.timers):
            if timer.when <= self.now and not timer.cancelled:
                self.timers.remove(timer)
                timer.callback()

    @property
    def pending(self) -> int:
        return sum(not t.cancelled for t in self.timers)


class FakeTimer:
    def __init__(self, when: float, callback: Callable[[], None]) -> None:
        self.when = when
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


def make(
    interval: float = 0.075, **kwargs: Any
) -> tuple[EventStream, list[dict[str, Any]], FakeTime]:
    sent: list[dict[str, Any]] = []
    time = FakeTime()
    stream = EventStream(
        sent.append,
        {"stream": "s1"},
        interval=interval,
        clock=time.clock,
        schedule=time.schedule,
        **kwargs,
    )
    return stream, sent, time


def check_numbered(sent: list[dict[str, Any]], header: dict[str, Any]) -> None:
    assert [e["seq"] for e in sent] == list(range(1, len(sent) + 1))
    assert all(e.items() >= header.items() for e in sent)


def test_the_first_piece_goes_out_at_once_and_the_next_ones_wait_for_the_interval() -> None:
    stream, sent, time = make()
    stream.emit_text("output", "a")
    assert sent == [{"stream": "s1", "seq": 1, "type": "output", "text": "a"}]
    stream.emit_text("output", "b")
    stream.emit_text("output", "c")
    assert len(sent) == 1 and time.pending == 1
    time.advance(0.05)
    assert len(sent) == 1
    time.advance(0.03)
    assert sent[-1] == {"stream": "s1", "seq": 2, "type": "output", "text": "bc"}
    assert time.pending == 0


def test_a_piece_after_a_quiet_spell_goes_out_at_once() -> None:
    stream, sent, time = make()
    stream.emit_text("output", "a")
    time.advance(1.0)
    stream.emit_text("output", "b")
    assert [e["text"] for e in sent] == ["a", "b"]
    assert time.pending == 0


def test_many_rapid_pieces_become_few_events_with_all_the_text_in_order() -> None:
    stream, sent, time = make()
    pieces = [f"line {i}\n" for i in range(10_000)]
    for i, piece in enumerate(pieces):
        stream.emit_text("output", piece)
        if i % 100 == 0:
            time.advance(0.01)  # 100 pieces every 10 ms: one event per 75 ms at most
    stream.emit({"type": "end"})
    check_numbered(sent, {"stream": "s1"})
    texts = [e["text"] for e in sent[:-1]]
    assert "".join(texts) == "".join(pieces)
    assert len(texts) < len(pieces) / 50
    assert sent[-1]["type"] == "end"


def test_another_event_sends_the_held_text_first() -> None:
    stream, sent, _ = make()
    stream.emit({"type": "start", "tool": "bash"})
    stream.emit_text("output", "a")
    stream.emit_text("output", "b")
    stream.emit({"type": "end", "isError": False})
    assert [(e["seq"], e["type"], e.get("text")) for e in sent] == [
        (1, "start", None),
        (2, "output", "a"),
        (3, "output", "b"),
        (4, "end", None),
    ]


def test_pieces_of_another_kind_or_fields_are_not_merged() -> None:
    stream, sent, _ = make()
    stream.emit_text("output", "0")  # goes out at once; the rest is held
    stream.emit_text("text_delta", "a", part=1)
    stream.emit_text("text_delta", "b", part=1)
    stream.emit_text("text_delta", "c", part=2)
    stream.emit_text("output", "d")
    stream.emit_text("output", "e")
    stream.close()
    assert [(e["type"], e.get("part"), e["text"]) for e in sent] == [
        ("output", None, "0"),
        ("text_delta", 1, "ab"),
        ("text_delta", 2, "c"),
        ("output", None, "de"),
    ]
    check_numbered(sent, {"stream": "s1"})


def test_close_flushes_and_stops_the_timer() -> None:
    stream, sent, time = make()
    stream.emit_text("output", "a")
    stream.emit_text("output", "b")
    assert stream.has_pending
    stream.close()
    assert [e["text"] for e in sent] == ["a", "b"]
    assert time.pending == 0 and stream.closed and not stream.has_pending
    stream.close()  # twice is fine
    with pytest.raises(StreamClosed):
        stream.emit_text("output", "late")
    with pytest.raises(StreamClosed):
        stream.emit({"type": "end"})
    time.advance(1)
    assert len(sent) == 2


def test_held_text_past_the_limit_goes_out_without_waiting() -> None:
    stream, sent, time = make(max_pending=10)
    stream.emit_text("output", "x")
    stream.emit_text("output", "12345")
    assert len(sent) == 1
    stream.emit_text("output", "67890")
    assert [e["text"] for e in sent] == ["x", "1234567890"]
    assert time.pending == 0


def test_empty_text_sends_nothing_and_numbers_stay_contiguous() -> None:
    stream, sent, _ = make()
    stream.emit_text("output", "")
    stream.emit({"type": "start"})
    stream.emit_text("output", "")
    stream.emit({"type": "end"})
    assert [(e["seq"], e["type"]) for e in sent] == [(1, "start"), (2, "end")]
    assert stream.seq == 2


def test_the_header_is_on_every_event_and_cannot_be_overridden() -> None:
    sent: list[dict[str, Any]] = []
    stream = EventStream(sent.append, {"session": "abc", "turn": 3}, interval=0)
    stream.emit({"type": "turn_start"})
    stream.emit_text("text_delta", "hi")
    check_numbered(sent, {"session": "abc", "turn": 3})
    with pytest.raises(ValueError):
        stream.emit({"type": "x", "seq": 9})
    with pytest.raises(ValueError):
        stream.emit_text("output", "x", turn=4)
    with pytest.raises(ValueError):
        stream.emit_text("output", "x", text="y")
    assert len(sent) == 2


def test_zero_interval_sends_every_piece() -> None:
    stream, sent, _ = make(interval=0)
    for piece in "abc":
        stream.emit_text("output", piece)
    assert [e["text"] for e in sent] == ["a", "b", "c"]


def test_a_failing_send_from_the_timer_is_logged_and_the_stream_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    sent: list[dict[str, Any]] = []
    failures = [True]

    def send(event: dict[str, Any]) -> None:
        if failures and event.get("text") == "b":
            failures.pop()
            raise OSError("pipe closed")
        sent.append(event)

    time = FakeTime()
    stream = EventStream(send, {"stream": 1}, clock=time.clock, schedule=time.schedule)
    stream.emit_text("output", "a")
    stream.emit_text("output", "b")
    time.advance(1)
    stream.emit_text("output", "c")
    stream.close()
    assert [e["text"] for e in sent] == ["a", "c"]
    assert "sending events of stream" in caplog.text


async def test_the_real_loop_timer_flushes_without_close() -> None:
    sent: list[dict[str, Any]] = []
    stream = EventStream(sent.append, {"stream": "real"}, interval=0.01)
    for i in range(1000):
        stream.emit_text("output", f"{i},")
    # Only the first piece has gone out; the loop's timer sends the rest soon.
    assert len(sent) == 1
    for _ in range(500):
        if not stream.has_pending:
            break
        await asyncio.sleep(0.01)
    assert not stream.has_pending
    assert "".join(e["text"] for e in sent) == "".join(f"{i}," for i in range(1000))
    assert len(sent) == 2
    stream.close()


async def test_real_loop_pieces_spread_over_time_stay_complete_and_ordered() -> None:
    sent: list[dict[str, Any]] = []
    stream = EventStream(sent.append, {"stream": "real"}, interval=0.02)
    stream.emit({"type": "start"})
    expected = []
    for burst in range(10):
        for i in range(50):
            piece = f"{burst}.{i}\n"
            expected.append(piece)
            stream.emit_text("output", piece)
        await asyncio.sleep(0.005)
    stream.emit({"type": "end"})
    stream.close()
    check_numbered(sent, {"stream": "real"})
    assert [sent[0]["type"], sent[-1]["type"]] == ["start", "end"]
    assert "".join(e["text"] for e in sent[1:-1]) == "".join(expected)
    assert len(sent) - 2 < len(expected)
