"""Pi's ``models.json`` and ``auth.json`` as written: read, checked, and their references resolved.

``<agentDir>/models.json`` (the same file Pi reads)::

    {"providers": {
        "local": {"baseUrl": "http://localhost:8080/v1", "api": "openai-completions",
                  "apiKey": "LOCAL_KEY", "headers": {"X-Team": "$TEAM_ID"},
                  "compat": {...}, "authHeader": false,
                  "models": [{"id": "qwen", "contextWindow": 32768, "maxTokens": 8192,
                              "reasoning": true, "input": ["text", "image"],
                              "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                              "compat": {"maxTokensField": "max_tokens"}}]},
        "openai": {"baseUrl": "https://proxy.example/v1",
                   "modelOverrides": {"gpt-4.1": {"contextWindow": 1000000}}}}}

A provider of its own with ``models`` defines them (``baseUrl``, ``apiKey`` and an ``api`` are
required); an entry for a built-in provider may add models (taking api and base URL from Pi's
catalogue) or only set its base URL, headers, compat flags, key or single models' overrides.
Values of ``apiKey`` and ``headers`` are references, resolved when used: ``!command`` (its
output, cached; ``!!command`` runs every time), else a template as Pi 0.85 reads it:
``$NAME`` / ``${NAME}`` anywhere in the text take that environment variable (``Bearer $TOKEN``),
``$$`` is a ``$`` and ``$!`` a ``!``, and the rest is literal — a bare ``NAME`` is sent as the
text NAME (the oracle showed it; older notes said a set variable's name resolved to its value).

``auth.json`` holds stored keys, ``{"provider": {"type": "api_key", "key": …}}``
(:func:`read_auth`; which key wins is :mod:`~pi_lsp.agent.providers.config`'s business).

A models.json that cannot be used raises :class:`ModelsConfigError` naming the file, line and
column (of the JSON error, or of the member that breaks the schema).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pi_lsp.agent.providers.catalogue import builtin_providers
from pi_lsp.agent.providers.secret import Secret
from pi_lsp.js.json_document import JsonDocument, JsonSyntaxError, parse_json_document
from pi_lsp.regular_files import MAX_RESOURCE_FILE_BYTES, read_regular_file
from pi_lsp.resources.agent_dir import LineIndex, decode_text

__all__ = [
    "AUTH_FILE_NAME",
    "MODELS_FILE_NAME",
    "ModelsConfig",
    "ModelsConfigError",
    "ProviderConfig",
    "load_models_config",
    "models_json_path",
    "read_auth",
    "resolve_config_value",
    "resolve_headers",
]

MODELS_FILE_NAME = "models.json"
AUTH_FILE_NAME = "auth.json"
_COMMAND_TIMEOUT_S = 10
_command_cache: dict[str, str | None] = {}


class ModelsConfigError(ValueError):
    """models.json cannot be used; ``line`` and ``column`` are 1-based."""

    def __init__(self, path: str, line: int, column: int, message: str) -> None:
        super().__init__(f"{path}:{line}:{column}: {message}")
        self.path = path
        self.line = line
        self.column = column
        self.message = message


# ---------------------------------------------------------------------------------------------
# Config values


def _run_command(command: str) -> str | None:
    try:
        completed = subprocess.run(
            command,
            shell=True,
            capture_output=True,
            text=True,
            timeout=_COMMAND_TIMEOUT_S,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if completed.returncode != 0:
        return None
    return completed.stdout.strip() or None


def resolve_config_value(value: str, env: Mapping[str, str] | None = None) -> str | None:
    """An ``apiKey`` or header value as Pi resolves it (see the module docstring)."""
    environ = os.environ if env is None else env
    if value.startswith("!!"):
        return _run_command(value[2:])
    if value.startswith("!"):
        command = value[1:]
        if command not in _command_cache:
            _command_cache[command] = _run_command(command)
        return _command_cache[command]
    return _interpolate(value, environ)


def _name_at(text: str, start: int) -> int:
    """The end of an environment variable name starting at ``start`` (``start``: none)."""
    end = start
    while end < len(text) and (text[end] == "_" or (text[end].isascii() and text[end].isalnum())):
        if end == start and text[end].isdigit():
            return start
        end += 1
    return end


def _interpolate(value: str, environ: Mapping[str, str]) -> str | None:
    """Pi 0.85's template: ``$NAME`` and ``${NAME}`` anywhere take that variable (a variable
    unset or empty leaves the whole value unresolved), ``$$`` is ``$`` and ``$!`` is ``!``;
    everything else is literal (a bare ``NAME`` is the text NAME, as Pi sends it)."""
    out: list[str] = []
    index = 0
    while index < len(value):
        dollar = value.find("$", index)
        if dollar < 0:
            out.append(value[index:])
            break
        out.append(value[index:dollar])
        following = value[dollar + 1 : dollar + 2]
        if following in ("$", "!"):
            out.append(following)
            index = dollar + 2
            continue
        if following == "{":
            close = value.find("}", dollar + 2)
            name = value[dollar + 2 : close] if close >= 0 else ""
            if close < 0:
                out.append("$")
                index = dollar + 1
            elif name and _name_at(name, 0) == len(name):
                if not environ.get(name):
                    return None
                out.append(environ[name])
                index = close + 1
            else:
                out.append(value[dollar : close + 1])
                index = close + 1
            continue
        end = _name_at(value, dollar + 1)
        if end == dollar + 1:
            out.append("$")
            index = dollar + 1
            continue
        name = value[dollar + 1 : end]
        if not environ.get(name):
            return None
        out.append(environ[name])
        index = end
    return "".join(out)


def resolve_headers(headers: Mapping[str, str], env: Mapping[str, str] | None) -> dict[str, str]:
    resolved: dict[str, str] = {}
    for name, value in headers.items():
        text = resolve_config_value(value, env)
        if text:
            resolved[name] = text if text == value else Secret(text)
    return resolved


# ---------------------------------------------------------------------------------------------
# The file


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """One entry of ``providers`` as written (references unresolved)."""

    name: str
    base_url: str | None = None
    api: str | None = None
    api_key: str | None = field(default=None, repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)
    auth_header: bool = False
    #: compat flags for every model of the provider (a model's own flags win)
    compat: Mapping[str, Any] = field(default_factory=dict)
    models: tuple[Mapping[str, Any], ...] = ()
    model_overrides: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ModelsConfig:
    """A parsed, validated models.json (``path`` None: there is none)."""

    path: str | None = None
    providers: Mapping[str, ProviderConfig] = field(default_factory=dict)

    def provider(self, name: str) -> ProviderConfig | None:
        return self.providers.get(name)


def models_json_path(agent_dir: str) -> str:
    return os.path.join(agent_dir, MODELS_FILE_NAME)


class _Validator:
    """Checks the parsed document against Pi's schema; errors point at the offending member."""

    def __init__(self, path: str, text: str, document: JsonDocument) -> None:
        self.path = path
        self.lines = LineIndex(text)
        self.members = {m.path: m for m in document.members}

    def fail(self, where: tuple[str, ...], message: str) -> ModelsConfigError:
        for length in range(len(where), 0, -1):
            member = self.members.get(where[:length])
            if member is not None:
                line, column = self.lines.position(member.key_start)
                return ModelsConfigError(self.path, line + 1, column + 1, message)
        return ModelsConfigError(self.path, 1, 1, message)

    def string(self, value: Any, where: tuple[str, ...], label: str) -> str | None:
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            raise self.fail(where, f"{label}: must be a non-empty string")
        return value

    def boolean(self, value: Any, where: tuple[str, ...], label: str) -> bool | None:
        if value is None or isinstance(value, bool):
            return value
        raise self.fail(where, f"{label}: must be true or false")

    def positive(self, value: Any, where: tuple[str, ...], label: str) -> None:
        if value is None:
            return
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise self.fail(where, f"{label}: must be a positive number")

    def headers(self, value: Any, where: tuple[str, ...], label: str) -> dict[str, str]:
        if value is None:
            return {}
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise self.fail(where, f"{label}: must be an object of strings")
        return dict(value)

    def model_fields(self, model: Mapping[str, Any], where: tuple[str, ...], label: str) -> None:
        self.string(model.get("name"), where, f"{label}.name")
        self.string(model.get("api"), where, f"{label}.api")
        self.boolean(model.get("reasoning"), where, f"{label}.reasoning")
        self.positive(model.get("contextWindow"), where, f"{label}.contextWindow")
        self.positive(model.get("maxTokens"), where, f"{label}.maxTokens")
        self.headers(model.get("headers"), where, f"{label}.headers")
        given = model.get("input")
        if given is not None and (
            not isinstance(given, list) or any(kind not in ("text", "image") for kind in given)
        ):
            raise self.fail(where, f'{label}.input: must be a list of "text" and "image"')
        cost = model.get("cost")
        if cost is not None and (
            not isinstance(cost, dict)
            or any(isinstance(v, bool) or not isinstance(v, int | float) for v in cost.values())
        ):
            raise self.fail(where, f"{label}.cost: must be an object of numbers")
        if model.get("compat") is not None and not isinstance(model.get("compat"), dict):
            raise self.fail(where, f"{label}.compat: must be an object")

    def provider(self, name: str, raw: Any) -> ProviderConfig:
        where = ("providers", name)
        label = f"providers.{name}"
        if not isinstance(raw, dict):
            raise self.fail(where, f"{label}: must be an object")
        base_url = self.string(raw.get("baseUrl"), (*where, "baseUrl"), f"{label}.baseUrl")
        api = self.string(raw.get("api"), (*where, "api"), f"{label}.api")
        api_key = self.string(raw.get("apiKey"), (*where, "apiKey"), f"{label}.apiKey")
        headers = self.headers(raw.get("headers"), (*where, "headers"), f"{label}.headers")
        auth_header = self.boolean(
            raw.get("authHeader"), (*where, "authHeader"), f"{label}.authHeader"
        )
        compat = raw.get("compat")
        if compat is not None and not isinstance(compat, dict):
            raise self.fail((*where, "compat"), f"{label}.compat: must be an object")
        builtin = name in builtin_providers()
        models = raw.get("models", [])
        models_where = (*where, "models")
        if not isinstance(models, list):
            raise self.fail(models_where, f"{label}.models: must be a list")
        for index, model in enumerate(models):
            model_label = f"{label}.models[{index}]"
            if not isinstance(model, dict):
                raise self.fail(models_where, f"{model_label}: must be an object")
            if not isinstance(model.get("id"), str) or not model["id"]:
                raise self.fail(models_where, f'{model_label}: needs an "id"')
            model_label += f' ("{model["id"]}")'
            self.model_fields(model, models_where, model_label)
            if not api and not model.get("api") and not builtin:
                raise self.fail(
                    models_where, f'{model_label}: no "api" given, at provider or model level'
                )
        overrides = raw.get("modelOverrides", {})
        overrides_where = (*where, "modelOverrides")
        if not isinstance(overrides, dict):
            raise self.fail(overrides_where, f"{label}.modelOverrides: must be an object")
        for model_id, override in overrides.items():
            override_where = (*overrides_where, model_id)
            override_label = f"{label}.modelOverrides.{model_id}"
            if not isinstance(override, dict):
                raise self.fail(override_where, f"{override_label}: must be an object")
            self.model_fields(override, override_where, override_label)
        if models and not builtin:
            if not base_url:
                raise self.fail(where, f'{label}: "baseUrl" is required when defining models')
            if not api_key:
                raise self.fail(where, f'{label}: "apiKey" is required when defining models')
        elif builtin:
            touches = (models, base_url, overrides, api_key, headers, compat, auth_header)
            if all(value is None or value == [] or value == {} for value in touches):
                raise self.fail(
                    where,
                    f'{label}: give "baseUrl", "headers", "compat", "apiKey", '
                    '"modelOverrides" or "models"',
                )
        elif not base_url and not overrides:
            raise self.fail(where, f'{label}: give "baseUrl", "modelOverrides" or "models"')
        return ProviderConfig(
            name=name,
            base_url=base_url,
            api=api,
            api_key=api_key,
            headers=headers,
            auth_header=bool(auth_header),
            compat=dict(compat or {}),
            models=tuple(models),
            model_overrides=dict(overrides),
        )


def load_models_config(path: str) -> ModelsConfig:
    """Read and check a models.json; a missing file is an empty config."""
    try:
        raw = read_regular_file(path, MAX_RESOURCE_FILE_BYTES)
    except FileNotFoundError:
        return ModelsConfig()
    except OSError as error:
        raise ModelsConfigError(path, 1, 1, f"cannot read: {error.strerror or error}") from None
    text = decode_text(raw)[0]
    try:
        document = parse_json_document(text)
    except JsonSyntaxError as error:
        line, column = LineIndex(text).position(error.offset)
        raise ModelsConfigError(path, line + 1, column + 1, error.message) from None
    validator = _Validator(path, text, document)
    root = document.value
    if not isinstance(root, dict):
        raise validator.fail((), "the file must hold a JSON object")
    providers = root.get("providers")
    if not isinstance(providers, dict):
        raise validator.fail(("providers",), '"providers" must be an object')
    parsed = {name: validator.provider(name, value) for name, value in providers.items()}
    return ModelsConfig(path=path, providers=parsed)


def read_auth(agent_dir: str | None) -> Mapping[str, Any]:
    if agent_dir is None:
        return {}
    try:
        raw = read_regular_file(os.path.join(agent_dir, AUTH_FILE_NAME), MAX_RESOURCE_FILE_BYTES)
        document = parse_json_document(decode_text(raw)[0])
    except (OSError, JsonSyntaxError):
        return {}
    return document.value if isinstance(document.value, dict) else {}
