"""The chat view's page in a real browser: headless Chromium runs the built ``dist/webview.js``.

``vscode-client/e2e/webview/run.mjs`` serves the page the extension serves (``src/chat/page.ts``,
same Content-Security-Policy with a nonce), gives it ``acquireVsCodeApi`` as VS Code does, posts
host messages and reports what the page shows and posts back; the assertions are here. The
bundle is rebuilt first when a source is newer than it.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.system_programs import needs

CLIENT = Path(__file__).resolve().parents[2] / "vscode-client"
CHROMIUM = Path("/usr/bin/chromium")
NODE = shutil.which("node")
BUNDLE = CLIENT / "dist" / "webview.js"
STYLE = CLIENT / "dist" / "chat.css"

pytestmark = needs(
    [n for n, found in (("node", NODE), (str(CHROMIUM), CHROMIUM.exists())) if not found],
    "needs node and /usr/bin/chromium (.ci/install-code-server.sh installs them)",
)


def _sources() -> list[Path]:
    found = [CLIENT / "esbuild.mjs", CLIENT / "package.json"]
    for folder in (CLIENT / "webview", CLIENT / "src" / "chat"):
        found.extend(path for path in folder.rglob("*") if path.is_file())
    return found


def _build_if_stale() -> None:
    built = [path for path in (BUNDLE, STYLE) if path.is_file()]
    if len(built) == 2:
        oldest = min(path.stat().st_mtime for path in built)
        if all(path.stat().st_mtime <= oldest for path in _sources()):
            return
    env = {**os.environ, "CI": "1", "NO_COLOR": "1"}
    if not (CLIENT / "node_modules").is_dir():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"], cwd=CLIENT, env=env, check=True, timeout=600
        )
    result = subprocess.run(
        ["npm", "run", "build"],
        cwd=CLIENT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, f"npm run build failed:\n{result.stdout}\n{result.stderr}"


@pytest.fixture(scope="module")
def seen() -> dict[str, Any]:
    _build_if_stale()
    assert NODE is not None
    result = subprocess.run(
        [NODE, "e2e/webview/run.mjs", "--chromium", str(CHROMIUM)],
        cwd=CLIENT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, (
        f"the browser run failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    )
    observed: dict[str, Any] = json.loads(result.stdout)
    return observed


@pytest.mark.timeout(120)
def test_page_loads_under_its_csp_with_every_control(seen: dict[str, Any]) -> None:
    assert seen["controls"] == [
        "textarea#prompt",
        "button#send",
        "button#stop",
        "select#model",
        "select#thinking",
        "button#new-session",
        "button#sessions",
        "#transcript",
        "#context-meter",
    ]
    assert seen["pageErrors"] == []
    assert seen["violations"] == [], "the page itself needed something its CSP forbids"
    assert sorted(seen["requests"]) == [
        "https://webview.test/dist/chat.css",
        "https://webview.test/dist/webview.js",
        "https://webview.test/index.html",
    ], "the page loaded something besides its own script and style (an image of the answer?)"
    assert seen["posted"][0] == {"type": "ready"}


@pytest.mark.timeout(120)
def test_a_streamed_answer_renders_piece_by_piece_in_order(seen: dict[str, Any]) -> None:
    streamed = [text.rstrip("\n") for text in seen["streamed"]]
    assert streamed[0] == "Hello"
    assert streamed[1] == "Hello world, see the docs."
    assert "print('hi')" in streamed[2]
    assert streamed[3].endswith("Done.")
    for earlier, later in itertools.pairwise(streamed):
        assert later.startswith(earlier)
    rendered = seen["rendered"]
    assert rendered["strong"] == "world"
    assert rendered["link"] == "https://example.com/docs"
    assert rendered["highlighted"] >= 1, "the python block was not highlighted"
    assert rendered["copyButtons"] == 1
    # The user's text is shown as typed, HTML included, never interpreted.
    assert rendered["user"] == "list the files <b>now</b>"
    assert rendered["userBold"] == 0
    assert rendered["order"] == ["u1", "a1"]
    # Clicking a link posts nothing (VS Code's webview host opens it, once); the page stays where
    # it is.
    assert seen["postedOnLinkClick"] == []
    assert not [m for m in seen["posted"] if m.get("type") == "openLink"]
    assert seen["urlAfterClick"] == "https://webview.test/index.html"
    # A user message offers to restore the files to the point before it was answered.
    assert seen["postedOnRestore"] == [{"type": "restoreFiles", "itemId": "u1"}]
    assert seen["linkified"] == ["https://example.org/x", "mailto:dev@example.org"]
    # Mail links lose their query.
    assert seen["mailHrefs"] == ["mailto:dev@example.org", "mailto:a@b.c"]


@pytest.mark.timeout(120)
def test_only_cards_with_a_tool_run_offer_the_full_output(seen: dict[str, Any]) -> None:
    assert seen["openButtons"] == {"call-1": True, "bx1": False, "p1": False, "p1Running": True}


@pytest.mark.timeout(120)
def test_hostile_markdown_and_html_stay_inert_and_visible_as_text(seen: dict[str, Any]) -> None:
    hostile = seen["hostile"]
    assert seen["dialogs"] == [], "a script in the answer ran"
    assert hostile["dangerous"] == []
    assert hostile["handlers"] == []
    assert hostile["styles"] == []
    assert hostile["bodyVisible"]
    for href in hostile["hrefs"]:
        assert href.startswith(("https://", "http://", "mailto:")), href
    text = hostile["text"]
    for shown in (
        "<script>alert('script')</script>",
        "<img src=x onerror=alert('img')>",
        "[click me](javascript:alert('link'))",
        '<iframe src="https://evil.test"></iframe>',
        "<a href=\"javascript:alert('raw')\">raw link</a>",
        "<style>body{display:none}</style>",
    ):
        assert shown in text
    assert "<img src=x onerror=alert('thinking')>" in hostile["thinking"]
    assert seen["thinkingCollapsed"], "thinking should start collapsed"
    assert hostile["notice"].startswith("<img src=x onerror=alert('notice')>")
    assert "<script>alert('detail')</script>" in hostile["notice"]
    assert hostile["toolOutput"] == "<script>alert('tool')</script>"


@pytest.mark.timeout(120)
def test_tool_card_shows_output_live_then_its_end_and_opens_its_panel(seen: dict[str, Any]) -> None:
    assert seen["toolLive"] == ["a.txt\n", "a.txt\nb.txt\n", "a.txt\nb.txt\nc.txt\n"]
    running = seen["toolRunning"]
    assert running["name"] == "bash"
    assert running["title"] == "bash ls -la"
    assert "status-running" in running["classes"]
    assert not running["truncated"]
    done = seen["toolDone"]
    assert "status-done" in done["classes"]
    assert done["truncated"]
    assert done["output"] == "a.txt\nb.txt\nc.txt\n"
    assert {"type": "openOutput", "toolCallId": "call-1"} in seen["posted"]
    # An edit's diff keeps its text, added and removed lines marked.
    assert seen["editDiff"] == {
        "text": "Successfully replaced 1 block(s) in src/a.ts.\n-3 <old>\n+3 <new>\n",
        "added": ["+3 <new>\n"],
        "removed": ["-3 <old>\n"],
    }


@pytest.mark.timeout(120)
def test_context_meter_segments_are_proportional_with_threshold(
    seen: dict[str, Any],
) -> None:
    meter, usage = seen["meter"], seen["usage"]
    assert not meter["hidden"]
    assert meter["summary"] == "41.2k / 128k"
    titles = seen["meterTitles"]
    assert "estimate" not in titles["estimate"].split("\n")[0]
    assert "last reported 39k" in titles["usage"] and "~" not in titles["usage"]
    assert "estimated (chars / 4)" in titles["chars"] and "~41.2k" in titles["chars"]
    window = usage["contextWindow"]
    bar = meter["barWidth"]
    assert bar > 100
    assert [s["kind"] for s in meter["segments"]] == [c["kind"] for c in usage["categories"]]
    for segment, category in zip(meter["segments"], usage["categories"], strict=True):
        assert segment["tokens"] == category["tokens"]
        assert segment["width"] == pytest.approx(bar * category["tokens"] / window, abs=1.0)
        assert segment["title"].startswith(f"{category['label']}: ")
    assert meter["thresholdCenter"] == pytest.approx(bar * usage["threshold"] / window, abs=1.5)


@pytest.mark.timeout(120)
def test_prompt_keys_buttons_and_host_messages(seen: dict[str, Any]) -> None:
    posted = seen["posted"]
    # Shift+Enter makes a new line; Enter sends and empties the box.
    assert seen["promptBeforeSend"] == "first line\nsecond line"
    assert {"type": "send", "text": "first line\nsecond line"} in posted
    assert seen["promptAfterSend"] == ""
    assert seen["model"] == {"value": "anthropic/claude-x", "options": 2}
    assert {"type": "selectModel", "value": "openai/gpt-y"} in posted
    assert seen["stopVisible"]
    assert seen["modelDisabledWhileRunning"]
    assert not seen["stopVisibleAfter"]
    assert {"type": "stop"} in posted
    assert {"type": "newSession"} in posted
    assert {"type": "sessions"} in posted
    assert seen["ignoredMalformed"]
    assert seen["setPrompt"] == "edit me"
    assert seen["afterReset"] == {"ids": ["r1", "r2"], "em": "rebuilt"}


@pytest.mark.timeout(120)
def test_thinking_picker_posts_a_pick_and_shows_the_hosts_level(seen: dict[str, Any]) -> None:
    assert seen["thinkingLevels"] == ["off", "minimal", "low", "medium", "high", "xhigh"]
    assert seen["thinkingPlacement"] == {"sameRow": True, "afterModel": True, "sameLook": True}
    # While an answer runs the level cannot change.
    assert seen["thinkingWhileRunning"] == {"value": "medium", "disabled": True}
    idle = seen["thinkingIdle"]
    assert idle == {
        "value": "medium",
        "disabled": False,
        "title": "Thinking: medium",
        "label": "Thinking",
        "visible": True,
    }
    assert seen["thinkingPicked"]["value"] == "high"
    assert {"type": "selectThinking", "value": "high"} in seen["posted"]
    # The host's level wins (here: it refused "high" and says "low" holds).
    assert seen["thinkingFromHost"]["value"] == "low"
    assert seen["thinkingFromHost"]["title"] == "Thinking: low"
    # A model without reasoning: off, and the picker cannot be used.
    no_reasoning = seen["thinkingNoReasoning"]
    assert no_reasoning["value"] == "off"
    assert no_reasoning["disabled"]
    assert no_reasoning["title"] == "Thinking: off (this model does not reason)"
    # Before a session says its level: the server's default.
    assert seen["thinkingDefault"]["value"] == ""
    assert seen["thinkingDefault"]["title"] == "Thinking: the default level"
    assert not seen["thinkingDefault"]["disabled"]
    # A state with an unknown level is ignored.
    assert seen["thinkingAfterBadState"] == seen["thinkingDefault"]


@pytest.mark.timeout(120)
def test_at_completes_files_and_the_picked_file_goes_with_the_prompt(seen: dict[str, Any]) -> None:
    assert seen["mentionAsked"] == {"trigger": "@", "query": "mai"}
    assert seen["mentionList"] == {"visible": True, "rows": ["src/", "src/app/main.py"]}
    assert seen["mentionPicked"] == "explain @src/app/main.py "
    assert seen["mentionListAfterPick"] is True
    assert seen["mentionSent"] == {
        "type": "send",
        "text": "explain @src/app/main.py please",
        "attachments": [{"kind": "file", "path": "src/app/main.py"}],
    }
    assert seen["commandAsked"] == {"trigger": "/", "query": "re"}
    assert seen["commandRow"] == {"label": "/review", "detail": "Review the staged change"}
    assert seen["commandPicked"] == "/review "


@pytest.mark.timeout(120)
def test_a_pasted_image_and_a_selection_become_chips_and_are_sent(seen: dict[str, Any]) -> None:
    assert seen["chips"] == {
        "labels": ["shot.png", "b.py:3-4"],
        "thumb": "data:image/png;base64,",
        "thumbLoaded": True,
    }
    image = {"kind": "image", "mimeType": "image/png", "data": seen["pastedImage"]}
    selection = {"kind": "selection", "path": "/ws/src/b.py", "startLine": 3, "endLine": 4}
    assert seen["imageSent"] == {
        "type": "send",
        "text": "/review what is this?",
        "attachments": [{**image, "name": "shot.png"}, {**selection, "text": "x = 2\ny = 3"}],
    }
    assert seen["chipsAfterSend"] == {"hidden": True, "count": 0}
    assert seen["sentChips"] == ["b.py:3-4", "pasted image"]
    assert {"type": "attachActiveFile"} in seen["posted"]


def test_a_reviewable_edit_card_accepts_in_the_editor_and_reopens_the_diff(
    seen: dict[str, Any],
) -> None:
    assert seen["reviewButtons"] == [
        "Accept",
        "Show diff",
        "Allow file changes for this session",
        "Reject",
    ]
    assert seen["postedOnReview"] == [
        {"type": "reviewDiff", "id": "approval-r1"},
        {"type": "approve", "id": "approval-r1", "decision": "applied"},
    ]
    assert seen["reviewOutcome"] == "Accepted: applied in the editor and saved"


def test_a_finished_edit_card_offers_review_diff_and_revert(seen: dict[str, Any]) -> None:
    assert seen["madeButtons"] == [["Review diff", "Revert"], []]
    assert seen["postedOnMade"] == [
        {"type": "reviewChange", "toolCallId": "call-e1"},
        {"type": "revertChange", "toolCallId": "call-e1"},
    ]
