"""The Google golden cases: one run's inputs, and what is compared after it (both sides).

A case folder ``google_cases/<name>/`` holds

* ``case.json`` — ``description``, ``model`` (a Gemini id of Pi's catalogue), ``args`` (CLI
  arguments both ``pi`` and ``pi-lsp chat`` accept: ``--thinking``, ``--tools``, …), ``prompts``
  (sent in turn, in one run), optional ``files`` (written into the working directory;
  ``files_base64`` for binary ones),
  ``settings`` (the agent dir's settings.json), ``google`` (extra fields for the agent dir's
  models.json provider ``google``, e.g. a custom non-reasoning model);
* ``script.json`` — the fake Gemini's answers (:mod:`tests.conformance.google_fake`);
* ``expected-requests.json`` — every request Pi sent: method, path, the headers that mean
  something to the API (:data:`COMPARED_HEADERS`) and the JSON body, tool descriptions masked;
* ``expected-messages.json`` — the assistant messages Pi made of the streams (its ``message_end``
  events), with timestamps and generated tool-call ids normalized;
* ``expected-retries.json`` — Pi's ``auto_retry_start`` / ``auto_retry_end`` events;
* ``observed-status.json`` — Pi's exit status and the number of requests.

Every run gets its own home, agent dir and working directory, the key in ``GEMINI_API_KEY`` (the
variable Pi reads for the provider ``google``) and a models.json that points ``google`` at the fake.
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CASES = Path(__file__).resolve().parent / "google_cases"
API_KEY = "AIzaSy-planted-gemini-key-7Q2x"
SYSTEM_PROMPT = "You are a terse test assistant."
#: The headers compared; the others are the HTTP client's own (user agent, SDK telemetry,
#: connection handling) and are kept in the recording for reading only.
COMPARED_HEADERS = ("content-type", "x-goog-api-key")
#: Arguments every run gets: no Pi prose in the system prompt, no files read from the machine.
COMMON_ARGS = ("--system-prompt", SYSTEM_PROMPT, "--no-context-files", "--no-skills")
TOOL_DESCRIPTION = "{PI_TOOL_DESCRIPTION}"
_GENERATED_ID = re.compile(r"^(?P<name>.+)_[0-9]{10,}_[0-9]+$")
_DATE = re.compile(r"Current date: [0-9]{4}-[0-9]{2}-[0-9]{2}")

Json = Any


@dataclass(frozen=True)
class Run:
    """The folders of one run."""

    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def agent(self) -> Path:
        return self.root / "agent"

    @property
    def cwd(self) -> Path:
        return self.root / "work"

    @property
    def sessions(self) -> Path:
        return self.root / "sessions"


def load_case(case: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    meta = json.loads((case / "case.json").read_text("utf-8"))
    script_file = case / "script.json"
    script = json.loads(script_file.read_text("utf-8")) if script_file.exists() else []
    return meta, script


def prepare(run: Run, meta: dict[str, Any], base_url: str) -> None:
    """Home, agent dir (models.json, settings.json) and the working directory's files."""
    for folder in (run.home, run.agent, run.cwd):
        folder.mkdir(parents=True, exist_ok=True)
    google = {"baseUrl": base_url + "/v1beta", **(meta.get("google") or {})}
    models = {"providers": {"google": google}}
    (run.agent / "models.json").write_text(json.dumps(models, indent=2), "utf-8")
    if meta.get("settings"):
        (run.agent / "settings.json").write_text(json.dumps(meta["settings"]), "utf-8")
    for name, text in (meta.get("files") or {}).items():
        path = run.cwd / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    for name, data in (meta.get("files_base64") or {}).items():
        (run.cwd / name).write_bytes(base64.b64decode(data))


def runs(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """The case's runs: ``meta["runs"]`` (each later one continues the session), or ``meta``."""
    listed = meta.get("runs")
    return [{**meta, **r} for r in listed] if isinstance(listed, list) else [meta]


def cli_args(step: dict[str, Any], run: Run, *, first: bool) -> list[str]:
    """The arguments after the program: json mode, the model, the case's own, the prompts."""
    args = ["-p", "--mode", "json", "--provider", "google", "--model", step["model"]]
    args += ["--session-dir", str(run.sessions), *COMMON_ARGS, *step.get("args", [])]
    if not first:
        args.append("--continue")
    return [*args, *step["prompts"]]


def env_for(run: Run, base: dict[str, str]) -> dict[str, str]:
    env = {k: v for k, v in base.items() if not k.startswith(("PI_", "GEMINI_", "GOOGLE_"))}
    env.update(
        HOME=str(run.home),
        PI_CODING_AGENT_DIR=str(run.agent),
        GEMINI_API_KEY=API_KEY,
        NO_COLOR="1",
    )
    return env


# ---------------------------------------------------------------------------------------------
# Normalization (the same on both sides)


def _mask_descriptions(value: Json) -> Json:
    if isinstance(value, dict):
        return {
            k: TOOL_DESCRIPTION
            if k == "description" and isinstance(v, str)
            else _mask_descriptions(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_mask_descriptions(v) for v in value]
    return value


def _replace_text(value: Json, old: str, new: str) -> Json:
    if isinstance(value, dict):
        return {k: _replace_text(v, old, new) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_text(v, old, new) for v in value]
    if isinstance(value, str):
        return _DATE.sub("Current date: {DATE}", value.replace(old, new))
    return value


class IdNames:
    """Names for tool-call ids made up from the clock (``read_1764790000000_3``), in order of
    appearance, so that two runs' made-up ids compare equal."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def __call__(self, value: Json) -> Json:
        if isinstance(value, dict):
            return {k: self(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self(v) for v in value]
        if isinstance(value, str):
            match = _GENERATED_ID.match(value)
            if match:
                name = f"{match['name']}_{{TIME}}_{{N{len(self.names) + 1}}}"
                return self.names.setdefault(value, name)
        return value


def normalize_body(body: Json, run: Run, ids: IdNames) -> Json:
    """Tool (and parameter) descriptions masked, the run's folder written ``{CWD}``, made-up
    tool-call ids named."""
    body = ids(_replace_text(body, str(run.cwd.resolve()), "{CWD}"))
    if isinstance(body, dict) and isinstance(body.get("tools"), list):
        body = {**body, "tools": _mask_descriptions(body["tools"])}
    return body


def normalize_request(
    method: str, path: str, headers: dict[str, str], body: bytes, run: Run, ids: IdNames
) -> dict[str, Any]:
    try:
        parsed: Json = json.loads(body)
    except ValueError:
        parsed = body.decode("utf-8", "replace")
    lowered = {k.lower(): v for k, v in headers.items()}
    return {
        "method": method,
        "path": path,
        "headers": {name: lowered.get(name) for name in COMPARED_HEADERS},
        "body": normalize_body(parsed, run, ids),
    }


def assistant_messages(
    events: list[dict[str, Any]], run: Run, ids: IdNames
) -> list[dict[str, Any]]:
    """The assistant messages of ``message_end`` events, timestamps 0, made-up ids named."""
    out = []
    for event in events:
        message = event.get("message")
        if event.get("type") != "message_end" or not isinstance(message, dict):
            continue
        if message.get("role") != "assistant":
            continue
        message = {**message, "timestamp": 0}
        out.append(ids(_replace_text(message, str(run.cwd.resolve()), "{CWD}")))
    return out


def retry_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e.get("type") in ("auto_retry_start", "auto_retry_end")]


def json_lines(text: str) -> list[dict[str, Any]]:
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def dump(value: Json) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False) + "\n"
