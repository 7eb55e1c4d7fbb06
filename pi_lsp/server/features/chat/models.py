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
from pi_lsp.agent.providers.config import (
    BUILTIN_PROVIDERS,
    ModelChoiceError,
    ModelsConfig,
    ModelsConfigError,
    ResolvedModel,
    all_models,
    load_models_config,
    models_json_path,
    resolve_model,
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
    config = models_config(ls)
    agent_dir = agent_dir_of(ls)
    listed = []
    for info in all_models(config):
        try:
            key_source = resolve_model(
                config, info.provider, info.id, agent_dir=agent_dir, require_key=False
            ).key_source
        except ModelChoiceError:
            continue
        listed.append(
            {
                "provider": info.provider,
                "id": info.id,
                "name": info.name or info.id,
                "api": info.api,
                "baseUrl": info.base_url,
                "contextWindow": info.context_window,
                "maxTokens": info.max_tokens,
                "reasoning": info.reasoning,
                "input": list(info.input),
                "hasKey": key_source is not None,
                "keySource": key_source,
            }
        )
    providers = []
    for name, (api, base_url) in BUILTIN_PROVIDERS.items():
        entry = config.provider(name)
        try:
            probe = resolve_model(config, name, "-", agent_dir=agent_dir, require_key=False)
        except ModelChoiceError:
            continue
        providers.append(
            {
                "name": name,
                "api": api,
                "baseUrl": (entry.base_url if entry is not None else None) or base_url,
                "hasKey": probe.key_source is not None,
                "keySource": probe.key_source,
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
