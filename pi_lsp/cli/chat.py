"""``pi-lsp chat``: Pi's print mode — send prompts to a model, print the answer or the events.

``pi-lsp chat [-p] [--mode text|json] [--provider P] [--model M] [--thinking LEVEL]
[--session FILE | --no-session | --continue] [--session-dir DIR] [resource options] PROMPT…``

A PROMPT ``@PATH`` is a file put in front of the first message as Pi puts its ``@file``
arguments (:mod:`pi_lsp.prompt.file_args`). Each other PROMPT is sent in turn (as
``pi -p "a" "b"`` does) to a
:class:`~pi_lsp.agent.session_agent.SessionAgent` over the session, with the resources of the
working directory (the options of ``pi-lsp prompt``). Text mode prints the text blocks of the
last assistant message, one line each; JSON mode prints the session header line, then one line
per event as ``pi --mode json`` does (``message_update`` reduced, pi-lsp's own events left out).

Which model: ``--provider`` / ``--model``; else, for a resumed session, the session's model;
else ``defaultProvider`` / ``defaultModel`` from settings; else the first models.json model
that has a key (:mod:`pi_lsp.agent.model_choice`, shared with the language server's
``pi/chat``).

Exit codes: 0 done (in JSON mode also when the last answer is an error: the events say so, as
in Pi 0.85); 1 when, in text mode, the last answer is an error or aborted (the error on stderr),
or the run failed; 2 for usage errors — an unknown model or provider, a models.json that cannot be
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

from pi_lsp.cli.output import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_SIGINT,
    EXIT_SIGTERM,
    EXIT_USAGE,
    fail,
    write_replacing,
)

if TYPE_CHECKING:
    from pi_lsp.agent.model_api import ThinkingLevel
    from pi_lsp.agent.providers.config import ResolvedModel
    from pi_lsp.session.session_file import SessionFile

__all__ = ["add_chat_parser", "run_chat_command"]

# ---------------------------------------------------------------------------------------------
# The command line


def add_chat_parser(commands: Any) -> None:
    """Declare ``pi-lsp chat`` on the ``commands`` subparsers of ``pi-lsp``."""
    from pi_lsp.agent.model_api import THINKING_LEVELS
    from pi_lsp.cli.options import add_resource_options

    chat = commands.add_parser(
        "chat",
        help="send prompts to a model and print the answer (Pi's print mode)",
        description=(
            "Send each PROMPT in turn to the model, as `pi -p` does, with the resources of the "
            "working directory, and print the last answer's text (--mode text) or every event "
            "as one JSON line (--mode json: the session header first). The session is saved "
            "under the agent dir (or --session-dir) unless --no-session. Exit 0 on success, 1 "
            "when the run ends in an error (in text mode; JSON mode exits 0, as Pi does), 2 on "
            "usage errors (unknown model or provider, a models.json that cannot be used)."
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
        help="thinking level (default: the session's, else settings, else medium; clamped to "
        "the model's levels)",
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
    chat.add_argument(
        "--list-models",
        nargs="?",
        const="",
        default=None,
        metavar="SEARCH",
        help="list the models whose provider has a key (matching SEARCH) and exit",
    )
    chat.add_argument(
        "--all",
        dest="all_models",
        action="store_true",
        help="with --list-models: every model Pi knows, with where its key comes from",
    )
    add_resource_options(chat)
    chat.add_argument(
        "prompts",
        nargs="*",
        metavar="PROMPT",
        help="message(s) to send, in order; @PATH puts a file (text or image) before the first",
    )


def run_chat_command(opts: argparse.Namespace) -> int:
    if opts.list_models is not None:
        return _list_models(opts)
    if not opts.prompts:
        return fail("chat: give a PROMPT (or --list-models)", EXIT_USAGE)
    return asyncio.run(_chat(opts))


def _list_models(opts: argparse.Namespace) -> int:
    from pi_lsp.agent.providers.config import (
        ModelsConfigError,
        load_models_config,
        models_json_path,
    )
    from pi_lsp.cli.model_list import list_models
    from pi_lsp.resources.agent_dir import resolve_agent_dir

    agent_dir = resolve_agent_dir(opts.agent_dir)
    try:
        config = load_models_config(models_json_path(agent_dir))
    except ModelsConfigError as error:
        return fail(str(error), EXIT_USAGE)
    lines = list_models(config, opts.list_models, every=opts.all_models, agent_dir=agent_dir)
    sys.stdout.write("".join(line + "\n" for line in lines))
    return EXIT_OK


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
    from pi_lsp.agent.model_choice import (
        choose_model,
        clamp_thinking_level,
        fallback_models,
        initial_thinking_level,
        record_model_choice,
    )
    from pi_lsp.agent.providers.config import (
        ModelChoiceError,
        ModelsConfigError,
        load_models_config,
        models_json_path,
    )
    from pi_lsp.agent.providers.transport import aclose_shared_clients
    from pi_lsp.cli.options import load_options, options_problem, report_findings
    from pi_lsp.resources.loader import load_resources
    from pi_lsp.session.context import build_session_context
    from pi_lsp.session.errors import NotASessionError, SessionFileError

    if opts.session_dir is not None and (opts.session is not None or opts.no_session):
        return fail("--session-dir goes with a new session or --continue", EXIT_USAGE)
    options = load_options(opts)
    problem = options_problem(options)
    if problem is not None:
        return fail(problem, EXIT_USAGE)
    resources = load_resources(options)
    report_findings(resources.findings)
    agent_dir = resources.agent_dir
    settings = resources.settings.merged
    try:
        config = load_models_config(models_json_path(agent_dir))
    except ModelsConfigError as error:
        return fail(str(error), EXIT_USAGE)

    explicit: ResolvedModel | None = None
    if opts.provider or opts.model:  # a bad choice fails before any session is touched
        try:
            explicit, notes = choose_model(config, opts.provider, opts.model, agent_dir=agent_dir)
        except ModelChoiceError as error:
            return fail(str(error), EXIT_USAGE)
        for note in notes:  # Pi's own line for an id its catalogue does not list
            sys.stderr.write(f"Warning: {note}\n")

    try:
        session = _open_session(opts, resources.cwd, agent_dir)
    except NotASessionError as error:
        return fail(str(error), EXIT_USAGE)
    except SessionFileError as error:
        return fail(str(error), EXIT_FAILED)
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
            fallbacks = fallback_models(context, None, settings)
            try:
                resolved, warnings = choose_model(
                    config, None, None, fallbacks=fallbacks, agent_dir=agent_dir
                )
            except ModelChoiceError as error:
                return fail(str(error), EXIT_USAGE)
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
        write_replacing(json_line(session.header) + "\n")

        def print_event(event: dict[str, Any]) -> None:
            reduced = to_json_event(event)
            if reduced is not None:
                write_replacing(json_line(reduced) + "\n")

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
        messages = await _with_file_arguments(opts.prompts, resources)
        if isinstance(messages, str):
            return fail(messages, EXIT_FAILED)
        for text, images in messages:
            if received:
                break
            try:
                await agent.prompt(text, images=images)
            except Exception as error:
                return fail(str(error) or type(error).__name__, EXIT_FAILED)
        if aborting:
            await aborting[0]
    finally:
        for signum in handled:
            loop.remove_signal_handler(signum)
    if received:
        return EXIT_SIGINT if received[0] == signal.SIGINT else EXIT_SIGTERM
    return _finish(agent.messages, print_text=not json_mode)


async def _with_file_arguments(
    prompts: Sequence[str], resources: Any
) -> list[tuple[str, list[dict[str, str]] | None]] | str:
    """The messages to send, as Pi builds them from its arguments: every ``@path`` is read
    (:mod:`pi_lsp.prompt.file_args`) and goes in front of the first message with its images;
    the error line when a file cannot be read."""
    from pi_lsp.prompt.file_args import (
        FileArgumentError,
        auto_resize_setting,
        read_file_arguments,
    )

    paths = [prompt[1:] for prompt in prompts if prompt.startswith("@")]
    texts = [prompt for prompt in prompts if not prompt.startswith("@")]
    if not paths:
        return [(text, None) for text in texts]
    auto_resize = auto_resize_setting(resources.settings.merged)
    try:
        files = await read_file_arguments(paths, resources.cwd, auto_resize_images=auto_resize)
    except FileArgumentError as error:
        return str(error)
    first = files.text + (texts[0] if texts else "")
    messages: list[tuple[str, list[dict[str, str]] | None]] = []
    if first:
        messages.append((first, files.image_blocks() or None))
    messages.extend((text, None) for text in texts[1:])
    return messages


def _finish(messages: Sequence[Mapping[str, Any]], *, print_text: bool) -> int:
    """Pi's ending of print mode: the last assistant message's text, or its error (exit 1).
    In JSON mode the events said it all: Pi 0.85 exits 0 even after an error answer."""
    last = messages[-1] if messages else None
    if last is None or last.get("role") != "assistant" or not print_text:
        return EXIT_OK
    stop = last.get("stopReason")
    if stop in ("error", "aborted"):
        error = last.get("errorMessage")
        sys.stderr.write(f"{error if isinstance(error, str) and error else f'Request {stop}'}\n")
        sys.stderr.flush()
        return EXIT_FAILED
    for block in last.get("content") or []:
        if isinstance(block, Mapping) and block.get("type") == "text":
            write_replacing(str(block.get("text", "")) + "\n")
    return EXIT_OK
