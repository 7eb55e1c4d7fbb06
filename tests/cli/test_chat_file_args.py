"""``pi-lsp chat @file …``: files put in front of the first message as Pi 0.85 puts them.

Observed in Pi 0.85.0's print mode (``pi -p @notes.md @shot.png "question"``): each file is read
before anything is sent; a text file becomes ``<file name="ABS">`` + newline + content + newline
+ ``</file>`` + newline, an image is attached with an empty ``<file name="ABS"></file>`` line, an
empty file is skipped, and a missing file stops the run (exit 1) before the model is asked.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

from PIL import Image

from tests.agent.http_fixtures import LocalHTTPServer, openai_text_reply
from tests.agent.local_models import write_local_models
from tests.cli.test_chat import API_KEY, chat


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (3, 2), (200, 10, 10)).save(out, format="PNG")
    return out.getvalue()


def _setup(tmp: Path, base_url: str) -> Path:
    for name in ("home", "agent", "proj"):
        (tmp / name).mkdir(exist_ok=True)
    write_local_models(tmp / "agent", base_url, API_KEY, "m1", images=True)
    return (tmp / "proj").resolve()


async def test_files_go_before_the_first_message_text_and_images(tmp_path: Path) -> None:
    async with LocalHTTPServer() as server:
        proj = _setup(tmp_path, server.base_url)
        (proj / "notes.md").write_bytes("\ufeffline one\nline two\n".encode())
        (proj / "empty.txt").write_bytes(b"")
        png = _png()
        (proj / "shot.png").write_bytes(png)
        server.enqueue(openai_text_reply("Seen."))
        server.enqueue(openai_text_reply("Second."))
        done = await chat(
            tmp_path, "--no-session", "--model", "m1",
            "@notes.md", "@empty.txt", "@shot.png", "what is this?", "and then?",
        )  # fmt: skip

    assert done.code == 0, done.stderr
    first, second = (request.json()["messages"][-1]["content"] for request in server.requests)
    text = "".join(part["text"] for part in first if part["type"] == "text")
    assert text == (
        f'<file name="{proj}/notes.md">\nline one\nline two\n\n</file>\n'
        f'<file name="{proj}/shot.png"></file>\n'
        "what is this?"
    )
    [image] = [part for part in first if part["type"] == "image_url"]
    assert image["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(png).decode()
    assert second in ("and then?", [{"type": "text", "text": "and then?"}])


async def test_a_missing_file_stops_before_the_model_is_asked(tmp_path: Path) -> None:
    async with LocalHTTPServer() as server:
        proj = _setup(tmp_path, server.base_url)
        done = await chat(tmp_path, "--no-session", "--model", "m1", "@nope.md", "hi")

    assert done.code == 1
    assert f"File not found: {proj}/nope.md" in done.stderr
    assert server.requests == []
