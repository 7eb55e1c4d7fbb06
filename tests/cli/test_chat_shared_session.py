"""Two ``pi-lsp chat`` processes on the same new ``--session`` file lose no answer.

A new session file is written only at its first answer; until then the first chat claims the
path, so a second chat started meanwhile stops before it sends anything to the model (its
error names the file), and the file ends up with every answer that a chat reported.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.agent.http_fixtures import Gate, LocalHTTPServer, Reply, openai_text_reply
from tests.cli import test_chat as cli

ANSWERS = ("First answer.", "Second answer.")


def answers_in(path: Path) -> list[str]:
    """The text of every assistant message in the session file, in file order."""
    return [
        block["text"]
        for entry in cli.entries(path)
        if entry.get("message", {}).get("role") == "assistant"
        for block in entry["message"]["content"]
        if block.get("type") == "text"
    ]


def held_until(gate: asyncio.Event, reply: Reply) -> Reply:
    """``reply`` with its body held back until ``gate`` is set."""
    return Reply(reply.status, reply.headers, [Gate(gate), *reply.parts], reply.chunked)


async def until_requests(server: LocalHTTPServer, count: int) -> None:
    async with asyncio.timeout(30):
        while len(server.requests) < count:
            await asyncio.sleep(0.02)


async def test_a_second_chat_on_a_new_file_being_started_stops_before_the_model(
    tmp_path: Path,
) -> None:
    session = tmp_path / "shared.jsonl"
    gate = asyncio.Event()
    async with LocalHTTPServer() as server:
        cli.setup(tmp_path, server.base_url)
        server.enqueue(held_until(gate, openai_text_reply(ANSWERS[0])))
        server.enqueue(openai_text_reply(ANSWERS[1]))
        first = asyncio.ensure_future(
            cli.chat(tmp_path, "--model", "m1", "--session", str(session), "one")
        )
        await until_requests(server, 1)  # the first chat is waiting for its answer
        second = await cli.chat(tmp_path, "--model", "m1", "--session", str(session), "two")
        assert len(server.requests) == 1  # the second chat asked the model nothing
        gate.set()
        done = await first
        assert done.code == 0, done.stderr
        assert answers_in(session) == [ANSWERS[0]]
        # once the first chat is done, the file is free: the same command now resumes it
        again = await cli.chat(tmp_path, "--model", "m1", "--session", str(session), "two")

    assert second.code == 1 and second.stdout == ""
    (line,) = second.stderr.splitlines()
    assert line.startswith(f"pi-lsp: {session}: another pi-lsp writer is starting this new")
    assert f"{session}.lock" in line
    assert again.code == 0, again.stderr
    assert answers_in(session) == list(ANSWERS)
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("shared")] == [session.name]


async def test_two_chats_started_together_keep_every_answer(tmp_path: Path) -> None:
    session = tmp_path / "shared.jsonl"
    async with LocalHTTPServer() as server:
        cli.setup(tmp_path, server.base_url)
        server.enqueue(*(openai_text_reply(text) for text in ANSWERS))
        runs = await asyncio.gather(
            *(
                cli.chat(tmp_path, "--model", "m1", "--session", str(session), prompt)
                for prompt in ("one", "two")
            )
        )

    succeeded = [run for run in runs if run.code == 0]
    refused = [run for run in runs if run.code != 0]
    assert len(server.requests) == len(succeeded) >= 1
    for run in refused:
        assert run.code == 1 and str(session) in run.stderr and "writer" in run.stderr, run.stderr
    # every answer a chat printed is in the file, each once, and no entry is lost
    printed = sorted(run.stdout.strip() for run in succeeded)
    assert sorted(answers_in(session)) == printed
    users = [e for e in cli.entries(session) if e.get("message", {}).get("role") == "user"]
    assert len(users) == len(succeeded)
