"""models.json, auth.json and environment keys: from ``--provider``/``--model`` to a model + key."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.agent.model_api import ModelRequest
from pi_lsp.agent.providers.config import (
    ModelChoiceError,
    ModelsConfig,
    ModelsConfigError,
    all_models,
    load_models_config,
    models_json_path,
    resolve_config_value,
    resolve_model,
)
from pi_lsp.agent.providers.secret import Secret, redact

ORACLE_LIKE = {
    "providers": {
        "oracle": {
            "baseUrl": "http://127.0.0.1:8123/v1",
            "api": "openai-completions",
            "apiKey": "oracle",
            "compat": {"supportsDeveloperRole": False},
            "models": [
                {
                    "id": "oracle-model",
                    "reasoning": False,
                    "input": ["text"],
                    "contextWindow": 20000,
                    "maxTokens": 16384,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
                    "compat": {"supportsDeveloperRole": False, "supportsReasoningEffort": False},
                }
            ],
        },
        "local": {
            "baseUrl": "http://localhost:8080/v1",
            "api": "openai-completions",
            "apiKey": "$LOCAL_KEY",
            "headers": {"X-Team": "$TEAM_ID", "X-Fixed": "literal value"},
            "authHeader": True,
            "models": [
                {"id": "qwen", "name": "Qwen", "reasoning": True, "input": ["text", "image"]},
                {"id": "claude-proxy", "api": "anthropic-messages", "headers": {"X-Model": "m"}},
            ],
        },
        "groq": {
            "baseUrl": "https://proxy.example/v1",
            "modelOverrides": {
                "llama-3.3-70b-versatile": {"contextWindow": 1047576, "maxTokens": 32768}
            },
        },
    }
}


def write(folder: Path, data: Any, name: str = "models.json") -> str:
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), "utf-8")
    return str(path)


@pytest.fixture
def config(tmp_path: Path) -> ModelsConfig:
    return load_models_config(write(tmp_path, ORACLE_LIKE))


def test_custom_model_with_defaults_and_literal_key(config: ModelsConfig) -> None:
    resolved = resolve_model(config, "oracle", "oracle-model", env={})
    model = resolved.model
    assert (model.id, model.provider, model.api) == ("oracle-model", "oracle", "openai-completions")
    assert model.base_url == "http://127.0.0.1:8123/v1"
    assert (model.context_window, model.max_tokens, model.reasoning) == (20000, 16384, False)
    assert model.input == ("text",) and model.name == "oracle-model"
    assert model.compat == {"supportsDeveloperRole": False, "supportsReasoningEffort": False}
    assert model.cost == {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
    assert resolved.api_key == "oracle" and resolved.key_source == "models.json"


def test_env_references_headers_and_auth_header(config: ModelsConfig) -> None:
    env = {"LOCAL_KEY": "sk-local-secret", "TEAM_ID": "team-42"}
    resolved = resolve_model(config, "local", "qwen", env=env)
    model = resolved.model
    assert resolved.api_key == "sk-local-secret"
    assert model.headers == {
        "X-Team": "team-42",
        "X-Fixed": "literal value",
        "Authorization": "Bearer sk-local-secret",
    }
    assert model.context_window == 128_000 and model.max_tokens == 16_384  # Pi's defaults
    assert model.reasoning and model.accepts_images and model.name == "Qwen"
    proxy = resolve_model(config, "local", "claude-proxy", env=env).model
    assert proxy.api == "anthropic-messages" and proxy.headers["X-Model"] == "m"
    # secrets never show in reprs
    shown = (
        repr(resolved) + repr(model) + repr(ModelRequest(model, "", [], api_key=resolved.api_key))
    )
    assert "sk-local-secret" not in shown and "team-42" not in shown
    assert "literal value" in shown


def test_builtin_provider_with_env_key_and_overrides(config: ModelsConfig) -> None:
    env = {"GROQ_API_KEY": "sk-env"}
    resolved = resolve_model(config, "groq", "llama-3.3-70b-versatile", env=env)
    assert resolved.api_key == "sk-env" and resolved.key_source == "$GROQ_API_KEY"
    assert resolved.model.base_url == "https://proxy.example/v1"
    assert resolved.model.context_window == 1047576 and resolved.model.max_tokens == 32768
    # an id Pi does not list is built on the provider's default model (openai/gpt-oss-120b)
    other = resolve_model(config, "groq", "gpt-5", env=env)
    assert (other.model.context_window, other.model.max_tokens) == (131_072, 65_536)
    assert other.warning is not None and "Using custom model id" in other.warning
    anthropic = resolve_model(
        ModelsConfig(), model="anthropic/claude-x", env={"ANTHROPIC_API_KEY": "k"}
    )
    assert anthropic.model.api == "anthropic-messages"
    assert anthropic.model.base_url == "https://api.anthropic.com"


def test_key_precedence(tmp_path: Path, config: ModelsConfig) -> None:
    env = {"LOCAL_KEY": "from-models-json-ref"}
    assert resolve_model(config, "local", "qwen", env=env).api_key == "from-models-json-ref"
    write(tmp_path, {"local": {"type": "api_key", "key": "from-auth"}}, "auth.json")
    resolved = resolve_model(config, "local", "qwen", env=env, agent_dir=str(tmp_path))
    assert resolved.api_key == "from-auth" and resolved.key_source == "auth.json"
    # the provider's environment variable beats the models.json key
    mixed = load_models_config(
        write(
            tmp_path,
            {"providers": {"groq": {"baseUrl": "http://x/v1", "apiKey": "in-file"}}},
            "m2.json",
        )
    )
    assert resolve_model(mixed, "groq", "gpt", env={"GROQ_API_KEY": "env"}).api_key == "env"
    assert resolve_model(mixed, "groq", "gpt", env={}).api_key == "in-file"


def test_choice_forms(config: ModelsConfig) -> None:
    env = {"LOCAL_KEY": "k"}
    assert resolve_model(config, model="qwen", env=env).model.provider == "local"
    assert resolve_model(config, model="local/qwen", env=env).model.id == "qwen"
    assert resolve_model(config, "local", env=env).model.id == "qwen"  # first model
    # a model id with a slash stays whole when the first part is no provider
    routed = load_models_config_dict(
        {
            "providers": {
                "router": {
                    "baseUrl": "http://r/v1",
                    "api": "openai-completions",
                    "apiKey": "k",
                    "models": [{"id": "vendor/model-1"}],
                }
            }
        }
    )
    assert resolve_model(routed, model="vendor/model-1", env={}).model.id == "vendor/model-1"
    assert resolve_model(routed, "router", "vendor/model-1", env={}).model.provider == "router"


def load_models_config_dict(data: Any) -> ModelsConfig:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        return load_models_config(write(Path(folder), data))


@pytest.mark.parametrize(
    ("provider", "model", "env", "needle"),
    [
        (None, None, {}, "no model chosen"),
        (None, "nope", {}, 'unknown model "nope"'),
        ("nobody", "x", {}, 'unknown provider "nobody"'),
        ("local", "missing", {"LOCAL_KEY": "k"}, 'provider "local" has no model "missing"'),
        ("groq", "gpt", {}, 'no API key for provider "groq": set $GROQ_API_KEY'),
    ],
)
def test_choice_errors(
    config: ModelsConfig, provider: str | None, model: str | None, env: dict[str, str], needle: str
) -> None:
    with pytest.raises(ModelChoiceError) as caught:
        resolve_model(config, provider, model, env=env)
    assert needle in str(caught.value)
    if "unknown" in needle:
        assert "oracle/oracle-model" in str(caught.value)


def test_ambiguous_and_unsupported(tmp_path: Path) -> None:
    data = {
        "providers": {
            "a": {
                "baseUrl": "http://a",
                "api": "openai-completions",
                "apiKey": "k",
                "models": [{"id": "same"}],
            },
            "b": {
                "baseUrl": "http://b",
                "api": "bedrock-converse-stream",
                "apiKey": "k",
                "models": [{"id": "same"}, {"id": "resp"}],
            },
        }
    }
    config = load_models_config(write(tmp_path, data))
    with pytest.raises(ModelChoiceError, match="several providers"):
        resolve_model(config, model="same", env={})
    with pytest.raises(ModelChoiceError, match=r"cannot reach b/resp yet: .*AWS credentials"):
        resolve_model(config, "b", "resp", env={})
    assert [m.id for m in all_models(config, env={})] == ["same"]


def test_no_key_allowed_when_not_required(config: ModelsConfig) -> None:
    resolved = resolve_model(config, "anthropic", "claude", env={}, require_key=False)
    assert resolved.api_key is None and resolved.key_source is None


def test_missing_file_is_empty(tmp_path: Path) -> None:
    config = load_models_config(models_json_path(str(tmp_path)))
    assert config.providers == {} and config.path is None


def test_json_syntax_error_names_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n  "providers": {\n    "x": {"baseUrl": "http://x",}\n  }\n}\n')
    with pytest.raises(ModelsConfigError) as caught:
        load_models_config(path)
    error = caught.value
    assert (error.path, error.line) == (path, 3)
    assert error.column == 33
    assert str(error).startswith(f"{path}:3:33: ")
    assert "Expected double-quoted property name" in error.message


@pytest.mark.parametrize(
    ("data", "line", "needle"),
    [
        ('{"models": []}', 1, '"providers" must be an object'),
        ("[1]", 1, "must hold a JSON object"),
        (
            '{"providers": {\n  "p": {\n    "baseUrl": "http://p",\n'
            '    "api": "openai-completions",\n    "models": [{"id": "m"}]\n  }\n}}',
            2,
            'providers.p: "apiKey" is required when defining models',
        ),
        (
            '{"providers": {\n  "p": {\n    "baseUrl": "http://p",\n    "apiKey": "k",\n'
            '    "models": [\n      {"id": "m", "api": "openai-completions", '
            '"contextWindow": -5}\n    ]\n  }\n}}',
            5,
            'providers.p.models[0] ("m").contextWindow: must be a positive number',
        ),
        (
            '{"providers": {\n  "p": {\n    "baseUrl": "http://p",\n    "apiKey": "k",\n'
            '    "models": [{"id": "m"}]\n  }\n}}',
            5,
            'no "api" given',
        ),
        (
            '{"providers": {\n  "p": {\n    "baseUrl": 42\n  }\n}}',
            3,
            "providers.p.baseUrl: must be a non-empty string",
        ),
        (
            '{"providers": {\n  "p": {"apiKey": "k"}\n}}',
            2,
            'give "baseUrl", "modelOverrides" or "models"',
        ),
        (
            '{"providers": {\n  "openai": {\n    "modelOverrides": {\n'
            '      "gpt": {"input": ["audio"]}\n    }\n  }\n}}',
            4,
            'modelOverrides.gpt.input: must be a list of "text" and "image"',
        ),
    ],
)
def test_schema_errors_point_at_the_member(
    tmp_path: Path, data: str, line: int, needle: str
) -> None:
    path = write(tmp_path, data)
    with pytest.raises(ModelsConfigError) as caught:
        load_models_config(path)
    assert caught.value.line == line, str(caught.value)
    assert needle in caught.value.message
    assert str(caught.value).startswith(f"{path}:{line}:")


def test_config_values() -> None:
    env = {"MY_KEY": "v1", "OTHER": "v2"}
    assert resolve_config_value("MY_KEY", env) == "MY_KEY"  # Pi 0.85: a bare name is literal
    assert resolve_config_value("Bearer $MY_KEY/${OTHER}", env) == "Bearer v1/v2"
    assert resolve_config_value("cost $$5 $!", env) == "cost $5 !"
    assert resolve_config_value("a $ b ${not-a-name} ${open", env) == "a $ b ${not-a-name} ${open"
    assert resolve_config_value("$MY_KEY and $MISSING", env) is None
    assert resolve_config_value("$MY_KEY", env) == "v1"
    assert resolve_config_value("${OTHER}", env) == "v2"
    assert resolve_config_value("$MISSING", env) is None
    assert resolve_config_value("sk-literal", env) == "sk-literal"
    python = sys.executable
    assert resolve_config_value(f"!{python} -c \"print(' from-cmd ')\"", env) == "from-cmd"
    assert resolve_config_value(f"!!{python} -c \"print('again')\"", env) == "again"
    assert resolve_config_value(f'!{python} -c "import sys; sys.exit(3)"', env) is None


def test_secrets() -> None:
    key = Secret("sk-very-secret")
    assert repr(key) == "'***'" and str(key) == "sk-very-secret" and key == "sk-very-secret"
    assert f"Bearer {key}" == "Bearer sk-very-secret"
    assert repr({"k": key}) == "{'k': '***'}"
    assert redact("bad key sk-very-secret here", key) == "bad key *** here"
    assert redact("nothing", None, "") == "nothing"
