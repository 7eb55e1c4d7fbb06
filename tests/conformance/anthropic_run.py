"""Running one Anthropic golden case (``anthropic_cases/<case>/case.json``) against the fake.

Shared by the recording script (``record_anthropic.py``, which runs the real Pi 0.85.0) and the
tests (``test_anthropic_cases.py``, which run ``pi-lsp chat``): both build the same workspace,
agent dir (a ``models.json`` pointing the built-in ``anthropic`` provider at the fake, plus the
case's ``settings.json``) and environment, run the client once, and reduce what happened to the
same observations — the requests (selected headers and JSON bodies, Pi's prose masked), the
final assistant messages, the exit status, stderr and the delays between requests.

``case.json``: ``description``; ``model`` (default ``claude-sonnet-4-5``); ``args`` (extra CLI
arguments, e.g. ``["--thinking", "high", "--tools", "read,bash"]``); ``prompts``; ``mode``
(``json`` default, or ``text``); ``script`` (the fake's answers, see
:mod:`tests.agent.fake_anthropic`); ``provider`` (members merged into models.json's
``providers.anthropic``, e.g. ``modelOverrides``); ``settings`` (the agent dir's
settings.json); ``env`` (extra environment, e.g. ``PI_CACHE_RETENTION``); ``files`` (relative
path → text, written into the working directory).
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.agent.fake_anthropic import FakeAnthropic, Recorded
from tests.conformance.pi_prose import mask_descriptions, mask_summary_prompt, prose_digest

CASES = Path(__file__).resolve().parent / "anthropic_cases"
#: The key every case plants; it must never show up in any output but the x-api-key header
PLANTED_KEY = "sk-ant-api03-PLANTED-anthropic-key-0123456789abcdef"
SYSTEM_PROMPT = "You are the fake-model test assistant."
DEFAULT_MODEL = "claude-sonnet-4-5"
#: The request headers the comparison looks at (the SDK's x-stainless-* and user-agent aside)
HEADERS = (
    "content-type",
    "accept",
    "anthropic-version",
    "anthropic-beta",
    "anthropic-dangerous-direct-browser-access",
    "x-api-key",
    "authorization",
)
FILES = ("expected-requests.json", "expected-messages.json", "observed-status.json")


def case_names() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "case.json").is_file())


def load_case(name: str) -> dict[str, Any]:
    meta: dict[str, Any] = json.loads((CASES / name / "case.json").read_text("utf-8"))
    return meta


@dataclass(frozen=True)
class Workspace:
    root: Path
    cwd: Path
    agent: Path
    home: Path
    tmp: Path


def fixed_length_base(base: Path) -> Path:
    """A folder for a run whose path has the same length on every run: the working
    directory is in the system prompt, and so in the input estimate that clamps
    ``max_tokens``. Under ``/tmp`` where there is one (as when the goldens were recorded)."""
    parent = "/tmp" if os.path.isdir("/tmp") else str(base)
    return Path(tempfile.mkdtemp(prefix="pi-anth-", dir=parent))


def build_workspace(meta: Mapping[str, Any], base: Path, base_url: str) -> Workspace:
    """Folders for one run: the cwd with the case's files, an agent dir with its JSON files."""
    root, agent, home, tmp = (base / n for n in ("ws", "agent", "home", "tmp"))
    cwd = root / "proj"
    for folder in (cwd, agent, home, tmp):
        folder.mkdir(parents=True)
    for rel, text in (meta.get("files") or {}).items():
        path = cwd / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    provider = {"baseUrl": base_url, **(meta.get("provider") or {})}
    models = {"providers": {"anthropic": provider}}
    (agent / "models.json").write_text(json.dumps(models, indent=2), "utf-8")
    if meta.get("settings"):
        (agent / "settings.json").write_text(json.dumps(meta["settings"], indent=2), "utf-8")
    return Workspace(root.resolve(), cwd.resolve(), agent.resolve(), home.resolve(), tmp.resolve())


def client_env(ws: Workspace, meta: Mapping[str, Any]) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "PYTHONPATH", "SYSTEMROOT")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        HOME=str(ws.home),
        TMPDIR=str(ws.tmp),
        PI_CODING_AGENT_DIR=str(ws.agent),
        PI_OFFLINE="1",
        PI_SKIP_VERSION_CHECK="1",
        NO_COLOR="1",
        ANTHROPIC_API_KEY=PLANTED_KEY,
    )
    env.update(meta.get("env") or {})
    return env


def client_args(meta: Mapping[str, Any]) -> list[str]:
    """The arguments after the program: ``-p --mode M --provider anthropic --model …``."""
    return [
        "-p",
        "--mode",
        meta.get("mode", "json"),
        "--provider",
        "anthropic",
        "--model",
        meta.get("model", DEFAULT_MODEL),
        "--no-session",
        "--system-prompt",
        SYSTEM_PROMPT,
        *meta.get("args", []),
        *meta.get("prompts", ["hello"]),
    ]


def run_case(
    meta: Mapping[str, Any], base: Path, program: Sequence[str], *, timeout: float = 120
) -> tuple[dict[str, Any], Workspace, subprocess.CompletedProcess[bytes]]:
    """Run ``program`` (plus :func:`client_args`) on the case; the observations and the run.
    The run's folders are removed afterwards (``base`` is only where they go without /tmp)."""
    folder = fixed_length_base(base)
    try:
        with FakeAnthropic(meta.get("script") or []) as fake:
            ws = build_workspace(meta, folder, fake.base_url)
            proc = subprocess.run(
                [*program, *client_args(meta)],
                cwd=ws.cwd,
                env=client_env(ws, meta),
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        return observe(fake.requests, proc, ws), ws, proc
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Observations


def normalize_text(text: str, ws: Workspace) -> str:
    text = re.sub(re.escape(str(ws.tmp)) + r"/pi-bash-[0-9a-f]{16}\.log", "{TMP}/pi-bash.log", text)
    for path, token in ((ws.cwd, "{CWD}"), (ws.root, "{WS}"), (ws.agent, "{AGENT_DIR}")):
        text = text.replace(str(path), token)
    return text.replace(str(ws.home), "{HOME}").replace(str(ws.tmp), "{TMP}")


def _normalize(value: Any, ws: Workspace) -> Any:
    if isinstance(value, dict):
        return {
            k: 0 if k == "timestamp" and isinstance(v, int | float) else _normalize(v, ws)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_normalize(v, ws) for v in value]
    if isinstance(value, str):
        return normalize_text(value, ws)
    return value


def _headers(request: Recorded) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in HEADERS:
        value = request.header(name)
        if value is not None:
            out[name] = value.replace(PLANTED_KEY, "{KEY}")
    return out


def _ours(block: Any) -> bool:
    """A system block holding the case's own prompt (not a summary request's prose)."""
    return isinstance(block, dict) and str(block.get("text", "")).startswith(SYSTEM_PROMPT)


def mask_body(body: Any) -> Any:
    """A request body with Pi's prose masked: tool descriptions, and the system prompt and
    instructions of a summary request (one without tools whose system prompt is not ours)."""
    if not isinstance(body, dict):
        return body
    out = dict(body)
    if "tools" in out:
        out["tools"] = mask_descriptions(out["tools"])
    system = out.get("system")
    if isinstance(system, list) and system and not _ours(system[0]):
        out["system"] = [{**block, "text": prose_digest(block["text"])} for block in system]
        messages = [dict(m) for m in out.get("messages", [])]
        for message in messages:
            content = message.get("content")
            if isinstance(content, list):
                message["content"] = [
                    {**b, "text": mask_summary_prompt(b["text"])}
                    if b.get("type") == "text" and "<conversation>" in b.get("text", "")
                    else b
                    for b in content
                ]
        out["messages"] = messages
    return out


def _assistant_messages(stdout: str) -> list[Any]:
    """The final assistant messages of a JSON-mode run (``message_end`` events)."""
    out = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict) or event.get("type") != "message_end":
            continue
        message = event.get("message")
        if isinstance(message, dict) and message.get("role") == "assistant":
            out.append(message)
    return out


def _event_trace(stdout: str) -> list[str]:
    """One entry per JSON-mode event type (deltas left out), retries with their payload."""
    trace = []
    for line in stdout.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        kind = event.get("type") if isinstance(event, dict) else None
        if not isinstance(kind, str) or kind == "message_update":
            continue
        if kind.startswith("auto_retry") or kind.startswith("compaction"):
            details = {k: v for k, v in event.items() if k not in ("type", "result", "message")}
            result = event.get("result")
            if isinstance(result, dict):  # the summary's usage and size (not its entry ids)
                details["result"] = {
                    k: result.get(k) for k in ("summary", "tokensBefore", "usage") if k in result
                }
            trace.append(f"{kind} {json.dumps(details, sort_keys=True)}")
        else:
            trace.append(kind)
    return trace


def observe(
    requests: Sequence[Recorded], proc: subprocess.CompletedProcess[bytes], ws: Workspace
) -> dict[str, Any]:
    """What the comparison looks at, normalized (see the module docstring)."""
    stdout = proc.stdout.decode("utf-8", "replace")
    stderr = proc.stderr.decode("utf-8", "replace")
    reqs = [
        {
            "method": r.method,
            "path": r.path,
            "headers": _headers(r),
            "body": mask_body(r.body),
        }
        for r in requests
    ]
    delays = [round((b.at - a.at) * 1000) for a, b in itertools.pairwise(requests)]
    status = {
        "exit": proc.returncode,
        "requests": len(requests),
        "delays_ms": delays,
        "stderr": stderr.replace(PLANTED_KEY, "{KEY}"),
        "events": _event_trace(stdout),
    }
    if stdout and not stdout.lstrip().startswith("{"):  # text mode
        status["stdout"] = stdout
    return {
        "expected-requests.json": _normalize(reqs, ws),
        "expected-messages.json": _normalize(_assistant_messages(stdout), ws),
        "observed-status.json": _normalize(status, ws),
    }
