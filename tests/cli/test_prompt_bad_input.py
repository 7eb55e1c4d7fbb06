"""``pi-lsp prompt`` on broken input: findings name the file; nothing is lost or rewritten."""

from __future__ import annotations

import os
from pathlib import Path

from tests.cli.test_prompt_command import run


def workspace(tmp: Path) -> Path:
    for name in ("home", "agent", "proj"):
        (tmp / name).mkdir()
    return tmp / "proj"


def test_huge_and_binary_context_files(tmp_path: Path) -> None:
    proj = workspace(tmp_path)
    (tmp_path / "agent" / "AGENTS.md").write_bytes(b"\x00\xff\xfe binary \x89PNG\r\n")
    big = "- rule\n" * (50 * 1024 * 1024 // 7)
    (proj / "AGENTS.md").write_text(big)
    proc = run(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert big in proc.stdout
    assert "\x00\ufffd\ufffd binary" in proc.stdout
    assert f"{tmp_path}/agent/AGENTS.md:1:" in proc.stderr


def test_broken_trust_and_settings_are_reported_and_left_alone(tmp_path: Path) -> None:
    proj = workspace(tmp_path)
    trust = tmp_path / "agent" / "trust.json"
    settings = tmp_path / "agent" / "settings.json"
    trust.write_text('{"/x": "yes",')
    settings.write_text('{\n  "defaultTools": ["read"],\n  oops\n}')
    (proj / ".pi").mkdir()
    (proj / ".pi" / "SYSTEM.md").write_text("Project system prompt.")
    before = (trust.read_bytes(), settings.read_bytes())
    proc = run(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert f"{trust}:1:" in proc.stderr
    assert f"{settings}:3:" in proc.stderr
    # untrusted (the store cannot be read): the project's SYSTEM.md is not used
    assert "Project system prompt." not in proc.stdout
    assert (trust.read_bytes(), settings.read_bytes()) == before


def test_invalid_yaml_symlink_loop_and_odd_names_in_skills(tmp_path: Path) -> None:
    workspace(tmp_path)
    skills = tmp_path / "agent" / "skills"
    (skills / "broken").mkdir(parents=True)
    (skills / "broken" / "SKILL.md").write_text("---\nname: broken\ndescription: [oops\n---\n")
    (skills / "loop").mkdir()
    os.symlink("..", skills / "loop" / "again")
    odd = os.path.join(os.fsencode(skills), b"caf\xe9")
    os.mkdir(odd)
    with open(os.path.join(odd, b"SKILL.md"), "wb") as handle:
        handle.write(b"---\nname: cafe\ndescription: Odd folder name.\n---\n")
    (skills / "fine").mkdir()
    (skills / "fine" / "SKILL.md").write_text("---\nname: fine\ndescription: Works.\n---\n")
    proc = run(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "<name>fine</name>" in proc.stdout
    assert "<name>broken</name>" not in proc.stdout
    assert f"{skills}/broken/SKILL.md:" in proc.stderr
