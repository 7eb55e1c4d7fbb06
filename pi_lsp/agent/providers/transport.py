"""HTTP for the providers: shared clients, one abortable server-sent-event stream per request.

* :func:`shared_client` — one ``httpx.AsyncClient`` per base URL (and per event loop: a client's
  connection pool belongs to the loop that opened it), reused by every request to that server.
* :func:`open_event_stream` — POST a JSON body and yield the response's server-sent events
  (:func:`open_byte_stream`: its raw bytes, for a provider that splits events itself).
  An HTTP error status, a transport failure before the response, or a response that is not an
  event stream raise :class:`HttpFailure` with the ``errorMessage`` Pi would record and the
  server's ``retry-after``. Failures while streaming raise ``httpx.HTTPError`` for the provider
  to word.
* :class:`AbortRace` — every network wait runs against the request's :class:`AbortSignal`:
  when it fires the wait is cancelled at once, the response closed (the server sees the
  connection drop) and :class:`Aborted` raised.
"""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Literal, TypeVar

import httpx
from httpx_sse import EventSource, ServerSentEvent

from pi_lsp.agent.providers.errors import http_error_message, network_error_message
from pi_lsp.agent.providers.retry import retry_after_ms
from pi_lsp.tools.base import AbortSignal

__all__ = [
    "ABORTED_MESSAGE",
    "DEFAULT_TIMEOUT",
    "AbortRace",
    "Aborted",
    "ClientSource",
    "ErrorFormatter",
    "HttpFailure",
    "aclose_shared_clients",
    "failure_reason",
    "open_byte_stream",
    "open_event_stream",
    "shared_client",
]

T = TypeVar("T")

#: ``base_url -> client``; providers take one so tests can hand in their own.
ClientSource = Callable[[str], httpx.AsyncClient]

#: Like the vendor SDKs: patient reads (a model may think for minutes), quick connects.
DEFAULT_TIMEOUT = httpx.Timeout(600.0, connect=30.0)
#: An error body longer than this is cut (it only goes into ``errorMessage``).
MAX_ERROR_BODY = 1 << 20

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, httpx.AsyncClient]] = (
    weakref.WeakKeyDictionary()
)


def _client_key(base_url: str) -> str:
    return base_url.rstrip("/")


def shared_client(base_url: str) -> httpx.AsyncClient:
    """The client for ``base_url`` on the running event loop (created on first use)."""
    loop = asyncio.get_running_loop()
    per_loop = _clients.setdefault(loop, {})
    key = _client_key(base_url)
    client = per_loop.get(key)
    if client is None or client.is_closed:
        client = httpx.AsyncClient(timeout=DEFAULT_TIMEOUT)
        per_loop[key] = client
    return client


async def aclose_shared_clients() -> None:
    """Close the clients of the running loop (call before the loop ends: CLI, server shutdown)."""
    loop = asyncio.get_running_loop()
    per_loop = _clients.pop(loop, {})
    for client in per_loop.values():
        await client.aclose()


#: the ``errorMessage`` of a request aborted by its signal (Pi's text)
ABORTED_MESSAGE = "Request was aborted"


class Aborted(Exception):
    """The request's abort signal fired while waiting on the network."""


class HttpFailure(Exception):
    """The request failed before any event arrived; ``message`` is the ``errorMessage``.

    For an HTTP error status, ``status`` and ``body`` (at most :data:`MAX_ERROR_BODY` bytes)
    are kept for providers that word the error their own way; both are None for a transport
    failure before any response.
    """

    def __init__(
        self,
        message: str,
        retry_after_ms: int | None = None,
        *,
        status: int | None = None,
        body: bytes | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after_ms = retry_after_ms
        self.status = status
        self.body = body


class AbortRace:
    """Await things until an abort signal fires (one waiter on the signal for all of them)."""

    def __init__(self, signal: AbortSignal | None) -> None:
        self.signal = signal
        self._waiter: asyncio.Future[None] | None = None

    @property
    def aborted(self) -> bool:
        return self.signal is not None and self.signal.aborted

    async def run(self, awaitable: Awaitable[T]) -> T:
        """``await awaitable``, or cancel it and raise :class:`Aborted` when the signal fires."""
        if self.signal is None:
            return await awaitable
        task = asyncio.ensure_future(awaitable)
        if self.signal.aborted:
            await _cancel(task)
            raise Aborted
        if self._waiter is None:
            self._waiter = asyncio.ensure_future(self.signal.wait())
        waiting: set[asyncio.Future[Any]] = {task, self._waiter}
        try:
            await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not task.done():
                await _cancel(task)
        if task.cancelled():
            raise Aborted
        return task.result()

    async def aclose(self) -> None:
        if self._waiter is not None:
            await _cancel(self._waiter)
            self._waiter = None


async def _cancel(future: asyncio.Future[Any]) -> None:
    future.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await future


async def _read_body(response: httpx.Response) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= MAX_ERROR_BODY:
            break
    return b"".join(chunks)[:MAX_ERROR_BODY]


_END = object()


async def _next_event(source: AsyncIterator[Any]) -> object:
    try:
        return await source.__anext__()
    except StopAsyncIteration:
        return _END


async def _raced(source: AsyncIterator[T], race: AbortRace) -> AsyncIterator[T]:
    """``source``'s items, each wait raced against the abort signal; ``source`` closed after."""
    try:
        while True:
            item = await race.run(_next_event(source))
            if item is _END:
                return
            yield item  # type: ignore[misc]
    finally:
        with contextlib.suppress(Exception):
            await source.aclose()  # type: ignore[attr-defined]


#: ``(status, reason phrase, content type, body) -> errorMessage`` of an HTTP error reply
ErrorFormatter = Callable[[int, str, str, bytes], str]


@contextlib.asynccontextmanager
async def _stream(
    read: Callable[[httpx.Response], AsyncIterator[T]],
    client: httpx.AsyncClient,
    url: str,
    *,
    headers: Mapping[str, str],
    body: bytes,
    race: AbortRace,
    error_message: ErrorFormatter,
    event_stream_only: bool,
) -> AsyncIterator[AsyncIterator[T]]:
    """POST and yield ``read(response)`` of a 2xx reply, raced against the abort signal."""
    request = client.build_request("POST", url, headers=dict(headers), content=body)
    try:
        response = await race.run(client.send(request, stream=True))
    except httpx.HTTPError as error:
        raise HttpFailure(network_error_message(error, streaming=False)) from None
    try:
        status = response.status_code
        content_type = response.headers.get("content-type", "")
        wrong_type = event_stream_only and "text/event-stream" not in content_type
        if not 200 <= status < 300 or wrong_type:
            try:
                data = await race.run(_read_body(response))
            except httpx.HTTPError as error:
                raise HttpFailure(network_error_message(error, streaming=True)) from None
            raise HttpFailure(
                error_message(status, response.reason_phrase, content_type, data),
                retry_after_ms(response.headers),
                status=status,
                body=data,
            )
        items = _raced(read(response), race)
        try:
            yield items
        finally:
            await items.aclose()  # type: ignore[attr-defined]
    finally:
        await response.aclose()


def open_event_stream(
    client: httpx.AsyncClient,
    url: str,
    *,
    headers: Mapping[str, str],
    body: bytes,
    race: AbortRace,
    error_message: Callable[[int, bytes], str] = http_error_message,
) -> contextlib.AbstractAsyncContextManager[AsyncIterator[ServerSentEvent]]:
    """POST ``body`` to ``url`` and yield the server-sent events of a 2xx event-stream reply.

    An HTTP error's text is ``error_message(status, body)`` (each vendor's SDK words it its
    own way).

    Raises :class:`HttpFailure` (no event will come), :class:`Aborted`, and, while iterating,
    ``httpx.HTTPError`` for a broken stream.
    """
    return _stream(
        lambda response: EventSource(response).aiter_sse(),
        client,
        url,
        headers=headers,
        body=body,
        race=race,
        error_message=lambda status, _reason, _type, data: error_message(status, data),
        event_stream_only=True,
    )


def open_byte_stream(
    client: httpx.AsyncClient,
    url: str,
    *,
    headers: Mapping[str, str],
    body: bytes,
    race: AbortRace,
    error_message: ErrorFormatter,
) -> contextlib.AbstractAsyncContextManager[AsyncIterator[bytes]]:
    """Like :func:`open_event_stream` for a provider that reads the body itself: the 2xx
    reply's bytes as they arrive, whatever its content type; an HTTP error worded by
    ``error_message(status, reason phrase, content type, body)``.
    """
    return _stream(
        lambda response: response.aiter_bytes(),
        client,
        url,
        headers=headers,
        body=body,
        race=race,
        error_message=error_message,
        event_stream_only=False,
    )


def failure_reason(
    error: Exception, aborted: bool
) -> tuple[Literal["aborted", "error"], str, int | None]:
    """How a request that raised ``error`` ends: (``"aborted"`` or ``"error"``, the
    ``errorMessage`` before redaction, the server's retry-after in ms).

    ``error`` is :class:`Aborted`, :class:`HttpFailure` or an ``httpx.HTTPError``; ``aborted``
    says whether the signal fired (a failure that follows an abort is the abort).
    """
    if aborted or isinstance(error, Aborted):
        return "aborted", ABORTED_MESSAGE, None
    if isinstance(error, HttpFailure):
        return "error", error.message, error.retry_after_ms
    if isinstance(error, httpx.HTTPError):
        return "error", network_error_message(error, streaming=True), None
    raise error
