"""The model judge in the editor (setting ``judge``, off by default): tier 2 on save or idle.

Never per keystroke: a judge run starts after the rebuild that follows a save of a context
file, or once the workspace has been quiet for ``judgeIdleMs`` after a rebuild (0: on save
only), and a new trigger cancels a run still under way. A run asks the configured model
(:func:`pi_lsp.agent.one_shot.judge_model`: ``judgeModel``, else the model ``pi-lsp chat``
would use) about every chain of the workspace, one request per chain with the pairs the cache
does not answer (:func:`pi_lsp.lint.judge.judge_workspace`, which ``pi-lsp check --judge``
runs too), with work-done progress that the user can cancel. Its ``judged-conflict``
diagnostics are published beside the rebuild's, and only while both files of a pair still
hold the text that was judged: an edit hides them until the next run has judged the new text.

Without a usable model the server keeps the word rules' findings; when a request fails, the
chains it was for keep theirs and the verdicts already cached, and the other chains are
judged. Either is said once (a warning message and the log), not at every save; a later run
that succeeds resets that. ``pi/judge`` starts a run at once and answers what it did.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types

from pi_lsp.lint.engine import Diagnostic, configured_diagnostics
from pi_lsp.server.language_server import PROGRESS_CREATE_TIMEOUT, PiLanguageServer
from pi_lsp.server.state import Rebuild

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class _Judged:
    diagnostic: Diagnostic
    #: (path, text) of both files of the pair when it was judged
    texts: tuple[tuple[str, str], ...]


@dataclass
class JudgeState:
    """The judge's runs and findings for as long as the server runs."""

    task: asyncio.Task[dict[str, Any]] | None = None
    timer: asyncio.TimerHandle | None = None
    judged: list[_Judged] = field(default_factory=list)
    save_pending: bool = False
    #: the fallback was said and nothing has worked since
    fallback_said: bool = False
    runs: int = 0
    last: dict[str, Any] | None = None

    async def shutdown(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        task, self.task = self.task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def _current_texts(ls: PiLanguageServer) -> dict[str, str]:
    texts: dict[str, str] = {}
    for resources in ls.state.snapshots.values():
        for file in resources.context_files.files:
            texts[file.path] = file.content
    return texts


def diagnostics_of(ls: PiLanguageServer, state: JudgeState) -> Mapping[str, list[Diagnostic]]:
    """The judged diagnostics whose two files still hold the text that was judged."""
    if not state.judged or not ls.state.settings.judge:
        return {}
    texts = _current_texts(ls)
    out: dict[str, list[Diagnostic]] = {}
    for judged in state.judged:
        if all(texts.get(path) == text for path, text in judged.texts):
            where = judged.diagnostic.finding.where
            out.setdefault(where.path, []).append(judged.diagnostic)
    return out


def _say_once(ls: PiLanguageServer, state: JudgeState, message: str) -> None:
    log.warning("%s", message)
    if state.fallback_said:
        return
    state.fallback_said = True
    ls.log_to_client(message, types.MessageType.Warning)
    ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, message))


async def _begin_progress(ls: PiLanguageServer, title: str) -> str | None:
    window = ls.client_capabilities.window
    if window is None or not window.work_done_progress:
        return None
    token = str(uuid.uuid4())
    try:
        await asyncio.wait_for(ls.work_done_progress.create_async(token), PROGRESS_CREATE_TIMEOUT)
    except Exception:
        return None
    ls.work_done_progress.begin(
        token, types.WorkDoneProgressBegin(title=title, cancellable=True, percentage=0)
    )
    return token


async def _judge(ls: PiLanguageServer, state: JudgeState) -> dict[str, Any]:
    from pi_lsp.agent.one_shot import ModelUnavailable, judge_model, one_shot
    from pi_lsp.lint.judge import (
        VerdictCache,
        WorkspaceJudgement,
        default_cache_path,
        judge_workspace,
        workspace_chains,
    )

    chains = workspace_chains(ls.state.snapshots.values())
    summary: dict[str, Any] = {"chains": len(chains), "asked": 0, "cached": 0, "requests": 0}
    summary.update(discarded=0, findings=0, cancelled=False, error=None)
    if not chains:
        return summary
    snapshot = next(iter(ls.state.snapshots.values()))
    settings = ls.state.settings
    try:
        resolved = await asyncio.to_thread(
            judge_model, snapshot.agent_dir, dict(snapshot.settings.merged), settings.judge_model
        )
    except ModelUnavailable as error:
        summary["error"] = str(error)
        _say_once(
            ls,
            state,
            f"pi-lsp judge: no model to ask ({error}); showing the word rules' findings only",
        )
        return summary
    model = f"{resolved.model.provider}/{resolved.model.id}"
    summary["model"] = model
    cache = await asyncio.to_thread(VerdictCache, default_cache_path())
    token = await _begin_progress(ls, "pi-lsp: judging instructions")
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    if token is not None and task is not None:
        cancel = ls.work_done_progress.tokens.get(token)
        if cancel is not None:
            cancel.add_done_callback(
                lambda f: loop.call_soon_threadsafe(task.cancel) if f.cancelled() else None
            )

    def progress(done: int, total: int) -> None:
        if token is not None:
            ls.work_done_progress.report(
                token,
                types.WorkDoneProgressReport(
                    message=f"{model}: chain {done + 1} of {total}",
                    percentage=done * 100 // total,
                ),
            )

    judgement: WorkspaceJudgement | None = None
    ended = "done"
    try:
        judgement = await judge_workspace(
            chains, one_shot(resolved), model, cache, root=ls.state.root, progress=progress
        )
    except asyncio.CancelledError:
        summary["cancelled"] = True
        ended = "cancelled"
        raise
    finally:
        if judgement is not None and judgement.error is not None:
            ended = "failed" if len(judgement.failed) == len(chains) else "done"
        if token is not None:
            ls.work_done_progress.tokens.pop(token, None)
            if not ls.shutting_down:
                ls.work_done_progress.end(token, types.WorkDoneProgressEnd(message=ended))
    for key in ("asked", "cached", "requests", "discarded"):
        summary[key] = judgement.total(key)
    config = ls.state.lint_config()
    seen: set[tuple[object, ...]] = set()
    state.judged = []
    for chain in judgement.chains:
        texts = dict(chain.files)
        for diagnostic in configured_diagnostics(chain.run.findings, config):
            f = diagnostic.finding
            place = (f.where, f.rule, f.message)
            if place in seen:
                continue
            seen.add(place)
            pair = sorted({f.where.path, *(r.where.path for r in f.related)})
            state.judged.append(_Judged(diagnostic, tuple((p, texts[p]) for p in pair)))
    summary["findings"] = len(state.judged)
    fallback = judgement.fallback()
    if fallback is None:
        state.fallback_said = False
    else:
        summary["error"] = judgement.error
        _say_once(ls, state, f"pi-lsp judge: {fallback}")
    ls.republish()
    return summary


def _start(ls: PiLanguageServer, state: JudgeState) -> asyncio.Task[dict[str, Any]]:
    if state.timer is not None:
        state.timer.cancel()
        state.timer = None
    if state.task is not None and not state.task.done():
        state.task.cancel()  # it was judging text that has changed since
    state.runs += 1
    task = asyncio.ensure_future(_judge(ls, state))

    def finished(done: asyncio.Task[dict[str, Any]]) -> None:
        if done.cancelled():
            state.last = {"cancelled": True}
        elif done.exception() is not None:
            log.error("judge run failed", exc_info=done.exception())
            state.last = {"error": str(done.exception())}
        else:
            state.last = done.result()

    task.add_done_callback(finished)
    state.task = task
    return task


def register(server: PiLanguageServer) -> None:
    state = server.feature_state(JudgeState)
    server.diagnostic_sources.append(lambda: diagnostics_of(server, state))

    def saved(path: str) -> None:
        if server.state.settings.judge and path in _current_texts(server):
            state.save_pending = True

    def rebuilt(result: Rebuild) -> None:
        settings = server.state.settings
        if not settings.judge or server.shutting_down:
            return
        if state.save_pending:
            state.save_pending = False
            _start(server, state)
        elif result.reloaded and settings.judge_idle_ms > 0:
            if state.timer is not None:
                state.timer.cancel()
            loop = asyncio.get_running_loop()
            state.timer = loop.call_later(
                settings.judge_idle_ms / 1000, lambda: _start(server, state)
            )

    server.on_save.append(saved)
    server.after_rebuild.append(rebuilt)

    @server.feature("pi/judge")
    async def judge_now(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        if not ls.state.settings.judge:
            return {"enabled": False}
        task = _start(ls, state)
        try:
            result = await task
        except asyncio.CancelledError:
            return {"enabled": True, "cancelled": True}
        return {"enabled": True, **result}
