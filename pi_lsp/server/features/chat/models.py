"""The models of the editor's chats: ``pi/models`` (what models.json and the built-in providers
offer, with where each key comes from) and ``pi/model/select`` (the model for new sessions, or a
held session's model and thinking level), over :mod:`pi_lsp.agent.model_choice`.

Also the model choice every chat request makes: :func:`choose` resolves what a request names
(else the fallbacks) and turns a failed choice into the request's error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.agent.model_api import THINKING_LEVELS
from pi_lsp.agent.model_choice import choose_model
from pi_lsp.agent.providers.catalogue import builtin_providers
from pi_lsp.agent.providers.config import (
    ModelChoiceError,
    ModelsConfig,
    ModelsConfigError,
    ResolvedModel,
    catalogue_listing,
    load_models_config,
    models_json_path,
    provider_key_source,
    unreachable_reason,
)
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.requests import agent_dir_of, config_failure, failed, read_params, string_param

if TYPE_CHECKING:  # sessions.py chooses models with this module
    from pi_lsp.server.features.chat.sessions import ChatSessions

MODELS = "pi/models"
SELECT = "pi/model/select"


def models_config(ls: PiLanguageServer) -> ModelsConfig:
    try:
        return load_models_config(models_json_path(agent_dir_of(ls)))
    except ModelsConfigError as error:
        raise config_failure(error) from error


def choose(
    ls: PiLanguageServer,
    method: str,
    provider: str | None,
    model: str | None,
    fallbacks: list[tuple[str, str]],
) -> ResolvedModel:
    config = models_config(ls)
    try:
        resolved, warnings = choose_model(
            config, provider, model, fallbacks=fallbacks, agent_dir=agent_dir_of(ls)
        )
    except ModelChoiceError as error:
        if provider or model:
            raise JsonRpcInvalidParams(f"{method}: {error}") from error
        raise failed(f"{method}: {error}") from error
    for warning in warnings:
        ls.log_to_client(f"pi-lsp: {warning}", types.MessageType.Warning)
    return resolved


def thinking_param(raw: Mapping[str, Any], method: str) -> str | None:
    value = raw.get("thinkingLevel")
    if value is None:
        return None
    if value not in THINKING_LEVELS:
        raise JsonRpcInvalidParams(
            f"{method}: 'thinkingLevel' must be off, minimal, low, medium, high or xhigh"
        )
    return str(value)


def list_models(ls: PiLanguageServer, sessions: ChatSessions, params: Any) -> dict[str, Any]:
    """The models of models.json and Pi's catalogue whose provider has a key (as ``pi
    --list-models`` lists them), or every model Pi knows with ``{"all": true}``; each with
    where its key comes from and, where pi-lsp cannot talk to it, why."""
    raw = read_params(params, MODELS)
    every = raw.get("all") is True
    config = models_config(ls)
    agent_dir = agent_dir_of(ls)
    sources: dict[str, str | None] = {}
    listed = []
    for info in catalogue_listing(config):
        if info.provider not in sources:
            sources[info.provider] = provider_key_source(config, info.provider, agent_dir)
        key_source = sources[info.provider]
        if not every and (key_source is None or info.unreachable is not None):
            continue
        listed.append(
            {
                "provider": info.provider,
                "id": info.id,
                "name": info.name,
                "api": info.api,
                "contextWindow": info.context_window,
                "maxTokens": info.max_tokens,
                "reasoning": info.reasoning,
                "input": list(info.input),
                "custom": info.custom,
                "hasKey": key_source is not None,
                "keySource": key_source,
                "unreachable": info.unreachable,
            }
        )
    providers = []
    for name, builtin in builtin_providers().items():
        entry = config.provider(name)
        fallback = builtin.fallback_model()
        if fallback is None:
            continue
        key_source = provider_key_source(config, name, agent_dir)
        reason = unreachable_reason(name, str(fallback.get("api")))
        providers.append(
            {
                "name": name,
                "title": builtin.name,
                "api": fallback.get("api"),
                "baseUrl": (entry.base_url if entry is not None else None)
                or builtin.base_url
                or fallback.get("baseUrl"),
                "models": len(builtin.models),
                "keyVariables": list(builtin.key_variables),
                "hasKey": key_source is not None,
                "keySource": key_source,
                "unreachable": reason,
            }
        )
    selected = sessions.selected
    return {
        "configPath": models_json_path(agent_dir),
        "models": listed,
        "builtinProviders": providers,
        "selected": {"provider": selected[0], "id": selected[1]} if selected else None,
    }


def select_model(ls: PiLanguageServer, sessions: ChatSessions, params: Any) -> dict[str, Any]:
    raw = read_params(params, SELECT)
    provider = string_param(raw, "provider", SELECT)
    model = string_param(raw, "model", SELECT)
    thinking = thinking_param(raw, SELECT)
    if raw.get("session") is not None or raw.get("file") is not None:
        if provider or model:  # unknown names fail before a session is opened
            choose(ls, SELECT, provider, model, [])
        held = sessions.get(ls, raw, SELECT, create=False, switching=True)
        sessions.switch_model(ls, held, SELECT, provider, model, thinking)
        return held.summary()
    if not provider and not model:
        raise JsonRpcInvalidParams(f"{SELECT}: give 'model' (and 'provider')")
    resolved = choose(ls, SELECT, provider, model, [])
    sessions.selected = (resolved.model.provider, resolved.model.id)
    return {"model": {"provider": resolved.model.provider, "id": resolved.model.id}}
