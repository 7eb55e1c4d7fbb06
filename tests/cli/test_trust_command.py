"""``pi-lsp trust`` and what ``pi-lsp prompt`` says about an untrusted project, as a user runs
them: the installed console script in a subprocess, with its own home and agent dir."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

from tests.cli.isolated import PI_LSP, isolated_env, run_pi_lsp


def pi_lsp(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_pi_lsp(tmp, *args, cwd=tmp / "proj")


def project(tmp: Path) -> Path:
    """A project whose every trust-gated resource changes the prompt."""
    for name in ("home", "agent", "proj/.pi/skills/deploy", "proj/.pi/prompts"):
        (tmp / name).mkdir(parents=True)
    proj = tmp / "proj"
    (proj / "AGENTS.md").write_text("Use pnpm.\n")
    (proj / ".pi" / "SYSTEM.md").write_text("You are the project's own agent.\n")
    (proj / ".pi" / "APPEND_SYSTEM.md").write_text("Answer in French.\n")
    (proj / ".pi" / "settings.json").write_text('{"defaultTools": ["read"]}\n')
    (proj / ".pi" / "prompts" / "review.md").write_text("Review the diff.\n")
    (proj / ".pi" / "skills" / "deploy" / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: Deploy the app to staging when asked to ship.\n---\n"
    )
    return proj


def store(tmp: Path) -> Path:
    return tmp / "agent" / "trust.json"


def test_untrusted_prompt_says_what_it_left_out_and_the_command_trusts_it(tmp_path: Path) -> None:
    proj = project(tmp_path)
    real = os.path.realpath(proj)

    untrusted = pi_lsp(tmp_path, "prompt")
    assert untrusted.returncode == 0
    assert "You are the project's own agent." not in untrusted.stdout
    assert "<name>deploy</name>" not in untrusted.stdout
    err = untrusted.stderr
    assert f"the project {real} is not trusted" in err
    for shown in (
        ".pi/settings.json (project settings)",
        ".pi/skills (project skills)",
        ".pi/prompts (project prompt templates)",
        ".pi/SYSTEM.md (replaces the system prompt)",
        ".pi/APPEND_SYSTEM.md (appended to the system prompt)",
    ):
        assert f"\n  {shown}\n" in err, err
    assert "--approve" in err
    [command] = re.findall(r"run `([^`]+)`", err)
    assert command == f"pi-lsp trust {real}"

    # the suggested command, as the user would paste it
    trusted = pi_lsp(tmp_path, *shlex.split(command)[1:])
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.splitlines()[0] == f"Trusted: {real} (saved in {store(tmp_path)})"
    # what Pi's "Trust" writes: the canonical folder, pretty-printed, sorted, a final newline
    assert store(tmp_path).read_text() == json.dumps({real: True}, indent=2) + "\n"
    assert not Path(f"{store(tmp_path)}.lock").exists()

    after = pi_lsp(tmp_path, "prompt")
    assert after.stdout.startswith("You are the project's own agent.")
    assert "Answer in French." in after.stdout and "<name>deploy</name>" in after.stdout
    assert "not trusted" not in after.stderr


def test_revoke_parent_forget_status_and_list(tmp_path: Path) -> None:
    proj = project(tmp_path)
    real, parent = os.path.realpath(proj), os.path.realpath(tmp_path)
    store(tmp_path).write_text(json.dumps({"/elsewhere": True, "/kept": None}))

    revoked = pi_lsp(tmp_path, "trust", "--revoke", ".")
    assert revoked.returncode == 0, revoked.stderr
    assert revoked.stdout.startswith(f"Not trusted: {real} (saved in ")
    assert json.loads(store(tmp_path).read_text()) == {
        "/elsewhere": True,
        "/kept": None,
        real: False,
    }
    # "Trust parent folder": the parent is trusted and the folder's own entry goes
    assert pi_lsp(tmp_path, "trust", "--parent").returncode == 0
    assert json.loads(store(tmp_path).read_text()) == {
        "/elsewhere": True,
        "/kept": None,
        parent: True,
    }
    status = pi_lsp(tmp_path, "trust", "--status")
    assert status.returncode == 0
    assert status.stdout.startswith(f"{real} is trusted: ")
    assert f"the parent folder {parent}" in status.stdout
    # a trusted project lists what the trust loads, not what still needs it
    assert "Loaded because it is trusted: .pi/settings.json" in status.stdout
    assert "Needs trust for" not in status.stdout
    # a revoked folder beats its trusted parent; forgetting it lets the parent decide again
    pi_lsp(tmp_path, "trust", "--revoke")
    assert pi_lsp(tmp_path, "trust", "--status").stdout.startswith(f"{real} is not trusted")
    forgot = pi_lsp(tmp_path, "trust", "--forget")
    assert f"Removed the entry for {real} from " in forgot.stdout
    assert f"{real} is trusted" in forgot.stdout
    listed = pi_lsp(tmp_path, "trust", "--list")
    assert listed.stdout.splitlines() == [
        "trusted      /elsewhere",
        "no decision  /kept",
        f"trusted      {parent}",
    ]


def test_a_store_that_cannot_be_read_is_never_overwritten(tmp_path: Path) -> None:
    project(tmp_path)
    broken = '{\n  "/a": true\n  "/b": false\n}\n'
    store(tmp_path).write_text(broken)
    proc = pi_lsp(tmp_path, "trust")
    assert proc.returncode == 1
    assert proc.stderr.startswith(
        f"pi-lsp: trust.json was not changed because it cannot be read: {store(tmp_path)}:3: "
    )
    assert store(tmp_path).read_text() == broken
    listed = pi_lsp(tmp_path, "trust", "--list")
    assert (listed.returncode, listed.stdout) == (1, "")
    assert f"{store(tmp_path)}:3: Trust store is not valid JSON" in listed.stderr
    # and the prompt says to fix it first instead of suggesting the command that would fail
    prompt = pi_lsp(tmp_path, "prompt")
    assert f"fix {store(tmp_path)} first" in prompt.stderr
    assert "run `pi-lsp trust" not in prompt.stderr


def test_a_held_lock_leaves_the_store_alone(tmp_path: Path) -> None:
    project(tmp_path)
    lock = tmp_path / "agent" / "trust.json.lock"
    lock.mkdir()  # a running Pi holds it
    proc = pi_lsp(tmp_path, "trust")
    assert proc.returncode == 1
    assert f"cannot lock {lock} (Lock file is already being held)" in proc.stderr
    assert not store(tmp_path).exists()
    assert lock.is_dir()


def test_agent_dir_option_symlinks_and_usage_errors(tmp_path: Path) -> None:
    proj = project(tmp_path)
    (tmp_path / "link").symlink_to(proj)
    other_agent = tmp_path / "other-agent"
    proc = pi_lsp(tmp_path, "trust", "--agent-dir", str(other_agent), str(tmp_path / "link"))
    assert proc.returncode == 0, proc.stderr
    # Pi looks trust up for the real folder, so that is what is written
    assert json.loads((other_agent / "trust.json").read_text()) == {os.path.realpath(proj): True}
    assert not store(tmp_path).exists()
    prompt = pi_lsp(tmp_path, "prompt", "--agent-dir", str(other_agent))
    assert "You are the project's own agent." in prompt.stdout
    # a prompt run with --agent-dir suggests the command with the same agent dir
    suggested = pi_lsp(tmp_path, "prompt", "--agent-dir", str(tmp_path / "agent")).stderr
    assert f"`pi-lsp trust --agent-dir {tmp_path / 'agent'} {os.path.realpath(proj)}`" in suggested

    missing = pi_lsp(tmp_path, "trust", str(tmp_path / "missing"))
    assert (missing.returncode, missing.stderr) == (
        2,
        f"pi-lsp: not a folder: {tmp_path / 'missing'}\n",
    )
    assert pi_lsp(tmp_path, "trust", "--revoke", "--forget").returncode == 2
    help_text = " ".join(pi_lsp(tmp_path, "trust", "--help").stdout.split())
    assert "Exit status: 0 when done, 1 when trust.json could not be read" in help_text


def test_the_suggested_command_pasted_into_a_shell_trusts_a_folder_with_a_space(
    tmp_path: Path,
) -> None:
    proj = tmp_path / "Bob's app $HOME"
    project(tmp_path).rename(proj)
    real = os.path.realpath(proj)
    err = run_pi_lsp(tmp_path, "prompt", cwd=proj).stderr
    [command] = re.findall(r"run `([^`]+)`", err)
    env = isolated_env(tmp_path)
    env["PATH"] = f"{PI_LSP.parent}{os.pathsep}{env.get('PATH', '')}"
    # pasted as printed, in a shell whose working folder is elsewhere
    pasted = subprocess.run(
        command, shell=True, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert pasted.returncode == 0, pasted.stderr
    assert json.loads(store(tmp_path).read_text()) == {real: True}
    assert f"{real} is trusted" in pasted.stdout


def test_every_command_names_trust_json_the_same_way(tmp_path: Path) -> None:
    """By the shown-path rule from the shell's folder: here ~/… as the store is under home."""
    proj = project(tmp_path)
    home = tmp_path / "home"
    proj = proj.rename(home / "proj")
    env = isolated_env(tmp_path)
    env["PI_CODING_AGENT_DIR"] = str(home / "agent")
    absolute = str(home / "agent" / "trust.json")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return run_pi_lsp(tmp_path, *args, cwd=proj, env=env)

    prompt = run("prompt").stderr
    assert "(saved in ~/agent/trust.json, which Pi reads too)" in prompt
    trusted = run("trust").stdout
    assert "(saved in ~/agent/trust.json)" in trusted
    assert "is trusted: ~/agent/trust.json marks this folder as trusted" in trusted
    status = run("trust", "--status").stdout
    assert "is trusted: ~/agent/trust.json marks this folder as trusted" in status
    run("trust", "--revoke")
    untrusted = run("prompt").stderr
    assert "(~/agent/trust.json marks this folder as not trusted)" in untrusted
    assert absolute not in prompt + trusted + status + untrusted
