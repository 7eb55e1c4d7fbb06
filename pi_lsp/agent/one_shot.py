"""One prompt, one answer: a system prompt and a user message sent to the configured model.

The lint's model judge (:mod:`pi_lsp.lint.judge`) asks its question through this, so it uses
the same ``models.json``, settings and model choice as ``pi-lsp chat``
(:mod:`pi_lsp.agent.model_choice`) without knowing about providers:

    resolved = judge_model(agent_dir, settings)          # ModelUnavailable when none is usable
    ask = one_shot(resolved)                             # (system, user) -> answer text
    text = await ask(system, user)                       # OneShotError when the request fails

No tools, no thinking, no retries: a failed request raises :class:`OneShotError` with the
provider's message (API keys redacted by the loop), and the caller falls back. Cancelling the
awaiting task cancels the request.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from pi_lsp.agent.loop import collect_response
from pi_lsp.agent.model_api import ModelRequest
from pi_lsp.tools.base import AbortSignal

if TYPE_CHECKING:
    from pi_lsp.agent.providers.config import ResolvedModel

__all__ = ["ModelUnavailable", "OneShotError", "judge_model", "one_shot"]

#: seconds a cancelled request is given to hang up before the cancellation goes on
_ABORT_GRACE = 5.0

Ask = Callable[[str, str], Awaitable[str]]


class ModelUnavailable(Exception):
    """No model can be used: none configured, no key, or a models.json that cannot be read."""


class OneShotError(Exception):
    """The request was sent but did not produce an answer (HTTP error, network, abort)."""


def judge_model(
    agent_dir: str,
    settings: Mapping[str, Any],
    choice: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
) -> ResolvedModel:
    """The model to ask: ``choice`` (``provider/id`` or ``id``) when given, else the model
    ``pi-lsp chat`` would use in a new session (settings' default, then the first models.json
    model that has a key)."""
    from pi_lsp.agent.model_choice import choose_model, fallback_models
    from pi_lsp.agent.providers.config import (
        ModelChoiceError,
        ModelsConfigError,
        load_models_config,
        models_json_path,
    )

    try:
        config = load_models_config(models_json_path(agent_dir))
        if choice:
            provider, _, model_id = choice.rpartition("/")
            resolved, _ = choose_model(
                config, provider or None, model_id, env=env, agent_dir=agent_dir
            )
        else:
            resolved, _ = choose_model(
                config,
                None,
                None,
                fallbacks=fallback_models(None, None, settings),
                env=env,
                agent_dir=agent_dir,
            )
    except (ModelChoiceError, ModelsConfigError) as error:
        raise ModelUnavailable(str(error)) from error
    if resolved.api_key is None:
        raise ModelUnavailable(f"no API key for {resolved.model.provider}/{resolved.model.id}")
    return resolved


def one_shot(resolved: ResolvedModel, *, max_tokens: int = 4096) -> Ask:
    """An ``ask(system, user) -> text`` that sends one request to ``resolved``'s model."""
    from pi_lsp.agent.providers.registry import provider_for

    model = resolved.model
    provider = provider_for(model)

    async def ask(system: str, user: str) -> str:
        message = {
            "role": "user",
            "content": [{"type": "text", "text": user}],
            "timestamp": int(time.time() * 1000),
        }
        request = ModelRequest(
            model=model,
            system_prompt=system,
            messages=[message],
            tools=[],
            max_tokens=min(max_tokens, model.max_tokens),
            thinking_level="off",
            api_key=resolved.api_key,
        )
        signal = AbortSignal()
        response = asyncio.ensure_future(collect_response(provider, request, signal))
        try:
            answer, _ = await asyncio.shield(response)
        except asyncio.CancelledError:
            # the provider hangs up on its signal; a cancelled await alone may leave the
            # connection open until the model has finished its answer
            signal.abort()
            with contextlib.suppress(Exception, asyncio.CancelledError, TimeoutError):
                await asyncio.wait_for(response, _ABORT_GRACE)
            raise
        if answer.get("stopReason") in ("error", "aborted"):
            raise OneShotError(str(answer.get("errorMessage") or "the request failed"))
        blocks = answer.get("content") or []
        return "".join(
            str(b.get("text", ""))
            for b in blocks
            if isinstance(b, dict) and b.get("type") == "text"
        )

    return ask
