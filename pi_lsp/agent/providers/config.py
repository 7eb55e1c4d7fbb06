"""Which model to talk to and with which key: Pi's built-in catalogue with models.json on top.

A built-in model is Pi's catalogue entry (:mod:`~pi_lsp.agent.providers.catalogue`) with the
agent dir's ``models.json`` (:mod:`~pi_lsp.agent.providers.models_file`) applied as Pi applies
it: the provider's ``baseUrl``, ``headers`` and ``compat`` over every model of it, then
``modelOverrides`` field by field; a ``models`` entry of a built-in provider takes its api and
base URL from the catalogue and replaces a listed model of the same id. An id the catalogue does
not list is built on the provider's default model, with Pi's warning. A model of a wire format
pi-lsp does not speak, or of a provider that only logs in by OAuth, is refused with why.

A key comes from ``auth.json`` (``{"provider": {"type": "api_key", "key": …}}``), else the
provider's environment variable (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``,
``GEMINI_API_KEY``, …, from the catalogue), else models.json ``apiKey``, as in Pi. Keys are
:class:`Secret` strings: their repr is ``'***'``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.agent.model_api import Api, ModelInfo
from pi_lsp.agent.providers.catalogue import (
    BuiltinProvider,
    builtin_model_ids,
    builtin_providers,
)
from pi_lsp.agent.providers.models_file import (
    AUTH_FILE_NAME,
    MODELS_FILE_NAME,
    ModelsConfig,
    ModelsConfigError,
    ProviderConfig,
    load_models_config,
    models_json_path,
    read_auth,
    resolve_config_value,
    resolve_headers,
)
from pi_lsp.agent.providers.secret import Secret

__all__ = [
    "AUTH_FILE_NAME",
    "CUSTOM_ID_WARNING",
    "MODELS_FILE_NAME",
    "SUPPORTED_APIS",
    "ListedModel",
    "ModelChoiceError",
    "ModelsConfig",
    "ModelsConfigError",
    "ProviderConfig",
    "ResolvedModel",
    "all_models",
    "catalogue_listing",
    "key_variables",
    "load_models_config",
    "models_json_path",
    "provider_key_source",
    "resolve_config_value",
    "resolve_model",
    "unreachable_reason",
]

SUPPORTED_APIS: tuple[Api, ...] = (
    "openai-completions",
    "anthropic-messages",
    "openai-responses",
    "google-generative-ai",
)
DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_MAX_TOKENS = 16_384

#: What keeps pi-lsp from reaching a model of each api it does not speak, as a user reads it.
_UNREACHABLE_APIS: dict[str, str] = {
    "bedrock-converse-stream": "signs its requests with AWS credentials",
    "google-vertex": "authenticates with Google Cloud credentials",
    "openai-codex-responses": "logs in with a ChatGPT account (OAuth)",
    "mistral-conversations": "speaks Mistral's conversations API",
    "azure-openai-responses": "needs an Azure resource URL",
}
#: ``{NAME}`` in a catalogue base URL: filled from the environment variable NAME
_URL_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
CUSTOM_ID_WARNING = 'Model "{model}" not found for provider "{provider}". Using custom model id.'


def key_variables(provider: str) -> tuple[str, ...]:
    """The environment variables an API key of a built-in ``provider`` is read from."""
    builtin = builtin_providers().get(provider)
    return () if builtin is None else builtin.key_variables


# ---------------------------------------------------------------------------------------------
# Errors


class ModelChoiceError(ValueError):
    """The ``--provider`` / ``--model`` choice does not name a usable model (or has no key)."""


# ---------------------------------------------------------------------------------------------
# Models and keys


@dataclass(frozen=True, slots=True)
class ResolvedModel:
    """A chosen model and the key for its provider (``key_source`` says where it came from)."""

    model: ModelInfo
    api_key: Secret | None = field(default=None, repr=False)
    key_source: str | None = None
    #: what the user should hear about the choice (Pi's "Using custom model id." line)
    warning: str | None = None


def _merge_compat(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` over ``base``; flags that are objects (routing, template args) merge too."""
    merged = {**base, **override}
    for key, value in override.items():
        below = base.get(key)
        if isinstance(value, dict) and isinstance(below, dict):
            merged[key] = {**below, **value}
    return merged


def _apply_override(definition: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """A ``modelOverrides`` entry over a model, field by field as Pi applies it."""
    merged = dict(definition)
    for key in ("name", "reasoning", "input", "contextWindow", "maxTokens"):
        if override.get(key) is not None:
            merged[key] = override[key]
    if override.get("thinkingLevelMap"):
        merged["thinkingLevelMap"] = {
            **(definition.get("thinkingLevelMap") or {}),
            **override["thinkingLevelMap"],
        }
    if override.get("cost"):
        cost = dict(definition.get("cost") or {})
        cost.update({k: v for k, v in override["cost"].items() if v is not None})
        merged["cost"] = cost
    if override.get("compat"):
        merged["compat"] = _merge_compat(definition.get("compat") or {}, override["compat"])
    return merged


def _fill_base_url(provider: str, model_id: str, base_url: str, env: Mapping[str, str]) -> str:
    """A catalogue base URL with its ``{NAME}`` placeholders taken from the environment."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if not env.get(name):
            raise ModelChoiceError(f"{provider}/{model_id}: set ${name}: its base URL needs it")
        return env[name]

    return _URL_PLACEHOLDER.sub(value, base_url)


def unreachable_reason(provider: str, api: str) -> str | None:
    """Why pi-lsp cannot talk to a model of ``provider`` on ``api``, or ``None`` if it can."""
    builtin = builtin_providers().get(provider)
    if builtin is not None and not builtin.api_key and builtin.oauth:
        return f"{builtin.name} logs in with OAuth, which pi-lsp cannot do yet"
    if api in SUPPORTED_APIS:
        return None
    why = _UNREACHABLE_APIS.get(api, f'speaks the api "{api}"')
    return f"it {why}, and pi-lsp speaks only {', '.join(SUPPORTED_APIS)}"


def _model_info(
    provider: str,
    definition: Mapping[str, Any],
    *,
    api: str,
    base_url: str,
    headers: dict[str, str],
) -> ModelInfo:
    reason = unreachable_reason(provider, api)
    if reason is not None:
        raise ModelChoiceError(f"pi-lsp cannot reach {provider}/{definition['id']} yet: {reason}")
    cost = definition.get("cost") or {}
    return ModelInfo(
        id=definition["id"],
        provider=provider,
        api=api,  # type: ignore[arg-type]  # checked by unreachable_reason
        base_url=base_url,
        context_window=int(definition.get("contextWindow") or DEFAULT_CONTEXT_WINDOW),
        max_tokens=int(definition.get("maxTokens") or DEFAULT_MAX_TOKENS),
        reasoning=bool(definition.get("reasoning", False)),
        input=tuple(definition.get("input") or ("text",)),
        name=definition.get("name") or definition["id"],
        compat=dict(definition.get("compat") or {}),
        cost={k: float(v) for k, v in cost.items() if isinstance(v, int | float)},
        headers=headers,
        thinking_level_map=dict(definition.get("thinkingLevelMap") or {}),
    )


def _api_key(
    provider: str,
    config: ModelsConfig,
    env: Mapping[str, str] | None,
    agent_dir: str | None,
) -> tuple[Secret | None, str | None]:
    environ = os.environ if env is None else env
    stored = read_auth(agent_dir).get(provider)
    if isinstance(stored, dict) and stored.get("type") == "api_key":
        key = stored.get("key")
        value = resolve_config_value(key, env) if isinstance(key, str) and key else None
        if value:
            return Secret(value), AUTH_FILE_NAME
    for variable in key_variables(provider):
        if environ.get(variable):
            return Secret(environ[variable]), f"${variable}"
    entry = config.provider(provider)
    if entry is not None and entry.api_key:
        value = resolve_config_value(entry.api_key, env)
        if value:
            return Secret(value), MODELS_FILE_NAME
    return None, None


def provider_key_source(
    config: ModelsConfig,
    provider: str,
    agent_dir: str | None,
    env: Mapping[str, str] | None = None,
) -> str | None:
    """Where the key of ``provider`` would come from (``$VAR``, auth.json, models.json)."""
    return _api_key(provider, config, env, agent_dir)[1]


def _custom_models(config: ModelsConfig) -> list[tuple[str, Mapping[str, Any]]]:
    return [(name, model) for name, entry in config.providers.items() for model in entry.models]


def _known_provider(config: ModelsConfig, name: str) -> bool:
    return name in builtin_providers() or bool(
        config.provider(name) and config.providers[name].models
    )


def _split_choice(
    config: ModelsConfig, provider: str | None, model: str | None
) -> tuple[str | None, str | None]:
    if provider or not model or "/" not in model:
        return provider, model
    head, tail = model.split("/", 1)
    if _known_provider(config, head) and tail:
        return head, tail
    return provider, model


def _defaults_for(builtin: BuiltinProvider, model_id: str, api: str | None) -> Mapping[str, Any]:
    """The built-in model a models.json model of a built-in provider takes api and URL from."""
    for wanted in ((("id", model_id),) + ((("api", api),) if api else ())) + (
        ("api", "openai-completions"),
    ):
        for model in builtin.models:
            if model.get(wanted[0]) == wanted[1]:
                return model
    return builtin.models[0] if builtin.models else {}


def _custom_model(
    provider: str,
    definition: Mapping[str, Any],
    entry: ProviderConfig,
    env: Mapping[str, str] | None,
    key: str | None,
) -> ModelInfo:
    """A model that models.json defines (for a provider of its own or a built-in one)."""
    builtin = builtin_providers().get(provider)
    defaults = (
        _defaults_for(builtin, definition["id"], definition.get("api") or entry.api)
        if (builtin is not None)
        else {}
    )
    headers = resolve_headers(entry.headers, env)
    headers.update(resolve_headers(definition.get("headers") or {}, env))
    if entry.auth_header and key:
        headers["Authorization"] = Secret(f"Bearer {key}")
    merged = dict(definition)
    merged["compat"] = _merge_compat(entry.compat, definition.get("compat") or {})
    override = entry.model_overrides.get(definition["id"])
    if override:
        merged = _apply_override(merged, override)
        headers.update(resolve_headers(override.get("headers") or {}, env))
    api = definition.get("api") or entry.api or defaults.get("api") or ""
    base_url = definition.get("baseUrl") or entry.base_url or defaults.get("baseUrl") or ""
    return _model_info(provider, merged, api=api, base_url=base_url, headers=headers)


def _catalogue_model(
    builtin: BuiltinProvider,
    model_id: str,
    entry: ProviderConfig | None,
    env: Mapping[str, str] | None,
    key: str | None,
) -> tuple[ModelInfo, str | None]:
    """A model of Pi's catalogue with models.json's provider settings and overrides on top.

    An id the catalogue does not list is built, as Pi builds it, on the provider's default
    model (with that id and name) and comes with Pi's warning.
    """
    warning = None
    definition = builtin.model(model_id)
    if definition is None:
        base = builtin.fallback_model()
        if base is None:
            raise ModelChoiceError(f'provider "{builtin.id}" lists no models')
        definition = {**base, "id": model_id, "name": model_id}
        warning = CUSTOM_ID_WARNING.format(model=model_id, provider=builtin.id)
    merged = dict(definition)
    headers = resolve_headers(definition.get("headers") or {}, env)
    base_url = str(definition.get("baseUrl") or builtin.base_url or "")
    if entry is not None:
        base_url = entry.base_url or base_url
        merged["compat"] = _merge_compat(definition.get("compat") or {}, entry.compat)
        headers.update(resolve_headers(entry.headers, env))
        override = entry.model_overrides.get(model_id)
        if override:
            merged = _apply_override(merged, override)
            headers.update(resolve_headers(override.get("headers") or {}, env))
        if entry.auth_header and key:
            headers["Authorization"] = Secret(f"Bearer {key}")
    api = str(merged.get("api") or "")
    if unreachable_reason(builtin.id, api) is None:
        base_url = _fill_base_url(
            builtin.id, model_id, base_url, os.environ if env is None else env
        )
    return _model_info(builtin.id, merged, api=api, base_url=base_url, headers=headers), warning


def _build(
    provider: str,
    model_id: str,
    config: ModelsConfig,
    env: Mapping[str, str] | None,
    key: str | None,
) -> tuple[ModelInfo, str | None] | None:
    entry = config.provider(provider)
    if entry is not None:
        for definition in entry.models:
            if definition["id"] == model_id:
                return _custom_model(provider, definition, entry, env, key), None
    builtin = builtin_providers().get(provider)
    if builtin is None:
        return None
    return _catalogue_model(builtin, model_id, entry, env, key)


def _owner_of(
    config: ModelsConfig, model: str, env: Mapping[str, str] | None, agent_dir: str | None
) -> tuple[str, str]:
    """The provider of a bare ``--model`` id and the id as it is listed, as Pi finds them.

    Candidates are the models.json models and the ids of Pi's built-in catalogue whose id (or
    ``provider/id``) is ``model``, ignoring case. One candidate is the choice; of several, the
    only one whose provider has a key; otherwise the choice is ambiguous.
    """
    wanted = model.lower()
    listed = [(name, str(entry["id"])) for name, entry in _custom_models(config)]
    listed += [(name, i) for name, ids in builtin_model_ids().items() for i in ids]
    owners: dict[tuple[str, str], tuple[str, str]] = {}
    for name, model_id in listed:
        if wanted in (model_id.lower(), f"{name}/{model_id}".lower()):
            owners.setdefault((name, model_id.lower()), (name, model_id))
    found = list(owners.values())
    if len(found) == 1:
        return found[0]
    if not found:
        raise ModelChoiceError(f'unknown model "{model}" ({_describe_choices(config)})')
    with_key = [owner for owner in found if _api_key(owner[0], config, env, agent_dir)[0]]
    if len(with_key) == 1:
        return with_key[0]
    names = ", ".join(sorted(f"{name}/{model_id}" for name, model_id in found))
    keys = "none of them has an API key" if not with_key else "more than one has an API key"
    raise ModelChoiceError(
        f'model "{model}" is offered by several providers ({names}) and {keys}: '
        "give --provider, or --model provider/id"
    )


def _describe_choices(config: ModelsConfig) -> str:
    custom = [f"{name}/{model['id']}" for name, model in _custom_models(config)]
    listed = ", ".join(custom) if custom else "none"
    return (
        f"models in models.json: {listed}; `pi-lsp chat --list-models --all` lists the "
        f"{sum(len(ids) for ids in builtin_model_ids().values())} built-in ones"
    )


def resolve_model(
    config: ModelsConfig,
    provider: str | None = None,
    model: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    agent_dir: str | None = None,
    require_key: bool = True,
) -> ResolvedModel:
    """The model for a ``--provider`` / ``--model`` choice (``--model provider/id`` works too).

    Without a provider, ``model`` is looked up among the models.json models and Pi's
    built-in catalogue (:func:`_owner_of`); a provider alone picks its first models.json
    model, else Pi's default model of a built-in provider. Raises :class:`ModelChoiceError`.
    """
    provider, model = _split_choice(config, provider, model)
    if not provider and not model:
        raise ModelChoiceError("no model chosen: give --provider and --model")
    if not provider:
        assert model is not None
        provider, model = _owner_of(config, model, env, agent_dir)
    if not model:
        entry = config.provider(provider)
        builtin = builtin_providers().get(provider)
        if entry is not None and entry.models:
            model = str(entry.models[0]["id"])
        elif builtin is not None and builtin.fallback_model() is not None:
            model = str(builtin.fallback_model()["id"])  # type: ignore[index]
        else:
            raise ModelChoiceError(f'no model given for provider "{provider}": give --model')
    key, source = _api_key(provider, config, env, agent_dir)
    built = _build(provider, model, config, env, key)
    if built is None:
        if config.provider(provider) is not None and config.providers[provider].models:
            raise ModelChoiceError(
                f'provider "{provider}" has no model "{model}" ({_describe_choices(config)})'
            )
        raise ModelChoiceError(f'unknown provider "{provider}" ({_describe_choices(config)})')
    info, warning = built
    if require_key and key is None:
        hint = [f"${name}" for name in key_variables(provider)]
        hint.append(f'"apiKey" for "{provider}" in {config.path or MODELS_FILE_NAME}')
        raise ModelChoiceError(f'no API key for provider "{provider}": set {" or ".join(hint)}')
    return ResolvedModel(model=info, api_key=key, key_source=source, warning=warning)


@dataclass(frozen=True, slots=True)
class ListedModel:
    """One model a listing shows: its data, and whether and why pi-lsp can reach it."""

    provider: str
    id: str
    name: str
    api: str
    context_window: int
    max_tokens: int
    reasoning: bool
    input: tuple[str, ...]
    #: from models.json (else Pi's catalogue)
    custom: bool
    #: why pi-lsp cannot talk to it, or ``None``
    unreachable: str | None


def _listed(provider: str, definition: Mapping[str, Any], api: str, custom: bool) -> ListedModel:
    return ListedModel(
        provider=provider,
        id=str(definition["id"]),
        name=str(definition.get("name") or definition["id"]),
        api=api,
        context_window=int(definition.get("contextWindow") or DEFAULT_CONTEXT_WINDOW),
        max_tokens=int(definition.get("maxTokens") or DEFAULT_MAX_TOKENS),
        reasoning=bool(definition.get("reasoning", False)),
        input=tuple(definition.get("input") or ("text",)),
        custom=custom,
        unreachable=unreachable_reason(provider, api),
    )


def catalogue_listing(config: ModelsConfig) -> list[ListedModel]:
    """Every model Pi would know: the built-in catalogue with models.json on top, as Pi merges
    them (a models.json model of a listed id replaces it; overrides apply to all)."""
    out: list[ListedModel] = []
    seen: set[tuple[str, str]] = set()
    for name, entry in config.providers.items():
        builtin = builtin_providers().get(name)
        for definition in entry.models:
            merged = _apply_override(definition, entry.model_overrides.get(definition["id"]) or {})
            defaults = (
                _defaults_for(builtin, definition["id"], definition.get("api") or entry.api)
                if builtin is not None
                else {}
            )
            api = str(definition.get("api") or entry.api or defaults.get("api") or "")
            out.append(_listed(name, merged, api, True))
            seen.add((name, str(definition["id"])))
    for name, builtin in builtin_providers().items():
        overrides = entry_of.model_overrides if (entry_of := config.provider(name)) else {}
        for definition in builtin.models:
            if (name, str(definition["id"])) in seen:
                continue
            override = overrides.get(definition["id"])
            merged = _apply_override(definition, override or {})
            out.append(_listed(name, merged, str(definition.get("api") or ""), False))
    return out


def all_models(config: ModelsConfig, env: Mapping[str, str] | None = None) -> Sequence[ModelInfo]:
    """Every models.json model pi-lsp can talk to (for listings and completion)."""
    out: list[ModelInfo] = []
    for name, definition in _custom_models(config):
        try:
            built = _build(name, str(definition["id"]), config, env, None)
        except ModelChoiceError:
            continue
        if built is not None:
            out.append(built[0])
    return out
