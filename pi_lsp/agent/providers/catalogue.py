"""Pi 0.85.0's built-in model catalogue: every provider and model Pi knows without a models.json.

``builtin_models.json`` holds, per provider of pi-ai's ``builtinProviders()`` (in Pi's order),
its display name, default base URL, the environment variables its key is read from, the model Pi
builds on for an id it does not list, how it logs in, and every model of its catalogue with the
fields of a models.json model entry (``id``, ``name``, ``api``, ``baseUrl``, ``reasoning``,
``input``, ``cost``, ``contextWindow``, ``maxTokens``, ``thinkingLevelMap``, ``compat``,
``headers``). It is loaded once, on first use.

The file is generated, never edited by hand::

    npm install --prefix DIR @earendil-works/pi-ai@0.85.0 @earendil-works/pi-coding-agent@0.85.0
    .venv/bin/python scripts/generate_model_catalogue.py --pi-home DIR

The script insists on version 0.85.0 of both packages: Pi's ``pi`` command carries the pi-ai of
its own version, while a pi-ai npm installs beside it may be a later release with other models.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

__all__ = [
    "BuiltinProvider",
    "builtin_model",
    "builtin_model_ids",
    "builtin_providers",
    "catalogue_pi_version",
    "default_models",
]

_DATA = "builtin_models.json"


@dataclass(frozen=True)
class BuiltinProvider:
    """One provider of Pi's catalogue."""

    id: str
    name: str
    #: the provider's default base URL; ``None`` where each model (or the user) gives it
    base_url: str | None
    #: the environment variables Pi reads the provider's credentials from, in Pi's order
    env_keys: tuple[str, ...]
    #: the model Pi copies for an id it does not list (``None``: the provider's first model)
    default_model: str | None
    #: the provider offers an OAuth login
    oauth: bool
    #: the provider takes a key (from the environment, auth.json or models.json)
    api_key: bool
    models: tuple[Mapping[str, Any], ...]

    def model(self, model_id: str) -> Mapping[str, Any] | None:
        """The catalogue entry of ``model_id`` (exact id)."""
        return _models_by_id(self.id).get(model_id)

    def fallback_model(self) -> Mapping[str, Any] | None:
        """The entry Pi builds an unlisted id of this provider on."""
        if not self.models:
            return None
        if self.default_model is not None:
            found = self.model(self.default_model)
            if found is not None:
                return found
        return self.models[0]

    @property
    def key_variables(self) -> tuple[str, ...]:
        """The variables that hold an API key (not an OAuth or bearer token)."""
        return tuple(
            name for name in self.env_keys if "OAUTH" not in name and "AUTH_TOKEN" not in name
        )


@cache
def _document() -> Mapping[str, Any]:
    text = resources.files(__package__).joinpath(_DATA).read_text(encoding="utf-8")
    document = json.loads(text)
    assert isinstance(document, dict)
    return document


@cache
def builtin_providers() -> Mapping[str, BuiltinProvider]:
    """Provider id → its catalogue entry, in Pi's order."""
    out: dict[str, BuiltinProvider] = {}
    for name, entry in _document()["providers"].items():
        out[name] = BuiltinProvider(
            id=name,
            name=entry["name"],
            base_url=entry.get("baseUrl"),
            env_keys=tuple(entry.get("envKeys") or ()),
            default_model=entry.get("defaultModel"),
            oauth=bool(entry.get("oauth")),
            api_key=bool(entry.get("apiKey")),
            models=tuple(entry["models"]),
        )
    return out


@cache
def _models_by_id(provider: str) -> Mapping[str, Mapping[str, Any]]:
    entry = builtin_providers().get(provider)
    return {} if entry is None else {str(m["id"]): m for m in entry.models}


def builtin_model(provider: str, model_id: str) -> Mapping[str, Any] | None:
    """The catalogue entry of ``provider/model_id``, if Pi lists it."""
    return _models_by_id(provider).get(model_id)


@cache
def builtin_model_ids() -> Mapping[str, Sequence[str]]:
    """Provider id → the ids its catalogue lists, in Pi's order."""
    return {name: tuple(str(m["id"]) for m in p.models) for name, p in builtin_providers().items()}


def default_models() -> list[tuple[str, str]]:
    """``(provider, model)`` of Pi's default model per provider, in the order Pi tries them
    when nothing names a model."""
    providers = builtin_providers()
    out = []
    for name in _document().get("defaultOrder") or ():
        provider = providers.get(name)
        if provider is not None and provider.default_model is not None:
            out.append((name, provider.default_model))
    return out


def catalogue_pi_version() -> str:
    """The Pi version the catalogue was generated from."""
    return str(_document()["pi"])
