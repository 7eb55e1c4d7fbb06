"""``pi-lsp chat --model ID`` without ``--provider`` finds the provider as Pi 0.85 does.

The id is looked up, ignoring case, among the models.json models and Pi's built-in catalogue;
one match is the choice, of several the only one whose provider has a key, otherwise the
choice is refused before any request. (Checked against Pi 0.85.0 with the same models.json:
a unique custom id and a catalogue id shared with a keyed custom provider both went to that
provider; a catalogue id with only the built-in provider keyed went to it; two keyed
providers were refused as ambiguous.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.agent.http_fixtures import LocalHTTPServer, openai_text_reply
from tests.cli import test_chat as cli

OPENAI_KEY = "sk-openai-test-key-Pq4"


def configure(tmp: Path, base_url: str, *, openai_key: bool) -> None:
    """A custom provider ``local`` (with a key) offering ``gpt-4o`` and ``my-unique``; the
    built-in ``openai`` pointed at the same server, with a key in auth.json if asked."""
    cli.setup(tmp, base_url)
    models = {
        "providers": {
            "local": {
                "baseUrl": base_url + "/v1",
                "api": "openai-completions",
                "apiKey": cli.API_KEY,
                "models": [{"id": "gpt-4o"}, {"id": "my-unique"}],
            },
            "openai": {"baseUrl": base_url + "/openai/v1"},
        }
    }
    (tmp / "agent" / "models.json").write_text(json.dumps(models))
    if openai_key:
        auth = {"openai": {"type": "api_key", "key": OPENAI_KEY}}
        (tmp / "agent" / "auth.json").write_text(json.dumps(auth))


def model_change(tmp: Path) -> dict[str, Any]:
    (file,) = cli.session_files(tmp / "sessions")
    change: dict[str, Any] = cli.entries(file)[1]
    assert change["type"] == "model_change"
    return change


async def ask(tmp: Path, model: str, *, openai_key: bool = False) -> tuple[cli.Done, list[Any]]:
    async with LocalHTTPServer() as server:
        configure(tmp, server.base_url, openai_key=openai_key)
        server.enqueue(openai_text_reply("Answered."))
        done = await cli.chat(tmp, "--model", model, "--session-dir", str(tmp / "sessions"), "hi")
    return done, server.requests


async def test_a_custom_model_id_found_in_one_provider(tmp_path: Path) -> None:
    done, requests = await ask(tmp_path, "my-unique")
    assert done.code == 0, done.stderr
    assert done.stdout == "Answered.\n"
    (request,) = requests
    assert request.path == "/v1/chat/completions" and request.json()["model"] == "my-unique"
    change = model_change(tmp_path)
    assert (change["provider"], change["modelId"]) == ("local", "my-unique")


async def test_a_catalogue_id_goes_to_the_built_in_provider_with_a_key(tmp_path: Path) -> None:
    done, requests = await ask(tmp_path, "gpt-4.1", openai_key=True)
    assert done.code == 0, done.stderr
    (request,) = requests
    assert request.path == "/openai/v1/chat/completions"
    assert request.json()["model"] == "gpt-4.1"
    assert request.headers["authorization"] == f"Bearer {OPENAI_KEY}"
    change = model_change(tmp_path)
    assert (change["provider"], change["modelId"]) == ("openai", "gpt-4.1")


async def test_an_id_of_several_providers_goes_to_the_only_one_with_a_key(tmp_path: Path) -> None:
    # gpt-4o: local (models.json, keyed) and openai (catalogue, no key); any case
    done, requests = await ask(tmp_path, "GPT-4o")
    assert done.code == 0, done.stderr
    (request,) = requests
    assert request.path == "/v1/chat/completions" and request.json()["model"] == "gpt-4o"
    change = model_change(tmp_path)
    assert (change["provider"], change["modelId"]) == ("local", "gpt-4o")


async def test_an_id_of_several_keyed_providers_is_refused_before_any_request(
    tmp_path: Path,
) -> None:
    done, requests = await ask(tmp_path, "gpt-4o", openai_key=True)
    assert done.code == 2 and done.stdout == ""
    assert requests == []
    assert 'model "gpt-4o" is offered by several providers (local/gpt-4o, openai/gpt-4o)' in (
        done.stderr
    )
    assert "give --provider" in done.stderr
    assert not (tmp_path / "sessions").exists()
    assert OPENAI_KEY not in done.stderr and cli.API_KEY not in done.stderr
