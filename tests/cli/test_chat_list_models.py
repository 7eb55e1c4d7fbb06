"""``pi-lsp chat --list-models`` prints what ``pi --list-models`` printed (goldens recorded from
Pi 0.85.0 in ``list_models/``), and ``--all`` adds every model Pi knows with its key status."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GOLDENS = Path(__file__).parent / "list_models"
ENV = {"GROQ_API_KEY": "g", "LOCAL_KEY": "l", "ANTHROPIC_API_KEY": "sk-ant-planted-Zq9"}


def list_models(
    tmp_path: Path, *args: str, env: dict[str, str] = ENV
) -> subprocess.CompletedProcess[str]:
    agent = tmp_path / "agent"
    if not agent.exists():
        agent.mkdir()
        for name in ("models.json", "auth.json"):
            shutil.copy(GOLDENS / name, agent / name)
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env}
    return subprocess.run(
        [sys.executable, "-m", "pi_lsp", "chat", "--agent-dir", str(agent), "--list-models", *args],
        capture_output=True,
        text=True,
        env={**environment, "PYTHONPATH": ":".join(sys.path)},
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("search", "golden"),
    [
        ((), "pi-all.txt"),
        (("gpt oss",), "pi-gpt-oss.txt"),
        (("llama/3.3",), "pi-llama-3.3.txt"),
        (("glm5",), "pi-glm5.txt"),
        (("nothing-like-this",), "pi-nothing-like-this.txt"),
    ],
)
def test_the_listing_is_pi_s(tmp_path: Path, search: tuple[str, ...], golden: str) -> None:
    done = list_models(tmp_path, *search)
    assert done.returncode == 0, done.stderr
    assert done.stdout == (GOLDENS / golden).read_text()


def test_the_listing_shows_models_json_models_and_overrides(tmp_path: Path) -> None:
    lines = list_models(tmp_path).stdout.splitlines()
    rows = {tuple(line.split()[:2]): line.split() for line in lines[1:]}
    assert rows[("local", "qwen-local")][2:] == ["32.8K", "8.2K", "yes", "no"]
    assert rows[("groq", "llama-3.3-70b-versatile")][2:4] == ["1M", "1.5K"]
    assert ("deepseek", "deepseek-v4-pro") in rows  # key in models.json
    assert ("zai", "glm-5.3") in rows  # key in auth.json
    assert not any(provider == "openrouter" for provider, _ in rows)  # no key


def test_all_lists_every_model_with_where_its_key_comes_from(tmp_path: Path) -> None:
    done = list_models(tmp_path, "--all")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split() == [
        "provider",
        "model",
        "context",
        "max-out",
        "thinking",
        "images",
        "key",
    ]
    assert len(lines) > 1300
    keys = {tuple(line.split()[:2]): line.split(None, 6)[6].strip() for line in lines[1:]}
    assert keys[("anthropic", "claude-sonnet-4-5")] == "$ANTHROPIC_API_KEY"
    assert keys[("zai", "glm-5.3")] == "auth.json"
    assert keys[("deepseek", "deepseek-v4-pro")] == "models.json"
    assert keys[("openrouter", "moonshotai/kimi-k2.6")] == "none (set $OPENROUTER_API_KEY)"
    assert keys[("amazon-bedrock", "us.anthropic.claude-opus-4-6-v1")] == (
        "cannot reach yet (bedrock-converse-stream)"
    )
    assert ENV["ANTHROPIC_API_KEY"] not in done.stdout + done.stderr


def test_nothing_available_says_how_to_add_a_key(tmp_path: Path) -> None:
    (tmp_path / "agent").mkdir()
    done = list_models(tmp_path, env={})
    assert done.returncode == 0
    assert done.stdout.startswith("No models available.")
    assert "--list-models --all" in done.stdout


def test_a_prompt_is_needed_without_list_models(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pi_lsp", "chat", "--agent-dir", str(tmp_path)],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": ":".join(sys.path)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "give a PROMPT" in done.stderr


@pytest.mark.parametrize(
    ("model", "why"),
    [
        (
            "amazon-bedrock/us.anthropic.claude-opus-4-6-v1",
            "signs its requests with AWS credentials",
        ),
        ("openai-codex/gpt-5.5", "logs in with OAuth"),
    ],
)
def test_choosing_a_model_pi_lsp_cannot_reach_says_so_before_any_request(
    tmp_path: Path, model: str, why: str
) -> None:
    (tmp_path / "agent").mkdir()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pi_lsp",
            "chat",
            "--agent-dir",
            str(tmp_path / "agent"),
            "--no-session",
            "--model",
            model,
            "hi",
        ],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": ":".join(sys.path)},
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert f"pi-lsp cannot reach {model} yet" in done.stderr
    assert why in done.stderr
