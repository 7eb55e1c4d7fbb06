"""Numbered event streams with coalesced text, for notifications that follow a long request.

An :class:`EventStream` stamps every event it sends with the stream's header (``{"stream": id}``
for a tool run, ``{"session": …, "turn": …}`` for an agent turn) and a sequence number that
starts at 1 and goes up by one per event, so a client can tell that it has seen all of them.

Text that arrives in many small pieces (tool output, model text deltas) is merged: the first
piece after a quiet spell goes out at once, later ones are held and sent together at most once
per interval. Pieces are never reordered or dropped: any other event, a piece of another kind,
and :meth:`EventStream.close` send the held text first.

The module knows nothing of LSP: the caller injects ``send`` (one call per event).
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol

log = logging.getLogger(__name__)

#: Seconds between two coalesced text events (the design asks for 50–150 ms).
DEFAULT_INTERVAL = 0.075
#: Held text this long (in characters) goes out without waiting for the timer.
DEFAULT_MAX_PENDING = 256 * 1024

Event = dict[str, Any]


class Cancellable(Protocol):
    def cancel(self) -> None: ...


#: ``schedule(delay, callback)``: run ``callback`` after ``delay`` seconds (``loop.call_later``).
Scheduler = Callable[[float, Callable[[], None]], Cancellable]


class StreamClosed(RuntimeError):
    """An event was emitted on a stream that is already closed."""


def _loop_scheduler(delay: float, callback: Callable[[], None]) -> Cancellable:
    return asyncio.get_running_loop().call_later(delay, callback)


class EventStream:
    """Send numbered events through ``send``, merging text pieces that come in quick succession.

    ``header`` is copied into every event ahead of ``seq`` and the event's own fields; an event
    may not use those keys itself. ``clock`` defaults to ``time.monotonic`` and ``schedule`` to
    the running loop's ``call_later`` (only needed when text has to wait); tests may pass fakes.
    """

    def __init__(
        self,
        send: Callable[[Event], None],
        header: Mapping[str, Any],
        *,
        interval: float = DEFAULT_INTERVAL,
        max_pending: int = DEFAULT_MAX_PENDING,
        clock: Callable[[], float] | None = None,
        schedule: Scheduler | None = None,
    ) -> None:
        if interval < 0:
            raise ValueError("interval must not be negative")
        self._send = send
        self._header = dict(header)
        self._reserved = {*self._header, "seq"}
        self.interval = interval
        self.max_pending = max_pending
        self._clock = clock or time.monotonic
        self._schedule = schedule or _loop_scheduler
        self._seq = 0
        self._closed = False
        # Text held back: its kind, the extra fields that go with it, the pieces.
        self._kind: str | None = None
        self._fields: dict[str, Any] = {}
        self._pieces: list[str] = []
        self._pending_chars = 0
        self._timer: Cancellable | None = None
        self._last_text = -math.inf  # clock time of the last text event sent

    # --- state ------------------------------------------------------------------------------

    @property
    def seq(self) -> int:
        """The number of the last event sent (0 before the first)."""
        return self._seq

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def has_pending(self) -> bool:
        """Whether some text is held back, waiting for the timer."""
        return bool(self._pieces)

    # --- emitting ---------------------------------------------------------------------------

    def emit_text(self, kind: str, text: str, /, **fields: Any) -> None:
        """Queue a piece of text of event type ``kind``; it may be merged with its neighbours.

        Pieces merge only with pieces of the same ``kind`` and the same ``fields`` (for example
        a ``toolCallId``); a piece that differs sends what is held first. The event sent is
        ``{**header, "seq", "type": kind, **fields, "text": merged}``.
        """
        self._check_open(fields)
        if "type" in fields or "text" in fields:
            raise ValueError("'type' and 'text' of a text event are its kind and its text")
        if not text:
            return
        if self._pieces and (kind != self._kind or fields != self._fields):
            self.flush()
        if not self._pieces:
            self._kind, self._fields = kind, fields
        self._pieces.append(text)
        self._pending_chars += len(text)
        if self._timer is not None and self._pending_chars < self.max_pending:
            return  # the timer already set will carry this piece too
        wait = self._last_text + self.interval - self._clock()
        if wait <= 0 or self._pending_chars >= self.max_pending:
            self.flush()
        else:
            self._timer = self._schedule(wait, self._on_timer)

    def emit(self, event: Mapping[str, Any]) -> None:
        """Send one event now, after any text held back; it is never merged."""
        self._check_open(event)
        self.flush()
        self._deliver(dict(event))

    def flush(self) -> None:
        """Send the held text now, if there is any."""
        self._cancel_timer()
        if not self._pieces:
            return
        assert self._kind is not None
        text = "".join(self._pieces)
        event = {"type": self._kind, **self._fields, "text": text}
        self._kind, self._fields, self._pieces, self._pending_chars = None, {}, [], 0
        self._last_text = self._clock()
        self._deliver(event)

    def close(self) -> None:
        """Send the held text; no event may follow. Closing twice does nothing."""
        if self._closed:
            return
        try:
            self.flush()
        finally:
            self._closed = True

    # --- internals --------------------------------------------------------------------------

    def _check_open(self, fields: Mapping[str, Any]) -> None:
        if self._closed:
            raise StreamClosed(f"event stream {self._header} is closed")
        clash = self._reserved.intersection(fields)
        if clash:
            raise ValueError(f"event fields {sorted(clash)} are set by the stream")

    def _deliver(self, event: Event) -> None:
        self._seq += 1
        self._send({**self._header, "seq": self._seq, **event})

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_timer(self) -> None:
        self._timer = None
        if self._closed:
            return
        try:
            self.flush()
        except Exception:  # nobody to raise to from a timer: keep the stream going
            log.exception("sending events of stream %s failed", self._header)
