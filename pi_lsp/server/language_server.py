"""The pygls server object: workspace state, rebuilds, and what they publish.

Feature modules (hover, navigation, …) register their handlers on it in ``setup.py``; this
module holds what several of them share and no business logic of its own. A feature that
keeps state for the server's lifetime (its runs, its sessions) keeps it in
:attr:`PiLanguageServer.features`, and :meth:`PiLanguageServer.stop_features` shuts it down.

Rebuilds: every change names its paths (``request_rebuild``). A change that comes after a
quiet spell of ``debounceMs`` starts a rebuild at once (one keystroke waits for nothing); a
change that follows another within ``debounceMs`` is gathered with the rest of its burst for
``debounceMs`` (but never held back more than ``MAX_HOLD`` seconds while they keep coming),
then one rebuild runs in a worker thread — so hover and other requests are answered while it
runs — and then diagnostics and ``pi/systemPromptChanged`` are published. Changes that arrive
during a rebuild are gathered for the next one; there is never more than one at a time.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol

from pi_lsp import __version__
from pi_lsp.lint.engine import Diagnostic
from pi_lsp.prompt.system_prompt import PromptDocument
from pi_lsp.server.convert import lsp_diagnostic, uri_of
from pi_lsp.server.disk_changes import DiskChanges
from pi_lsp.server.settings import ServerSettings
from pi_lsp.server.state import Rebuild, WorkspaceState

log = logging.getLogger(__name__)

MAX_HOLD = 0.2  # seconds a stream of changes may delay a rebuild
#: Seconds to wait for the client to accept a server-made progress token.
PROGRESS_CREATE_TIMEOUT = 2.0
#: prompts whose tokens a rebuild counts ahead of hovers; past this many (a change to the agent
#: dir's AGENTS.md reaches every working directory) they are counted when first asked for
PRECOUNTED_PROMPTS = 8


class Feature(Protocol):
    """State that one feature keeps for as long as the server runs."""

    async def shutdown(self) -> None:
        """Stop what still runs and release what is held (the server is shutting down)."""


FeatureT = TypeVar("FeatureT", bound=Feature)


def _progress_name(cwd: str, root: str) -> str:
    """The working directory a rebuild is loading, as the progress shows it: relative to the
    workspace root, the root by its own name (a bare ``.`` reads as a stray dot)."""
    relative = os.path.relpath(cwd, root)
    if relative != ".":
        return relative
    return os.path.basename(os.path.normpath(root)) or root


class PiProtocol(LanguageServerProtocol):
    """pygls's protocol with two changes.

    - A message without ``params`` is read as one with ``null`` params (JSON-RPC allows it).
    - A request it cannot read still gets an answer: pygls drops a request whose params do not
      fit the method's type (and the client then waits forever); we answer with the error.
    - Positions are always UTF-16 (every client must support it). pygls would take the client's
      first choice (Neovim offers UTF-8 first), but the server converts in one place
      (``convert.py``) and that place counts UTF-16 code units.
    """

    def structure_message(self, data: dict[str, Any]) -> Any:
        if isinstance(data, dict) and "method" in data and "params" not in data:
            # JSON-RPC lets a request or notification leave out params (pygls would refuse it)
            data = {**data, "params": None}
        try:
            message = super().structure_message(data)
        except JsonRpcException as error:
            if isinstance(data, dict) and "id" in data and "method" in data:
                self._send_response(data["id"], error=error.to_response_error())
            raise
        if isinstance(message, types.InitializeRequest):
            general = message.params.capabilities.general
            if general is not None:
                general.position_encodings = [types.PositionEncodingKind.Utf16]
        return message

    def _send_data(self, data: Any) -> None:
        # After ``exit`` pygls has closed stdout; a message still under way from a worker
        # (a rebuild's progress, a tool's last output) would make pygls log a traceback,
        # which clients show as an error. There is no one left to tell: drop it.
        stream = getattr(self.writer, "_stdout", None)
        if stream is not None and getattr(stream, "closed", False):
            log.debug("not sent, the output is closed: %s", type(data).__name__)
            return
        super()._send_data(data)


@dataclass(frozen=True, slots=True)
class Shown:
    """What the client was last sent for one file."""

    version: int | None  # the buffer version it was published for; None: the file on disk
    text: bytes | None  # digest of the text its ranges were computed in (None: unreadable)
    findings: tuple[object, ...]  # what each diagnostic says and where


def _text_digest(text: str | None) -> bytes | None:
    if text is None:
        return None
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class PiLanguageServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("pi-lsp", __version__, protocol_cls=PiProtocol)
        self.state = WorkspaceState(root=os.getcwd())
        self.disk_changes = DiskChanges(self.state)  # which watcher events are real changes
        self.state.disk = self.disk_changes.source  # reads checked against kept events
        self.initial_settings = ServerSettings()  # from initializationOptions
        self.features: dict[type[Feature], Feature] = {}  # by kind, in the order first used
        self._changed: set[str] | None = None  # gathered reason; None = everything
        self._timer: asyncio.TimerHandle | None = None
        self._held_since: float | None = None
        self._last_request: float | None = None  # loop time of the latest change asked for
        self._running: asyncio.Task[None] | None = None
        self._counting: asyncio.Future[None] | None = None  # prompt tokens counted ahead
        self._built_once = False
        self._shown: dict[str, Shown] = {}  # path -> what the client shows for it
        self._prompts: dict[str, str] = {}  # cwd -> last prompt text announced
        self.rebuilds = 0  # how many rebuilds ran (``pi/status``)
        self.last_rebuild: tuple[float, frozenset[str] | None] | None = None  # (ms, reason)
        self.watched_folders: tuple[str, ...] = ()  # watched by us (watchfiles)
        self.client_watches = False  # the client took our file-watcher registration
        self.shutting_down = False
        self._reporting = False
        #: diagnostics that features add to the rebuild's (the model judge), by file
        self.diagnostic_sources: list[Callable[[], Mapping[str, list[Diagnostic]]]] = []
        #: called after each rebuild has published, with what it did
        self.after_rebuild: list[Callable[[Rebuild], None]] = []
        #: called with the path of every saved document
        self.on_save: list[Callable[[str], None]] = []

    def report_server_error(self, error: Exception, source: Any) -> None:
        """Tell the client about an error, unless telling it is what fails.

        After shutdown (or when sending the report itself fails) the error is only logged:
        pygls would otherwise report each failed send by sending again.
        """
        if self.shutting_down or self._reporting:
            log.error("%s", error)
            return
        self._reporting = True
        try:
            super().report_server_error(error, source)
        finally:
            self._reporting = False

    def stop_rebuilding(self) -> None:
        """No more rebuilds or publishing (at shutdown)."""
        self.shutting_down = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def feature_state(self, kind: type[FeatureT]) -> FeatureT:
        """The ``kind`` state this server holds, made the first time it is asked for (when the
        feature registers)."""
        held = self.features.get(kind)
        if held is None:
            held = self.features[kind] = kind()
        assert isinstance(held, kind)
        return held

    async def stop_features(self) -> None:
        """Shut every feature's state down, one after another, in the order the features
        registered (``setup.FEATURES``: tool runs before chats)."""
        for feature in list(self.features.values()):
            await feature.shutdown()

    def log_to_client(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_log_message(types.LogMessageParams(kind, message))

    # --- rebuilding -------------------------------------------------------------------------

    def request_rebuild(self, changed: Iterable[str] | None = None) -> None:
        """Rebuild soon because ``changed`` paths changed (``None``: anything may have)."""
        if changed is None or not self._built_once:
            self._changed = None
        elif self._changed is not None:
            self._changed.update(changed)
        now = asyncio.get_running_loop().time()
        after_quiet = (
            self._last_request is None
            or now - self._last_request >= self.state.settings.debounce_ms / 1000
        )
        self._last_request = now
        self._schedule(at_once=after_quiet and self._timer is None)

    def _schedule(self, at_once: bool = False) -> None:
        """Start the next rebuild after the debounce (``at_once``: now, the first change after
        a quiet spell)."""
        if self.shutting_down:
            return
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._held_since is None:
            self._held_since = now
        if self._timer is not None:
            self._timer.cancel()
        delay = 0.0 if at_once else self.state.settings.debounce_ms / 1000
        delay = max(0.0, min(delay, self._held_since + MAX_HOLD - now))
        self._timer = loop.call_later(delay, self._start_rebuild)

    def _start_rebuild(self) -> None:
        self._timer = None
        if self._running is not None and not self._running.done():
            return  # the running rebuild schedules the next one when it ends
        self._held_since = None
        changed, self._changed = self._changed, set()
        self._running = asyncio.ensure_future(self._rebuild(changed))

    async def _rebuild(self, changed: set[str] | None) -> None:
        buffers = dict(self.state.buffers)
        progress = await self._begin_progress() if changed is None else None
        loop = asyncio.get_running_loop()
        started = loop.time()
        cancelled = False
        try:
            result, prompts = await asyncio.to_thread(self._build, changed, buffers, progress, loop)
        except asyncio.CancelledError:  # the server is exiting: send nothing more
            cancelled = True
            raise
        except Exception:  # one bad file must never take the server down
            log.exception("rebuild failed")
            self.log_to_client("pi-lsp: rebuild failed; see the log", types.MessageType.Error)
            return
        finally:
            if not cancelled and not self.shutting_down:
                if progress is not None:
                    self.work_done_progress.end(progress, types.WorkDoneProgressEnd())
                if self._changed is None or self._changed:
                    self._schedule()
        if self.shutting_down:
            return
        self._built_once = True
        self.rebuilds += 1
        self.last_rebuild = ((loop.time() - started) * 1000, result.reason)
        self.publish(result)
        self._announce(result, prompts)
        for hook in self.after_rebuild:
            hook(result)
        if 0 < len(result.reloaded) <= PRECOUNTED_PROMPTS:
            # counted after publishing, off the event loop, so the next hover finds them ready
            documents = [self.state.prompt(cwd) for cwd in result.reloaded]
            self._counting = asyncio.ensure_future(asyncio.to_thread(_count_tokens, documents))

    def _build(
        self,
        changed: set[str] | None,
        buffers: dict[str, tuple[int, str]],
        token: str | None,
        loop: asyncio.AbstractEventLoop,
    ) -> tuple[Rebuild, dict[str, str]]:
        """The rebuild itself (in a worker thread) and the new prompt text of what changed."""
        loop_report = None
        if token is not None:

            def loop_report(done: int, total: int, cwd: str) -> None:
                report = types.WorkDoneProgressReport(
                    message=_progress_name(cwd, self.state.root),
                    percentage=done * 100 // max(total, 1),
                )
                with contextlib.suppress(RuntimeError):  # the loop closed: the server exited
                    loop.call_soon_threadsafe(self._report_progress, token, report)

        result = self.state.rebuild(changed, buffers, loop_report)
        prompts = {cwd: self.state.prompt(cwd).text for cwd in result.reloaded}
        return result, prompts

    def _report_progress(self, token: str, report: types.WorkDoneProgressReport) -> None:
        if not self.shutting_down:  # a rebuild still running at shutdown reports nothing more
            self.work_done_progress.report(token, report)

    async def _begin_progress(self) -> str | None:
        """A progress token for a full rebuild, when the client shows progress."""
        window = self.client_capabilities.window
        if window is None or not window.work_done_progress:
            return None
        token = str(uuid.uuid4())
        try:
            await asyncio.wait_for(
                self.work_done_progress.create_async(token), PROGRESS_CREATE_TIMEOUT
            )
        except Exception:
            return None
        if self.shutting_down:
            return None
        self.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title="pi-lsp: loading context", percentage=0)
        )
        return token

    # --- publishing -------------------------------------------------------------------------

    def republish(self) -> None:
        """Publish again what changed since the last publish (a feature's diagnostics)."""
        if not self.shutting_down:
            self.publish(Rebuild(frozenset(), (), self.state.diagnostics))

    def publish(self, result: Rebuild) -> None:
        """Send the diagnostics of every file whose diagnostics (or buffer version) changed.

        What was sent is kept by file (:class:`Shown`) with a digest of the text it was
        computed in, so that opening a file whose buffer holds that text sends nothing
        (:meth:`adopt_shown`).
        """
        rules_doc = self.state.settings.rules_doc_url
        by_path: Mapping[str, list[Diagnostic]] = result.diagnostics
        if self.diagnostic_sources:
            merged = {path: list(found) for path, found in by_path.items()}
            for source in self.diagnostic_sources:
                for path, found in source().items():
                    merged.setdefault(path, []).extend(found)
            by_path = merged
        # open buffers too: a file opened without problems gets its (empty) version-stamped list
        for path in set(by_path) | set(self._shown) | set(self.state.buffers):
            diagnostics = by_path.get(path, [])
            buffer = self.state.buffers.get(path)
            version = None if buffer is None else buffer[0]
            key = tuple(
                (d.finding.where, d.rule.code, d.severity, d.finding.message) for d in diagnostics
            )
            shown = self._shown.get(path)
            if (
                shown is not None
                and (shown.version, shown.findings) == (version, key)
                # a buffer's versions start again when it is closed and opened again
                and (buffer is None or shown.text == _text_digest(buffer[1]))
            ):
                continue
            text = self.state.text_of(path)  # what the ranges are converted in, read once

            def text_of(other: str, path: str = path, text: str | None = text) -> str | None:
                return text if other == path else self.state.text_of(other)

            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(
                    uri=uri_of(path),
                    version=version,
                    diagnostics=[lsp_diagnostic(d, text_of, rules_doc) for d in diagnostics],
                )
            )
            if diagnostics or version is not None:
                self._shown[path] = Shown(version, _text_digest(text), key)
            else:
                self._shown.pop(path, None)

    def adopt_shown(self, path: str, version: int, text: str) -> None:
        """``path`` was opened in a buffer of ``version`` holding ``text``.

        When the diagnostics the client shows for it were published for the file as on disk
        and computed from this very text, they hold for the buffer as they are: they now count
        as published for ``version``, so the rebuild that follows the opening sends them only if
        they change. Sending them again unchanged would not be a no-op in VS Code: a new
        publish makes it ask for the file's code actions again and drop the commands of the
        quick-fix menu the user may have open (the user who clicked a finding in the Problems
        panel, which opens its file, and then its light bulb).
        """
        shown = self._shown.get(path)
        if shown is not None and shown.version is None and shown.text == _text_digest(text):
            self._shown[path] = Shown(version, shown.text, shown.findings)

    def _announce(self, result: Rebuild, prompts: dict[str, str]) -> None:
        """Tell the client which working directories now get a different system prompt."""
        changed = sorted(cwd for cwd, text in prompts.items() if self._prompts.get(cwd) != text)
        removed = sorted(set(self._prompts) - set(self.state.snapshots))
        self._prompts.update({cwd: prompts[cwd] for cwd in changed})
        for cwd in removed:
            del self._prompts[cwd]
        if changed or removed:
            payload: dict[str, Any] = {
                "cwds": changed,
                "removed": removed,
                "reason": None if result.reason is None else sorted(result.reason),
            }
            self.protocol.notify("pi/systemPromptChanged", payload)


def _count_tokens(documents: list[PromptDocument]) -> None:
    for document in documents:
        _ = document.tokens
