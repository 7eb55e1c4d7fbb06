"""Session files the unit, CLI and language-server suites build alike.

``fixture_session(name)`` writes (once per test run, into a temporary folder) one of two
version-1 session files generated here — Pi's first format: no ``version``, no entry ids,
compactions pointing at an entry by index — shaped like a long real session: user prompts,
tool calls and their results, thinking-level and model changes, user ``bashExecution``
messages, compactions. They stand in for Pi's own fixture sessions (``fixtures/pi`` in the
shared material, which hold another project's conversations, so the repository does not).

``fixture_session_params(*names)`` gives a test both: the generated session, always, and Pi's
real one of the same name, marked ``shared`` (run in CI, skipped with the reason elsewhere).

* ``large-session.jsonl``: about 1 MB, 1018 entries in one chain, no compaction.
* ``before-compaction.jsonl``: branched from another file, two compactions (kept entries at
  indexes 293 and 551), usage past the compaction threshold of a 200k-token model.
"""

from __future__ import annotations

import atexit
import json
import random
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from pi_lsp.session.session_file import SessionFile
from tests.shared_data import PI_FIXTURES

CHECKPOINT_TITLE = "# Checkpoint: generated fixture session"
_WORDS = [
    "parser",
    "config",
    "cache",
    "index",
    "request",
    "session",
    "window",
    "summary",
    "branch",
    "token",
    "file",
    "module",
    "tests",
    "build",
    "server",
    "client",
    "editor",
    "prompt",
    "entry",
    "folder",
    "reader",
    "writer",
    "budget",
    "limit",
]
_folder: Path | None = None


def fixture_session(name: str) -> Path:
    """The generated fixture ``name`` (read-only by convention: copy it to change it)."""
    global _folder
    if _folder is None:
        _folder = Path(tempfile.mkdtemp(prefix="pi-lsp-fixture-sessions-"))
        atexit.register(shutil.rmtree, _folder, True)
    path = _folder / name
    if not path.exists():
        records = _GENERATORS[name]()
        text = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records)
        path.write_text(text, encoding="utf-8")
    return path


def fixture_session_params(*names: str) -> list[Any]:
    """Each of ``names`` twice, as a test's session path: the generated file (id
    ``NAME-generated``) and Pi's real session of that name (id ``NAME-pi``, marked ``shared``)."""
    params: list[Any] = []  # pytest.param values
    for name in names:
        stem = name.removesuffix(".jsonl")
        params.append(pytest.param(fixture_session(name), id=f"{stem}-generated"))
        params.append(pytest.param(PI_FIXTURES / name, id=f"{stem}-pi", marks=pytest.mark.shared))
    return params


class _Clock:
    def __init__(self, start_ms: int) -> None:
        self.ms = start_ms

    def tick(self, rng: random.Random) -> tuple[str, int]:
        self.ms += rng.randint(200, 9000)
        seconds, millis = divmod(self.ms, 1000)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis:03d}Z"
        return stamp, self.ms


def _sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."


def _message(clock: _Clock, rng: random.Random, message: dict[str, Any]) -> dict[str, Any]:
    stamp, ms = clock.tick(rng)
    return {"type": "message", "timestamp": stamp, "message": {**message, "timestamp": ms}}


def _assistant(
    rng: random.Random, content: list[dict[str, Any]], model: str, tokens: int, stop: str
) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": "anthropic",
        "model": model,
        "usage": {
            "input": tokens,
            "output": rng.randint(20, 400),
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": tokens + 100,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": stop,
    }


def _records(
    *, seed: int, entries: int, model: str, result_words: int, compact_at: tuple[int, ...]
) -> list[dict[str, Any]]:
    """A header and ``entries`` entries; ``compact_at`` are the kept indexes of compactions,
    each written a little more than 250 entries after the entry it keeps."""
    rng = random.Random(seed)
    clock = _Clock(1_765_000_000_000 + seed)
    stamp, _ = clock.tick(rng)
    header: dict[str, Any] = {
        "type": "session",
        "id": f"{seed:08x}-0000-4000-8000-000000000000",
        "timestamp": stamp,
        "cwd": "/home/user/projects/example",
        "provider": "anthropic",
        "modelId": model,
        "thinkingLevel": "off",
    }
    out: list[dict[str, Any]] = []
    pending = sorted(compact_at)
    call = 0
    tokens = 3000
    while len(out) < entries:
        if pending and len(out) >= pending[0] + 250 + rng.randint(0, 5):
            stamp, _ = clock.tick(rng)
            kept = pending.pop(0)
            out.append(
                {
                    "type": "compaction",
                    "timestamp": stamp,
                    "summary": f"{CHECKPOINT_TITLE}\n\n## Progress\n- {_sentence(rng, 12)}",
                    "firstKeptEntryIndex": kept,
                    "tokensBefore": 175004 + 10010 * (len(compact_at) - len(pending) - 1),
                }
            )
            continue
        roll = rng.random()
        if roll < 0.04:
            stamp, _ = clock.tick(rng)
            out.append(
                {
                    "type": "thinking_level_change",
                    "timestamp": stamp,
                    "thinkingLevel": rng.choice(["off", "minimal", "low", "medium", "high"]),
                }
            )
        elif roll < 0.05:
            stamp, _ = clock.tick(rng)
            out.append(
                {
                    "type": "model_change",
                    "timestamp": stamp,
                    "provider": "anthropic",
                    "modelId": model,
                }
            )
        elif roll < 0.06:
            out.append(
                _message(
                    clock,
                    rng,
                    {
                        "role": "bashExecution",
                        "command": "ls",
                        "output": "README.md\nsrc\ntests\n",
                        "exitCode": 0,
                        "cancelled": False,
                        "truncated": False,
                    },
                )
            )
        elif roll < 0.16:
            text = _sentence(rng, rng.randint(8, 40))
            out.append(
                _message(clock, rng, {"role": "user", "content": [{"type": "text", "text": text}]})
            )
        else:
            call += 1
            call_id = f"toolu_{seed:02d}{call:06d}"
            path = f"src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}.py"
            tokens = min(tokens + rng.randint(50, 400), 190_000)
            content = [
                {"type": "text", "text": _sentence(rng, rng.randint(5, 30))},
                {"type": "toolCall", "id": call_id, "name": "read", "arguments": {"path": path}},
            ]
            out.append(_message(clock, rng, _assistant(rng, content, model, tokens, "toolUse")))
            body = "\n".join(_sentence(rng, 10) for _ in range(result_words // 10))
            out.append(
                _message(
                    clock,
                    rng,
                    {
                        "role": "toolResult",
                        "toolCallId": call_id,
                        "toolName": "read",
                        "content": [{"type": "text", "text": body}],
                        "isError": False,
                    },
                )
            )
    out = out[:entries]
    # the session ends as a turn does: the model's answer to the last prompt
    last = _assistant(rng, [{"type": "text", "text": "Done."}], model, 190_000, "stop")
    out[-1] = _message(clock, rng, last)
    return [header, *out]


def _large_session() -> list[dict[str, Any]]:
    return _records(
        seed=1, entries=1018, model="claude-sonnet-4-5", result_words=160, compact_at=()
    )


def _before_compaction() -> list[dict[str, Any]]:
    records = _records(
        seed=2, entries=1003, model="claude-opus-4-5", result_words=110, compact_at=(293, 551)
    )
    records[0]["branchedFrom"] = "/home/user/.pi/agent/sessions/--example--/earlier.jsonl"
    return records


_GENERATORS = {
    "large-session.jsonl": _large_session,
    "before-compaction.jsonl": _before_compaction,
}
#: the fixture sessions, by the name they have here and in Pi's fixtures
FIXTURE_NAMES = tuple(_GENERATORS)


def compacted_fixture_session(folder: Path, source: Path | None = None) -> Path:
    """A current-version copy of ``source`` (by default the generated larger fixture session),
    migrated by opening it and compacted near the end as a long session is: the context keeps
    the last tenth."""
    copy = folder / "large.jsonl"
    copy.write_bytes((source or fixture_session("large-session.jsonl")).read_bytes())
    with SessionFile.open(copy) as session:  # v1 → v3, rewritten
        branch_ids = [entry["id"] for entry in session.get_branch()]
        kept = next(
            entry_id
            for entry_id in branch_ids[len(branch_ids) * 9 // 10 :]
            if session.get_entry(entry_id)["type"] == "message"
            and session.get_entry(entry_id)["message"]["role"] == "user"
        )
        session.append_compaction("what happened so far", kept, 12345)
        session.append_message({"role": "user", "content": "and now?", "timestamp": 2})
    return copy
