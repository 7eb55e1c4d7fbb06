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

DEEPSEEK_KEY = "sk-deepseek-test-key-Pq4"


def configure(tmp: Path, base_url: str, *, deepseek_key: bool) -> None:
    """A custom provider ``local`` (with a key) offering ``deepseek-v4-pro`` and ``my-unique``;
    the built-in ``deepseek`` pointed at the same server, with a key in auth.json if asked."""
    cli.setup(tmp, base_url)
    models = {
        "providers": {
            "local": {
                "baseUrl": base_url + "/v1",
                "api": "openai-completions",
                "apiKey": cli.API_KEY,
                "models": [{"id": "deepseek-v4-pro"}, {"id": "my-unique"}],
            },
            "deepseek": {"baseUrl": base_url + "/deepseek"},
        }
    }
    (tmp / "agent" / "models.json").write_text(json.dumps(models))
    if deepseek_key:
        auth = {"deepseek": {"type": "api_key", "key": DEEPSEEK_KEY}}
        (tmp / "agent" / "auth.json").write_text(json.dumps(auth))


def model_change(tmp: Path) -> dict[str, Any]:
    (file,) = cli.session_files(tmp / "sessions")
    change: dict[str, Any] = cli.entries(file)[1]
    assert change["type"] == "model_change"
    return change


async def ask(tmp: Path, model: str, *, deepseek_key: bool = False) -> tuple[cli.Done, list[Any]]:
    async with LocalHTTPServer() as server:
        configure(tmp, server.base_url, deepseek_key=deepseek_key)
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
    done, requests = await ask(tmp_path, "deepseek-v4-flash", deepseek_key=True)
    assert done.code == 0, done.stderr
    (request,) = requests
    assert request.path == "/deepseek/chat/completions"
    assert request.json()["model"] == "deepseek-v4-flash"
    assert request.headers["authorization"] == f"Bearer {DEEPSEEK_KEY}"
    change = model_change(tmp_path)
    assert (change["provider"], change["modelId"]) == ("deepseek", "deepseek-v4-flash")


async def test_an_id_of_several_providers_goes_to_the_only_one_with_a_key(tmp_path: Path) -> None:
    # deepseek-v4-pro: local (models.json, keyed) and deepseek (catalogue, no key); any case
    done, requests = await ask(tmp_path, "DeepSeek-V4-Pro")
    assert done.code == 0, done.stderr
    (request,) = requests
    assert request.path == "/v1/chat/completions" and request.json()["model"] == "deepseek-v4-pro"
    change = model_change(tmp_path)
    assert (change["provider"], change["modelId"]) == ("local", "deepseek-v4-pro")


async def test_an_id_of_several_keyed_providers_is_refused_before_any_request(
    tmp_path: Path,
) -> None:
    done, requests = await ask(tmp_path, "deepseek-v4-pro", deepseek_key=True)
    assert done.code == 2 and done.stdout == ""
    assert requests == []
    assert (
        'model "deepseek-v4-pro" is offered by several providers '
        "(deepseek/deepseek-v4-pro, local/deepseek-v4-pro, "
    ) in done.stderr
    assert "and more than one has an API key" in done.stderr
    assert "give --provider" in done.stderr
    assert not (tmp_path / "sessions").exists()
    assert DEEPSEEK_KEY not in done.stderr and cli.API_KEY not in done.stderr
