"""`pi-lsp check` on process conventions read by their shape (made-up workspace): a reply
language asked for in German, gitmoji against "no emoji anywhere", a tsconfig setting in code
against the root's strict mode, a merge method in a settings table against a stated one."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_check_conventions import conflicts, write


def test_shapes_of_process_conventions_are_reported(tmp_path: Path) -> None:
    write(
        tmp_path / "agent" / "AGENTS.md",
        "# Meine Regeln\n\n- Antworte bitte immer auf Deutsch.\n- Never use emoji, anywhere.\n",
    )
    write(
        tmp_path / "ws" / "AGENTS.md",
        "# Kestrel\n\n"
        "Answer in English in this repository.\n\n"
        "| Setting | Value |\n|---|---|\n| Merge method | Rebase and merge |\n\n"
        'The base `tsconfig` has `"strict": true`.\n',
    )
    write(
        tmp_path / "ws" / "apps" / "kiosk" / "AGENTS.md",
        "# kiosk\n\n"
        "Commits here follow gitmoji.\n\n"
        "Kiosk PRs land with squash-and-merge so the history stays one commit per screen.\n\n"
        "This app's tsconfig sets `strict: false` while the old widgets are ported.\n",
    )
    found = conflicts(tmp_path)
    assert set(found) == {
        ("AGENTS.md", 3),
        ("apps/kiosk/AGENTS.md", 3),
        ("apps/kiosk/AGENTS.md", 5),
        ("apps/kiosk/AGENTS.md", 7),
    }
    assert "response language" in found[("AGENTS.md", 3)]
    assert "emoji in commit messages" in found[("apps/kiosk/AGENTS.md", 3)]
    assert "merge strategy" in found[("apps/kiosk/AGENTS.md", 5)]
    assert "TypeScript strictness" in found[("apps/kiosk/AGENTS.md", 7)]


def test_replies_and_artefacts_in_different_languages_are_quiet(tmp_path: Path) -> None:
    write(
        tmp_path / "agent" / "AGENTS.md",
        "# Moi\n\n- Réponds-moi en français.\n- Pas d'emoji dans les réponses.\n",
    )
    write(
        tmp_path / "ws" / "AGENTS.md",
        "# Kestrel\n\n"
        "Commit messages and code comments are written in English.\n\n"
        "Commits follow gitmoji.\n",
    )
    assert conflicts(tmp_path) == {}
