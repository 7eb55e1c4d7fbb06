"""The models.json of a local scripted model: provider ``local`` (OpenAI completions) pointed
at a :class:`~tests.agent.http_fixtures.LocalHTTPServer`, for tests that run pi-lsp as a user
does (``pi-lsp chat``, ``pi-lsp check --judge``, the server's judge) against it."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["LOCAL_PROVIDER", "write_local_models"]

LOCAL_PROVIDER = "local"


def write_local_models(
    agent_dir: Path,
    base_url: str,
    api_key: str,
    model_id: str,
    *,
    context_window: int = 32_000,
    max_tokens: int = 1_000,
    images: bool = False,
) -> Path:
    """Write ``agent_dir/models.json`` with one model, ``local/<model_id>``, served at
    ``base_url`` (the server's, without ``/v1``) with the key ``api_key``; return its path.
    With ``images`` the model accepts images (``input: ["text", "image"]``)."""
    model: dict[str, object] = {
        "id": model_id,
        "contextWindow": context_window,
        "maxTokens": max_tokens,
    }
    if images:
        model["input"] = ["text", "image"]
    models = {
        "providers": {
            LOCAL_PROVIDER: {
                "baseUrl": base_url + "/v1",
                "api": "openai-completions",
                "apiKey": api_key,
                "models": [model],
            }
        }
    }
    agent_dir.mkdir(parents=True, exist_ok=True)
    path = agent_dir / "models.json"
    path.write_text(json.dumps(models, indent=2))
    return path
