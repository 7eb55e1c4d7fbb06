"""``pi-lsp chat``: Pi's print mode — send prompts to a model, print the answer or the events.

``pi-lsp chat [-p] [--mode text|json] [--provider P] [--model M] [--thinking LEVEL]
[--session FILE | --no-session | --continue] [--session-dir DIR] [resource options] PROMPT…``

Each PROMPT is sent in turn (as ``pi -p "a" "b"`` does) to a
:class:`~pi_lsp.agent.session_agent.SessionAgent` over the session, with the resources of the
working directory (the options of ``pi-lsp prompt``). Text mode prints the text blocks of the
last assistant message, one line each; JSON mode prints the session header line, then one line
per event as ``pi --mode json`` does (``message_update`` reduced, pi-lsp's own events left out).

Which model: ``--provider`` / ``--model``; else, for a resumed session, the session's model;
else ``defaultProvider`` / ``defaultModel`` from settings; else the first models.json model
that has a key (:func:`choose_model`, shared with the language server's ``pi/chat``).

Exit codes: 0 done; 1 when the last answer is an error or aborted (the error on stderr), or the
run failed; 2 for usage errors — an unknown model or provider, a models.json that cannot be
used (its file, line and column named), a file that is not a session. SIGINT / SIGTERM abort
the run (bash kills its process group) and exit 130 / 143. API keys are never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pi_lsp.agent.model_api import ModelInfo, ThinkingLevel
    from pi_lsp.agent.providers.config import ModelsConfig, ResolvedModel
    from pi_lsp.session.session_file import SessionFile

__all__ = [
    "THINKING_LEVELS",
    "add_chat_parser",
    "choose_model",
    "clamp_thinking_level",
    "initial_thinking_level",
    "record_model_choice",
    "run_chat_command",
    "settings_default_model",
]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_SIGINT = 130
EXIT_SIGTERM = 143

THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh")
NO_MODEL = (
    "no model available: give --provider and --model, set defaultProvider/defaultModel in "
    "settings.json, or define a model with a key in models.json"
)


# ---------------------------------------------------------------------------------------------
# Choosing a model (shared with the language server)


def settings_default_model(settings: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(defaultProvider, defaultModel)`` from merged settings, when both are set."""
    provider = settings.get("defaultProvider")
    model = settings.get("defaultModel")
    if isinstance(provider, str) and provider and isinstance(model, str) and model:
        return provider, model
    return None


def choose_model(
    config: ModelsConfig,
    provider: str | None,
    model: str | None,
    *,
    fallbacks: Sequence[tuple[str, str]] = (),
    env: Mapping[str, str] | None = None,
    agent_dir: str | None = None,
) -> tuple[ResolvedModel, list[str]]:
    """The model to talk to, and warnings about fallbacks that could not be used.

    An explicit ``provider`` / ``model`` must resolve (else :class:`ModelChoiceError`). Without
    one, each ``(provider, model)`` of ``fallbacks`` is tried in order (the session's model,
    the settings' default, …), then every models.json model; the first with a key wins.
    """
    from pi_lsp.agent.providers.config import ModelChoiceError, all_models, resolve_model

    if provider or model:
        resolved = resolve_model(config, provider, model, env=env, agent_dir=agent_dir)
        return resolved, []
    warnings: list[str] = []
    for fallback_provider, fallback_model in fallbacks:
        try:
            resolved = resolve_model(
                config, fallback_provider, fallback_model, env=env, agent_dir=agent_dir
            )
        except ModelChoiceError as error:
            warnings.append(f"cannot use {fallback_provider}/{fallback_model}: {error}")
            continue
        return resolved, warnings
    for info in all_models(config, env):
        try:
            resolved = resolve_model(config, info.provider, info.id, env=env, agent_dir=agent_dir)
        except ModelChoiceError:
            continue
        return resolved, warnings
    raise ModelChoiceError(NO_MODEL)


def clamp_thinking_level(model: ModelInfo, level: str | None) -> ThinkingLevel:
    """A known level, and ``off`` for a model without reasoning (Pi's clamp)."""
    if not model.reasoning:
        return "off"
    for known in ("off", "minimal", "low", "medium", "high", "xhigh"):
        if known == level:
            return known
    return "off"


# ---------------------------------------------------------------------------------------------
# The command line


def add_chat_parser(commands: Any) -> None:
    """Declare ``pi-lsp chat`` on the ``commands`` subparsers of ``pi-lsp``."""
    from pi_lsp.cli import _add_resource_options

    chat = commands.add_parser(
        "chat",
        help="send prompts to a model and print the answer (Pi's print mode)",
        description=(
            "Send each PROMPT in turn to the model, as `pi -p` does, with the resources of the "
            "working directory, and print the last answer's text (--mode text) or every event "
            "as one JSON line (--mode json: the session header first). The session is saved "
            "under the agent dir (or --session-dir) unless --no-session. Exit 0 on success, 1 "
            "when the run ends in an error, 2 on usage errors (unknown model or provider, a "
            "models.json that cannot be used)."
        ),
    )
    chat.add_argument(
        "-p",
        "--print",
        action="store_true",
        help="print mode (the only mode of pi-lsp chat; accepted as Pi accepts it)",
    )
    chat.add_argument(
        "--mode", choices=("text", "json"), default="text", help="output: text (default) or json"
    )
    chat.add_argument("--provider", default=None, help="provider name (models.json or built-in)")
    chat.add_argument(
        "--model",
        default=None,
        help=(
            "model id (or provider/id); default: the resumed session's model, else settings' "
            "defaultProvider/defaultModel, else the first models.json model with a key"
        ),
    )
    chat.add_argument(
        "--thinking",
        choices=THINKING_LEVELS,
        default=None,
        help="thinking level (default: the session's, else settings, else off)",
    )
    where = chat.add_mutually_exclusive_group()
    where.add_argument(
        "--session", default=None, metavar="FILE", help="use this session file (created if new)"
    )
    where.add_argument("--no-session", action="store_true", help="keep the session in memory only")
    where.add_argument(
        "--continue",
        "-c",
        dest="continue_session",
        action="store_true",
        help="continue the most recent session of the working directory",
    )
    chat.add_argument(
        "--session-dir",
        default=None,
        metavar="DIR",
        help="folder of session files (default: <agent dir>/sessions/--<cwd>--)",
    )
    _add_resource_options(chat)
    chat.add_argument("prompts", nargs="+", metavar="PROMPT", help="message(s) to send, in order")


def run_chat_command(opts: argparse.Namespace) -> int:
    return asyncio.run(_chat(opts))


def _error(message: str, code: int) -> int:
    sys.stderr.write(f"pi-lsp: {message}\n")
    sys.stderr.flush()
    return code


def _write_line(text: str) -> None:
    sys.stdout.buffer.write(text.encode("utf-8", "replace") + b"\n")
    sys.stdout.buffer.flush()


def _open_session(opts: argparse.Namespace, cwd: str, agent_dir: str) -> SessionFile:
    """The session the options name (nothing is written before the first answer)."""
    from pi_lsp.session.session_file import SessionFile

    if opts.session is not None:
        return SessionFile.open(os.path.abspath(opts.session), cwd=cwd)
    if opts.no_session:
        return SessionFile.in_memory(cwd)
    if opts.continue_session:
        return SessionFile.continue_recent(cwd, agent_dir=agent_dir, session_dir=opts.session_dir)
    return SessionFile.create(cwd, agent_dir=agent_dir, session_dir=opts.session_dir)


async def _chat(opts: argparse.Namespace) -> int:
    from pi_lsp.agent.providers.config import (
        ModelChoiceError,
        ModelsConfigError,
        load_models_config,
        models_json_path,
    )
    from pi_lsp.agent.providers.transport import aclose_shared_clients
    from pi_lsp.cli import _load_options, _report_findings
    from pi_lsp.resources.loader import load_resources
    from pi_lsp.session.context import build_session_context
    from pi_lsp.session.errors import NotASessionError, SessionFileError
    from pi_lsp.tools.registry import BUILTIN_TOOLS

    if opts.session_dir is not None and (opts.session is not None or opts.no_session):
        return _error("--session-dir goes with a new session or --continue", EXIT_USAGE)
    options = _load_options(opts)
    if opts.tools is not None:
        unknown = [t for t in options.tools if t not in BUILTIN_TOOLS]
        if unknown:
            return _error(f"unknown tool(s) in --tools: {', '.join(unknown)}", EXIT_USAGE)
    if not os.path.isdir(options.cwd):
        return _error(f"working directory does not exist: {options.cwd}", EXIT_USAGE)
    resources = load_resources(options)
    _report_findings(resources.findings)
    agent_dir = resources.agent_dir
    settings = resources.settings.merged
    try:
        config = load_models_config(models_json_path(agent_dir))
    except ModelsConfigError as error:
        return _error(str(error), EXIT_USAGE)

    explicit: ResolvedModel | None = None
    if opts.provider or opts.model:  # a bad choice fails before any session is touched
        try:
            explicit, _ = choose_model(config, opts.provider, opts.model, agent_dir=agent_dir)
        except ModelChoiceError as error:
            return _error(str(error), EXIT_USAGE)

    try:
        session = _open_session(opts, resources.cwd, agent_dir)
    except NotASessionError as error:
        return _error(str(error), EXIT_USAGE)
    except SessionFileError as error:
        return _error(str(error), EXIT_FAILED)
    stored_cwd = session.header.get("cwd") if opts.session is not None else None
    if isinstance(stored_cwd, str) and stored_cwd and not os.path.isdir(stored_cwd):
        # as Pi 0.85's print mode: a resumed session must still have its folder
        session.close()
        sys.stderr.write(
            f"Stored session working directory does not exist: {stored_cwd}\n"
            f"Session file: {os.path.abspath(opts.session)}\n"
            f"Current working directory: {resources.cwd}\n"
        )
        return EXIT_FAILED
    try:
        resumed = bool(session.entries)
        context = build_session_context(session.entries, session.leaf_id) if resumed else None
        if explicit is not None:
            resolved = explicit
        else:
            fallbacks: list[tuple[str, str]] = []
            saved = context.model if context is not None else None
            if saved and isinstance(saved.get("provider"), str) and saved.get("modelId"):
                fallbacks.append((saved["provider"], str(saved["modelId"])))
            default = settings_default_model(settings)
            if default is not None:
                fallbacks.append(default)
            try:
                resolved, warnings = choose_model(
                    config, None, None, fallbacks=fallbacks, agent_dir=agent_dir
                )
            except ModelChoiceError as error:
                return _error(str(error), EXIT_USAGE)
            for warning in warnings:
                sys.stderr.write(f"pi-lsp: warning: {warning}\n")
        model = resolved.model
        level = initial_thinking_level(opts.thinking, settings, session, context)
        thinking = clamp_thinking_level(model, level)
        record_model_choice(session, model, thinking, context)
        return await _run(opts, session, resources, resolved, thinking)
    finally:
        session.close()
        await aclose_shared_clients()


def _has_thinking_entry(session: SessionFile) -> bool:
    return "thinking_level_change" in session.get_branch_types()


def initial_thinking_level(
    flag: str | None, settings: Mapping[str, Any], session: SessionFile, context: Any
) -> str:
    """The requested level, else the level a resumed session records, else
    ``defaultThinkingLevel``, else off (clamp it with :func:`clamp_thinking_level`)."""
    if flag is not None:
        return flag
    if context is not None and _has_thinking_entry(session):
        return str(context.thinking_level)
    default = settings.get("defaultThinkingLevel")
    return default if isinstance(default, str) else "off"


def record_model_choice(
    session: SessionFile, model: ModelInfo, thinking: str, context: Any
) -> None:
    """Open a new session (``context`` None) with the model and thinking level, as Pi does.

    A resumed session gets only a thinking-level entry when it has none yet (spec §8.2): Pi
    0.85 records no model change when a session is continued with another model (checked with
    the oracle: tests/conformance/test_session_interop.py); the assistant messages carry the
    model that answered them.
    """
    if context is None:
        session.append_model_change(model.provider, model.id)
        session.append_thinking_level_change(thinking)
        return
    if not _has_thinking_entry(session):
        session.append_thinking_level_change(thinking)


async def _run(
    opts: argparse.Namespace,
    session: SessionFile,
    resources: Any,
    resolved: ResolvedModel,
    thinking: ThinkingLevel,
) -> int:
    from pi_lsp.agent.events import json_line, to_json_event
    from pi_lsp.agent.providers.registry import provider_for
    from pi_lsp.agent.session_agent import SessionAgent

    agent = SessionAgent(
        provider=provider_for(resolved.model),
        model=resolved.model,
        session=session,
        resources=resources,
        thinking_level=thinking,
        api_key=resolved.api_key,
    )
    json_mode = opts.mode == "json"
    if json_mode:
        _write_line(json_line(session.header))

        def print_event(event: dict[str, Any]) -> None:
            reduced = to_json_event(event)
            if reduced is not None:
                _write_line(json_line(reduced))

        agent.subscribe(print_event)

    received: list[int] = []
    loop = asyncio.get_running_loop()
    aborting: list[asyncio.Task[None]] = []

    def on_signal(signum: int) -> None:
        received.append(signum)
        if not aborting:
            aborting.append(asyncio.ensure_future(agent.abort()))

    handled = (signal.SIGINT, signal.SIGTERM)
    for signum in handled:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        for text in opts.prompts:
            if received:
                break
            try:
                await agent.prompt(text)
            except Exception as error:
                return _error(str(error) or type(error).__name__, EXIT_FAILED)
        if aborting:
            await aborting[0]
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
    if received:
        return EXIT_SIGINT if received[0] == signal.SIGINT else EXIT_SIGTERM
    return _finish(agent.messages, print_text=not json_mode)


def _finish(messages: Sequence[Mapping[str, Any]], *, print_text: bool) -> int:
    """Pi's ending of print mode: the last assistant message's text, or its error."""
    last = messages[-1] if messages else None
    if last is None or last.get("role") != "assistant":
        return EXIT_OK
    stop = last.get("stopReason")
    if stop in ("error", "aborted"):
        error = last.get("errorMessage")
        sys.stderr.write(f"{error if isinstance(error, str) and error else f'Request {stop}'}\n")
        sys.stderr.flush()
        return EXIT_FAILED
    if print_text:
        for block in last.get("content") or []:
            if isinstance(block, Mapping) and block.get("type") == "text":
                _write_line(str(block.get("text", "")))
    return EXIT_OK
