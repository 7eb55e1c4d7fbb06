"""The extension in real VS Code (code-server 4.100.3) in headless Chromium, as a user meets it.

The test packages the extension into a ``.vsix`` (``npm run package``), installs it into a
code-server whose profile, extensions and XDG folders all live in the test's temporary folder,
points ``pi-lsp.server.command`` at this Python's ``pi_lsp`` and ``pi-lsp.agentDir`` at a
temporary agent dir whose ``models.json`` names a scripted OpenAI-compatible model
(:class:`~tests.agent.http_fixtures.LocalHTTPServer`). Then ``vscode-client/e2e/
code-server-e2e.mjs`` drives the browser: open ``sub/AGENTS.md``, whose instruction contradicts
the root ``AGENTS.md`` → the PI101 warning in the Problems panel; hover → the instruction order;
rewrite the line and save → the warning goes; open the pi-lsp chat view, send a prompt → the
model's ``bash`` call runs and its output shows in a tool card, and the Markdown answer streams
in (the model holds the second half back until the first is on screen).

Two journeys of issue 13 run in the same editor. The workspace holds a project skill
(``.agents/skills/release-notes/SKILL.md``) and no ``trust.json``, so with the default trust
setting the project is untrusted: the Problems panel lists the "untrusted project resource"
warning (PI203) once, on ``SKILL.md``; its quick fix "Trust this project", chosen from the
Problems panel, writes ``trust.json`` in the agent dir and the warning goes. Then "pi-lsp:
Restart server" from the command palette: the test looks in /proc (children of code-server's
extension host) and finds exactly one pi-lsp server, not the old one, once the new server's
findings are back.

Screenshots of every step go to ``test-artifacts/e2e/code-server/`` (printed; ``pytest -s``
shows it). A failure names the step and carries its screenshot, the driver's output, the end of
code-server's log and the extension's ``pi-lsp`` output channel.

Needs Chromium and code-server (``.ci/install-code-server.sh`` installs both; ``.ci/run`` runs it).
Without them the test is skipped, except under CI, where it fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.agent.http_fixtures import (
    Gate,
    LocalHTTPServer,
    RecordedRequest,
    Reply,
    openai_chunk,
    openai_text_reply,
    openai_tool_calls_reply,
    sse_reply,
)
from tests.processes import alive
from tests.system_programs import needs

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "vscode-client"
DRIVER = CLIENT / "e2e" / "code-server-e2e.mjs"
SHOTS = ROOT / "test-artifacts" / "e2e" / "code-server"
ANTHROPIC_KEY = "sk-ant-e2e-planted-Rt5"
DENY_PROMPT = "Clean up the notes file."
DENIED = "rm notes.txt"
DENY_REASON = "keep my notes"
AFTER_DENIAL = "Understood: I left notes.txt alone."
CODE_SERVER_VERSION = "4.100.3"
# where .ci/install-code-server.sh puts it unless told otherwise
INSTALL_DIR = Path(
    os.environ.get(
        "PI_LSP_CODE_SERVER_DIR",
        Path.home() / ".cache" / "pi-lsp" / f"code-server-{CODE_SERVER_VERSION}",
    )
)

NPM_INSTALL_TIMEOUT = 600.0  # seconds; only when vscode-client/node_modules is missing
PACKAGE_TIMEOUT = 120.0
READY_TIMEOUT = 60.0  # code-server answering /healthz
DRIVER_TIMEOUT = 240.0  # the whole browser session
WAIT_MS = 60_000  # each wait in the driver for the server or the model

CONFLICTING = "# Style\n\n- Never use tabs for indentation.\n"  # ws/AGENTS.md says "Always"
FIXED = "# Style\n\n- Write short commit messages.\n"  # what the driver types and saves
API_KEY = "sk-e2e-local-key"
PROMPT = "Run a command that says hello, please."
TOOL_OUTPUT = "hello-from-bash"
ANSWER_HEAD = "**Done.** The command printed `hello-from-bash`."
ANSWER_TAIL = "\n\nWhat happened:\n\n- the shell ran `echo`\n- its output came back to me\n"
SKILL = "release-notes"
# a double-quoted value over two lines (valid YAML), the kind that once froze the server
SKILL_MD = (
    "---\n"
    f"name: {SKILL}\n"
    'description: "Draft release notes from the merged PRs,\n'
    '  grouped by area."\n'
    "---\n\n"
    "# Release notes\n\nList the merged PRs by area, one line each.\n"
)
RESTART_TITLE = "pi-lsp: Restart server"  # vscode-client/package.json: category and title
TRUST_FIX = "Trust this project"  # pi_lsp/lint/fixes.py, followed by the folder


def find_code_server() -> Path | None:
    for candidate in (
        os.environ.get("PI_LSP_CODE_SERVER"),
        INSTALL_DIR / "node_modules" / ".bin" / "code-server",
        shutil.which("code-server"),
    ):
        if candidate and os.access(candidate, os.X_OK):
            return Path(candidate)
    return None


def find_chromium() -> Path | None:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    return Path(found) if found else None


CODE_SERVER, CHROMIUM = find_code_server(), find_chromium()
MISSING = [
    name
    for name, found in (
        ("code-server", CODE_SERVER),
        ("chromium", CHROMIUM),
        ("npm", shutil.which("npm")),
    )
    if found is None
]

pytestmark = needs(
    MISSING, f"needs {', '.join(MISSING)} (.ci/install-code-server.sh installs them)"
)


# -- the scripted model ------------------------------------------------------------------------


@dataclass
class ScriptedModel:
    """First a ``bash`` call, then (once the tool result is in) a Markdown answer in two halves:
    the second waits for ``rest`` (set when the first is on screen)."""

    rest: asyncio.Event = field(default_factory=asyncio.Event)

    def __call__(self, request: RecordedRequest) -> Reply:
        messages = request.json().get("messages", [])
        users = [i for i, message in enumerate(messages) if message.get("role") == "user"]
        if users and DENY_PROMPT in json.dumps(messages[users[-1]]):
            # the second prompt: a command the user is asked about, then a word on the denial
            if not any(message.get("role") == "tool" for message in messages[users[-1] :]):
                call = {"id": "call_e2e_rm", "name": "bash", "arguments": {"command": DENIED}}
                return openai_tool_calls_reply([call])
            return openai_text_reply(AFTER_DENIAL)
        if not any(message.get("role") == "tool" for message in messages):
            call = {
                "id": "call_e2e_bash",
                "name": "bash",
                "arguments": {"command": "echo " + TOOL_OUTPUT},
            }
            return openai_tool_calls_reply([call])
        parts: list[Any] = [openai_chunk({"role": "assistant", "content": ""})]
        parts += [
            openai_chunk({"content": ANSWER_HEAD[i : i + 6]}) for i in range(0, len(ANSWER_HEAD), 6)
        ]
        parts.append(Gate(self.rest))
        parts += [
            openai_chunk({"content": ANSWER_TAIL[i : i + 6]}) for i in range(0, len(ANSWER_TAIL), 6)
        ]
        parts.append(openai_chunk({}, finish_reason="stop"))
        parts.append("data: [DONE]\n\n")
        return sse_reply(parts)


# -- the editor's world -----------------------------------------------------------------------


@dataclass
class World:
    tmp: Path
    workspace: Path
    agent: Path
    user_data: Path
    extensions: Path
    env: dict[str, str]

    @property
    def log(self) -> Path:
        return self.tmp / "code-server.log"


def make_world(tmp: Path, model_url: str) -> World:
    workspace, agent, home = tmp / "ws", tmp / "agent", tmp / "home"
    for folder in (workspace / "sub", agent, home):
        folder.mkdir(parents=True)
    (workspace / "AGENTS.md").write_text("# Style\n\n- Always use tabs for indentation.\n")
    (workspace / "sub" / "AGENTS.md").write_text(CONFLICTING)
    skill = workspace / ".agents" / "skills" / SKILL
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL_MD)
    models = {
        "providers": {
            "local": {
                "baseUrl": model_url + "/v1",
                "api": "openai-completions",
                "apiKey": API_KEY,
                "models": [{"id": "scripted", "contextWindow": 32000, "maxTokens": 1000}],
            }
        }
    }
    (agent / "models.json").write_text(json.dumps(models, indent=2))
    # A key for a built-in provider brings Pi's catalogue into the model picker; the chat
    # still talks to the scripted model, the settings' default.
    auth = {"anthropic": {"type": "api_key", "key": ANTHROPIC_KEY}}
    (agent / "auth.json").write_text(json.dumps(auth))
    defaults = {"defaultProvider": "local", "defaultModel": "scripted"}
    (agent / "settings.json").write_text(json.dumps(defaults))
    (workspace / "notes.txt").write_text("mine\n")

    user_data = tmp / "code-server" / "user-data"
    (user_data / "User").mkdir(parents=True)
    settings = {
        "pi-lsp.server.command": [sys.executable, "-m", "pi_lsp", "serve"],
        "pi-lsp.agentDir": str(agent),
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": False,
        "workbench.welcomePage.walkthroughs.openOnInstall": False,
        "security.workspace.trust.enabled": False,
        "extensions.autoCheckUpdates": False,
        "extensions.autoUpdate": False,
        "update.mode": "none",
        "telemetry.telemetryLevel": "off",
        "git.enabled": False,
        "editor.quickSuggestions": {"other": False, "comments": False, "strings": False},
        "editor.suggestOnTriggerCharacters": False,
        # bash is asked about, but the first chat's echo is allow-listed
        "pi-lsp.approvalMode": "bash",
        "pi-lsp.approvalAllowCommands": ["echo"],
    }
    (user_data / "User" / "settings.json").write_text(json.dumps(settings, indent=2))

    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "VSCODE_"))}
    env.update(
        HOME=str(home),
        PI_CODING_AGENT_DIR=str(agent),
        XDG_DATA_HOME=str(tmp / "xdg" / "data"),
        XDG_CONFIG_HOME=str(tmp / "xdg" / "config"),
        XDG_CACHE_HOME=str(tmp / "xdg" / "cache"),
        XDG_STATE_HOME=str(tmp / "xdg" / "state"),
    )
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(name, None)
    return World(tmp, workspace, agent, user_data, tmp / "code-server" / "extensions", env)


def code_server_args(world: World) -> list[str]:
    return [
        str(CODE_SERVER),
        "--user-data-dir",
        str(world.user_data),
        "--extensions-dir",
        str(world.extensions),
    ]


def run(command: list[str], *, cwd: Path, env: dict[str, str], timeout: float) -> str:
    done = subprocess.run(
        command,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert done.returncode == 0, (
        f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    )
    return done.stdout


def package_extension(out: Path) -> Path:
    """``npm run package`` (vsce, whose prepublish step builds the production bundle)."""
    env = {**os.environ, "CI": "1", "NO_COLOR": "1"}
    if not (CLIENT / "node_modules").is_dir():
        install = "ci" if (CLIENT / "package-lock.json").is_file() else "install"
        run(
            ["npm", install, "--no-audit", "--no-fund"],
            cwd=CLIENT,
            env=env,
            timeout=NPM_INSTALL_TIMEOUT,
        )
    vsix = out / "pi-lsp.vsix"
    run(
        ["npm", "run", "package", "--", "-o", str(vsix)],
        cwd=CLIENT,
        env=env,
        timeout=PACKAGE_TIMEOUT,
    )
    check_vsix_contents(vsix)
    return vsix


def check_vsix_contents(vsix: Path) -> None:
    """What runs and what the marketplace shows, nothing else (``vscode-client/.vscodeignore``)."""
    with zipfile.ZipFile(vsix) as archive:
        names = {name.removeprefix("extension/") for name in archive.namelist()}
    names -= {"[Content_Types].xml", "extension.vsixmanifest"}
    required = {"package.json", "readme.md", "LICENSE.txt", "dist/extension.js", "dist/webview.js"}
    assert required <= names, sorted(names)
    assert "media/pi-lsp.svg" in names, sorted(names)  # the activity-bar icon
    assert any(name.startswith("dist/") and name.endswith(".css") for name in names), sorted(names)
    allowed = required | {n for n in names if n.startswith("media/")}
    allowed |= {n for n in names if n.startswith("dist/") and n.endswith((".js", ".css"))}
    assert names == allowed, f"unexpected files in the .vsix: {sorted(names - allowed)}"


# -- processes ----------------------------------------------------------------------------------


def parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return int(stat.rsplit(")", 1)[-1].split()[1])


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` now (from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        parent = parent_of(int(entry.name))
        if parent is not None:
            children.setdefault(parent, []).append(int(entry.name))
    found: set[int] = set()
    stack = [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def cmdline(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def language_servers(code_server_pid: int) -> dict[int, dict[str, Any]]:
    """The pi-lsp servers running below code-server now: pid → its command and its parent's."""
    found: dict[int, dict[str, Any]] = {}
    for pid in descendants(code_server_pid):
        command = cmdline(pid)
        if alive(pid) and "pi_lsp" in command and "serve" in command:
            parent = parent_of(pid)
            found[pid] = {
                "command": command,
                "parent": parent,
                "parentCommand": cmdline(parent) if parent else [],
            }
    return found


async def stop_tree(process: asyncio.subprocess.Process) -> None:
    """End ``process`` (started in a session of its own), its group and every descendant."""
    pids = descendants(process.pid) | {process.pid}
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, sig)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + 5.0
        while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        if not any(alive(pid) for pid in pids):
            break
    with contextlib.suppress(ProcessLookupError):
        await asyncio.wait_for(process.wait(), 5.0)


@dataclass
class CodeServer:
    url: str  # with the workspace folder
    pid: int


@contextlib.asynccontextmanager
async def code_server(world: World) -> AsyncIterator[CodeServer]:
    """A running code-server on a free port of 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = world.log.open("wb")
    process = await asyncio.create_subprocess_exec(
        *code_server_args(world),
        "--bind-addr",
        f"127.0.0.1:{port}",
        "--auth",
        "none",
        "--disable-telemetry",
        "--disable-update-check",
        "--disable-workspace-trust",
        "--disable-getting-started-override",
        str(world.workspace),
        cwd=world.tmp,
        env=world.env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=log,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + READY_TIMEOUT
        async with httpx.AsyncClient(timeout=2.0) as http:
            while True:
                if process.returncode is not None:
                    pytest.fail(f"code-server exited {process.returncode}\n{tail(world.log)}")
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(base + "/healthz")).status_code == 200:
                        break
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"code-server not ready within {READY_TIMEOUT} s\n{tail(world.log)}"
                    )
                await asyncio.sleep(0.2)
        yield CodeServer(f"{base}/?folder={world.workspace}", process.pid)
    finally:
        await stop_tree(process)
        log.close()


# -- reports ------------------------------------------------------------------------------------


def tail(path: Path, size: int = 6000) -> str:
    if not path.is_file():
        return f"(no {path})"
    text = path.read_text(errors="replace")
    return f"--- end of {path}:\n{text[-size:]}"


def output_channel(world: World) -> str:
    """The extension's ``pi-lsp`` output channel, as VS Code logs it under the profile."""
    logs = sorted((world.user_data / "logs").glob("**/pi-lsp*.log"))
    return "\n".join(tail(path, 8000) for path in logs) or "(no pi-lsp output channel log)"


@dataclass
class DriverRun:
    steps: dict[str, dict[str, Any]]
    failure: dict[str, Any] | None
    returncode: int | None
    stdout: str
    stderr: str


Answerer = Callable[[str], Awaitable[dict[str, Any]]]


async def drive(
    config: dict[str, Any], work: Path, model: ScriptedModel, answer: Answerer
) -> DriverRun:
    """Run the browser driver; let the model finish its answer when the driver says so, and
    answer what it asks (one JSON line on its stdin)."""
    config_file = work / "driver.json"
    config_file.write_text(json.dumps(config, indent=2))
    process = await asyncio.create_subprocess_exec(
        "node",
        str(DRIVER),
        str(config_file),
        cwd=CLIENT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert process.stdin is not None
    assert process.stdout is not None and process.stderr is not None
    steps: dict[str, dict[str, Any]] = {}
    failure: dict[str, Any] | None = None
    lines: list[str] = []
    stderr_task = asyncio.create_task(process.stderr.read())

    async def read() -> None:
        nonlocal failure
        assert process.stdout is not None
        async for raw in process.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            lines.append(line)
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("event") == "partial-answer":
                model.rest.set()
            elif "ask" in record:
                try:
                    reply = await answer(record["ask"])
                except AssertionError as error:  # the driver fails the step with it
                    reply = {"error": str(error)}
                assert process.stdin is not None
                process.stdin.write((json.dumps(reply) + "\n").encode())
                with contextlib.suppress(ConnectionError):
                    await process.stdin.drain()
            elif "step" in record:
                steps[record["step"]] = record
            elif "failed" in record:
                failure = record
        await process.wait()

    try:
        await asyncio.wait_for(read(), DRIVER_TIMEOUT)
    except TimeoutError:
        failure = {"failed": "timeout", "error": f"the driver ran over {DRIVER_TIMEOUT} s"}
    finally:
        if process.returncode is None:
            await stop_tree(process)
    stderr = (await stderr_task).decode(errors="replace")
    return DriverRun(steps, failure, process.returncode, "\n".join(lines), stderr)


# -- the test -----------------------------------------------------------------------------------


@dataclass
class RestartWatch:
    """Answers the driver's questions around "Restart server" from /proc: which pi-lsp servers
    run below code-server before it, when the old one is gone and a new one runs, and which run
    once the new one has answered."""

    code_server_pid: int
    seen: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)

    def servers(self, when: str) -> dict[str, Any]:
        found = language_servers(self.code_server_pid)
        self.seen[when] = found
        return {"pids": sorted(found)}

    async def __call__(self, question: str) -> dict[str, Any]:
        if question == "server-before-restart":
            return self.servers(question)
        if question == "server-replaced":
            [old] = self.seen["server-before-restart"] or [None]
            deadline = time.monotonic() + WAIT_MS / 1000
            while True:
                found = language_servers(self.code_server_pid)
                if found and old not in found and (old is None or not alive(old)):
                    return self.servers(question)
                assert time.monotonic() < deadline, (
                    f"no new pi-lsp server in place of pid {old}: {found}"
                )
                await asyncio.sleep(0.1)
        if question == "server-answered":
            return self.servers(question)
        raise AssertionError(f"unknown question {question!r}")


@pytest.mark.timeout(NPM_INSTALL_TIMEOUT + PACKAGE_TIMEOUT + READY_TIMEOUT + DRIVER_TIMEOUT + 60)
async def test_vscode_shows_the_conflict_hover_fix_and_chats(tmp_path: Path) -> None:
    assert not MISSING, f"missing {', '.join(MISSING)}: run .ci/install-code-server.sh"
    shutil.rmtree(SHOTS, ignore_errors=True)
    SHOTS.mkdir(parents=True)
    print(f"code-server e2e screenshots: {SHOTS}")

    vsix = package_extension(tmp_path)
    model = ScriptedModel()
    async with LocalHTTPServer(handler=model) as server:
        world = make_world(tmp_path, server.base_url)
        installed = run(
            [*code_server_args(world), "--install-extension", str(vsix)],
            cwd=tmp_path,
            env=world.env,
            timeout=PACKAGE_TIMEOUT,
        )
        assert "successfully installed" in installed, installed
        listed = run(
            [*code_server_args(world), "--list-extensions", "--show-versions"],
            cwd=tmp_path,
            env=world.env,
            timeout=PACKAGE_TIMEOUT,
        )
        assert "pi-lsp.pi-lsp@" in listed, listed

        async with code_server(world) as editor:
            conflict = world.workspace / "sub" / "AGENTS.md"
            config = {
                "url": editor.url,
                "chromium": str(CHROMIUM),
                "shots": str(SHOTS),
                "timeoutMs": WAIT_MS,
                "problemText": "conflicting-instructions",
                "hoverText": "Instruction order",
                "file": {
                    "path": str(conflict),
                    "relative": "sub/AGENTS.md",
                    "conflictLine": "Never use tabs for indentation.",
                    "hoverWord": "Style",
                    "editWord": "Never",
                    "editLine": 3,
                    "replacement": "- Write short commit messages.",
                    "expectedAfterSave": FIXED,
                },
                "trust": {
                    "problemText": "untrusted-project-resource",
                    "fixTitle": TRUST_FIX,
                    "storePath": str(world.agent / "trust.json"),
                },
                "restart": {"title": RESTART_TITLE},
                "approval": {
                    "prompt": DENY_PROMPT,
                    "command": DENIED,
                    "reason": DENY_REASON,
                    "after": AFTER_DENIAL,
                },
                "models": {
                    "title": "Select the chat model",
                    "search": "claude-sonnet-4-5",
                    "expect": "Claude Sonnet 4.5",
                    "allLabel": "All models Pi knows",
                    "unreachable": "amazon-bedrock/us.anthropic.claude-opus-4-6",
                },
                "chat": {
                    "prompt": PROMPT,
                    "toolName": "bash",
                    "toolOutput": TOOL_OUTPUT,
                    "partial": "The command printed",
                    "final": "its output came back to me",
                },
            }
            restarts = RestartWatch(editor.pid)
            result = await drive(config, tmp_path, model, restarts)

        def report(what: str) -> str:
            return "\n".join(
                [
                    what,
                    f"screenshots: {SHOTS}",
                    f"--- driver (exit {result.returncode}):\n{result.stdout}",
                    result.stderr[-4000:],
                    tail(world.log),
                    "--- pi-lsp output channel:",
                    output_channel(world),
                ]
            )

        failure = result.failure
        assert failure is None and result.returncode == 0, report(
            f"step {failure and failure.get('failed')!r} failed: {failure and failure.get('error')}"
            f" (screenshot {failure and failure.get('screenshot')})"
        )
        steps = result.steps
        for record in steps.values():
            print(f"{record['seconds']:6.1f} s  {record['step']:<17} {record['screenshot']}")

        # The Problems panel listed the conflict on sub/AGENTS.md and the untrusted skill folder,
        # and no other finding.
        problems = steps["problems"]["rows"]
        assert any("PI101" in row and "use tabs" in row for row in problems), report(str(problems))
        findings = [row for row in problems if " pi-lsp " in row]
        assert findings and all("PI101" in row or "PI203" in row for row in findings), report(
            str(problems)
        )

        # PI203: once, under the SKILL.md file (the row above it in the tree), nowhere else.
        rows = steps["untrusted"]["rows"]
        untrusted = [i for i, row in enumerate(rows) if "PI203" in row["text"]]
        assert len(untrusted) == 1, report(f"PI203 rows: {rows}")
        [at] = untrusted
        assert rows[at]["level"] == 2, report(str(rows))
        owner = next(row for row in reversed(rows[:at]) if row["level"] == 1)
        assert owner["text"].startswith("SKILL.md"), report(f"PI203 sits under {owner}")
        assert f".agents/skills/{SKILL}" in owner["text"], report(str(owner))
        # Its fix was offered from the Problems panel, and choosing it trusted the project:
        # trust.json names the workspace (as Pi stores it: the real path) and the warning went.
        offered = steps["trust-fix-offered"]["offered"]
        assert any(item.startswith(TRUST_FIX) for item in offered), report(str(offered))
        trusted = steps["trusted"]
        assert json.loads(trusted["written"]) == {os.path.realpath(world.workspace): True}, report(
            str(trusted)
        )
        assert not any("PI203" in row["text"] for row in trusted["rows"]), report(str(trusted))
        assert json.loads((world.agent / "trust.json").read_text()) == json.loads(
            trusted["written"]
        )

        # Restart: one server before, started by the extension host; once the new one answered
        # (its PI101 back in the Problems panel) exactly one runs, another pid, the old one gone.
        seen = restarts.seen
        [(old, before)] = seen["server-before-restart"].items()
        assert "extensionHost" in " ".join(before["parentCommand"]), report(str(before))
        [(new, after)] = seen["server-answered"].items()
        assert new != old and not alive(old), report(str(seen))
        assert after["parent"] == before["parent"], report(str(seen))
        palette = steps["restart-palette"]["rows"]
        assert any(RESTART_TITLE in row for row in palette), report(str(palette))
        back = steps["restarted"]["rows"]
        assert any("PI101" in row["text"] for row in back), report(str(back))
        # The hover showed the instruction order: the root file first, this one second.
        hover = steps["hover"]["hover"]
        # paths relative to the workspace: "1. AGENTS.md — …", "2. sub/AGENTS.md ← this file — …"
        root_at, sub_at = hover.find("AGENTS.md —"), hover.find("sub/AGENTS.md")
        assert 0 <= root_at < sub_at, report(hover)
        assert "this file" in hover, report(hover)
        # The edit was saved and the conflict went away with it.
        fixed = steps["fixed"]
        assert fixed["saved"] == FIXED, report(str(fixed))
        assert not any("PI101" in row for row in fixed["rows"]), report(str(fixed))
        assert "No problems have been detected" in fixed["message"], report(str(fixed))
        assert conflict.read_text() == fixed["saved"]

        # Chat: the prompt reached the model, the bash call ran, its output came back to the
        # model and into the tool card, and the answer was on screen half-way and in full.
        assert len(server.requests) == 4, report(f"{len(server.requests)} model requests")
        first, second = (request.json() for request in server.requests[:2])
        assert PROMPT in json.dumps(first["messages"]), report(json.dumps(first)[:3000])
        [tool_message] = [m for m in second["messages"] if m.get("role") == "tool"]
        assert TOOL_OUTPUT in json.dumps(tool_message), report(json.dumps(tool_message))
        assert server.requests[0].headers.get("authorization") == f"Bearer {API_KEY}"
        card = steps["tool-card"]
        assert card["toolCallId"] == "call_e2e_bash", report(str(card))
        assert card["output"].strip() == TOOL_OUTPUT, report(str(card))
        streaming = steps["answer-streaming"]["text"]
        assert "its output came back" not in streaming, report(streaming)
        answer = steps["answer"]
        assert answer["strong"] == ["Done."], report(str(answer))
        assert "hello-from-bash" in answer["code"], report(str(answer))
        assert answer["items"] == ["the shell ran echo", "its output came back to me"], report(
            str(answer)
        )
        # The context meter measures against the model's window from models.json (32000).
        assert "32k" in answer["meter"], report(str(answer))
        kinds = ["systemPrompt", "contextFiles", "skills", "tools", "messages", "summaries"]
        assert answer["segments"] == kinds, report(str(answer))
        # The second prompt's rm was asked about in the chat, denied with a reason: the file is
        # still there and the model read the denial as the call's result.
        asked = steps["approval-asked"]
        assert asked["question"] == "Run this command?", report(str(asked))
        assert asked["command"] == DENIED, report(str(asked))
        assert (world.workspace / "notes.txt").read_text() == "mine\n"
        denied = steps["approval-denied"]
        assert DENY_REASON in denied["outcome"], report(str(denied))
        results = [m for m in server.requests[-1].json()["messages"] if m.get("role") == "tool"]
        assert "denied by the user" in json.dumps(results[-1]), report(json.dumps(results))
        assert DENY_REASON in json.dumps(results[-1]), report(json.dumps(results))
        # The model picker offered the keyed catalogue models, and all models with their key
        # status: a Bedrock model as one pi-lsp cannot reach yet.
        picker = steps["model-picker"]["rows"]
        assert any("Claude Sonnet 4.5" in row and "anthropic" in row for row in picker), report(
            str(picker)
        )
        every = steps["all-models"]["rows"]
        assert any("amazon-bedrock/" in row and "cannot reach it yet" in row for row in every), (
            report(str(every))
        )
        assert ANTHROPIC_KEY not in output_channel(world)
        for name, record in steps.items():
            assert Path(record["screenshot"]).is_file(), name
