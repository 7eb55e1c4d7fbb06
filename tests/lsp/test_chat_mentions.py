"""What the editor's prompt box puts into a prompt, over stdio: ``pi/complete/files``,
``pi/complete/commands`` and ``pi/chat``'s ``files``, ``selections`` and ``images``, with the
model on real HTTP (what it receives is what the user's attachments must have become)."""

from __future__ import annotations

import asyncio
import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from PIL import Image
from pygls.exceptions import JsonRpcException

from pi_lsp.server.requests import plain
from tests.agent.http_fixtures import LocalHTTPServer, openai_text_reply, openai_tool_calls_reply
from tests.lsp.harness import WAIT, start_client
from tests.lsp.test_chat import API_KEY, Events, request, send, texts


def write_models(tmp: Path, base_url: str) -> None:
    models = {
        "providers": {
            "local": {
                "baseUrl": base_url + "/v1",
                "api": "openai-completions",
                "apiKey": API_KEY,
                "models": [{"id": "text-only"}, {"id": "eyes", "input": ["text", "image"]}],
            }
        }
    }
    (tmp / "agent").mkdir(exist_ok=True)
    (tmp / "agent" / "models.json").write_text(json.dumps(models))


def png_base64(color: tuple[int, int, int] = (0, 90, 200)) -> str:
    out = io.BytesIO()
    Image.new("RGB", (4, 3), color).save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()


def user_content(model: LocalHTTPServer) -> list[dict[str, Any]]:
    content = model.requests[-1].json()["messages"][-1]["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def user_text(model: LocalHTTPServer) -> str:
    return "".join(p["text"] for p in user_content(model) if p["type"] == "text")


async def test_files_and_folders_complete_fuzzily_without_ignored_ones(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for name in ("src/app/main.py", "src/app/util.py", "docs/guide.md", "build/out.js"):
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text("x\n")
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / ".gitignore").write_text("build/\n")
    (tmp_path / "agent").mkdir()
    client = await start_client(tmp_path)
    try:
        found = await request(client, "pi/complete/files", {"query": "mainpy"})
        assert found["items"][0] == {"path": "src/app/main.py", "kind": "file"}
        assert found["cwd"] == str(ws) and found["truncated"] is False
        folders = await request(client, "pi/complete/files", {"query": "app"})
        assert folders["items"][0] == {"path": "src/app/", "kind": "folder"}
        every = await request(client, "pi/complete/files", {"query": "", "limit": 100})
        paths = [item["path"] for item in every["items"]]
        assert "docs/guide.md" in paths and ".gitignore" in paths
        assert not any(p.startswith(("build", ".git/")) for p in paths)
        with pytest.raises(JsonRpcException, match="'limit' must be"):
            await request(client, "pi/complete/files", {"query": "a", "limit": 0})
    finally:
        await client.shutdown_session()


async def test_templates_and_skills_complete_with_their_descriptions(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    (agent / "prompts").mkdir(parents=True)
    (agent / "prompts" / "review.md").write_text(
        "---\ndescription: Review the staged change\n---\nReview $1 carefully.\n"
    )
    (agent / "skills" / "deploy").mkdir(parents=True)
    (agent / "skills" / "deploy" / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Ship the service to staging\n---\nSteps.\n"
    )
    (tmp_path / "ws").mkdir()
    client = await start_client(tmp_path)
    try:
        every = await request(client, "pi/complete/commands", {"prefix": "/"})
        assert every["items"] == [
            {
                "name": "review",
                "insert": "/review",
                "description": "Review the staged change",
                "kind": "template",
            },
            {
                "name": "skill:deploy",
                "insert": "/skill:deploy",
                "description": "Ship the service to staging",
                "kind": "skill",
            },
        ]
        skills = await request(client, "pi/complete/commands", {"prefix": "/skill:"})
        assert [item["name"] for item in skills["items"]] == ["skill:deploy"]
    finally:
        await client.shutdown_session()


async def test_files_and_a_selection_go_before_the_expanded_prompt(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "a.py").write_text("def a():\n    return 1\n")
    (tmp_path / "agent" / "prompts").mkdir(parents=True)
    (tmp_path / "agent" / "prompts" / "explain.md").write_text("Explain $1 please.\n")
    async with LocalHTTPServer() as model:
        write_models(tmp_path, model.base_url)
        model.enqueue(openai_text_reply("It returns 1."))
        client = await start_client(tmp_path)
        try:
            result = await request(
                client,
                "pi/chat",
                {
                    "text": "/explain this",
                    "model": "text-only",
                    "files": ["src/a.py"],
                    "selections": [
                        {"path": str(ws / "b.py"), "startLine": 3, "endLine": 4, "text": "x = 2"}
                    ],
                },
            )
            assert result["stopReason"] == "stop"
            assert user_text(model) == (
                f'<file name="{ws}/src/a.py">\ndef a():\n    return 1\n\n</file>\n'
                f'<file name="{ws}/b.py" lines="3-4">\nx = 2\n</file>\n'
                "Explain this please.\n"  # a template without frontmatter keeps its newline
            )
            with pytest.raises(JsonRpcException, match=f"File not found: {ws}/gone.py"):
                await request(
                    client,
                    "pi/chat",
                    {"text": "again", "session": result["session"], "files": ["gone.py"]},
                )
            assert len(model.requests) == 1
        finally:
            await client.shutdown_session()


async def test_pasted_images_reach_a_model_that_sees_and_are_refused_otherwise(
    tmp_path: Path,
) -> None:
    (tmp_path / "ws").mkdir()
    image = {"mimeType": "image/png", "data": png_base64()}
    async with LocalHTTPServer() as model:
        write_models(tmp_path, model.base_url)
        model.enqueue(openai_text_reply("A blue box."))
        client = await start_client(tmp_path)
        try:
            with pytest.raises(JsonRpcException, match="local/text-only does not accept images"):
                await request(
                    client, "pi/chat", {"text": "what?", "model": "text-only", "images": [image]}
                )
            assert model.requests == []
            with pytest.raises(JsonRpcException, match="'images' is not a list of"):
                bad = {"mimeType": "image/png", "data": "not base64!"}
                await request(client, "pi/chat", {"text": "what?", "images": [bad]})
            result = await request(
                client, "pi/chat", {"text": "what?", "model": "eyes", "images": [image]}
            )
            assert result["text"] == "A blue box."
            content = user_content(model)
            assert content[0] == {"type": "text", "text": "what?"}
            assert content[1]["image_url"]["url"] == f"data:image/png;base64,{image['data']}"
        finally:
            await client.shutdown_session()


async def test_a_steered_prompt_keeps_its_attached_file(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.md").write_text("remember this\n")
    gate = tmp_path / "go"
    command = f"echo waiting; while [ ! -e {gate} ]; do sleep 0.02; done"
    async with LocalHTTPServer() as model:
        write_models(tmp_path, model.base_url)
        model.enqueue(
            openai_tool_calls_reply([{"name": "bash", "arguments": {"command": command}}]),
            openai_text_reply("Noted."),
        )
        client = await start_client(tmp_path)
        events = Events(client)
        try:
            pending = send(client, "pi/chat", {"text": "start", "model": "text-only"})
            await events.until(lambda got: "waiting" in texts(got, "tool_output"))
            session = events.received[0]["session"]
            queued = await request(
                client,
                "pi/chat",
                {"session": session, "text": "and this", "files": ["notes.md"],
                 "streamingBehavior": "steer"},
            )  # fmt: skip
            assert queued["queued"] == "steer"
            gate.touch()
            assert plain(await asyncio.wait_for(pending, WAIT))["text"] == "Noted."
            steered = model.requests[1].json()["messages"][-1]["content"]
            text = steered if isinstance(steered, str) else steered[0]["text"]
            assert text == f'<file name="{ws}/notes.md">\nremember this\n\n</file>\nand this'
        finally:
            await client.shutdown_session()
