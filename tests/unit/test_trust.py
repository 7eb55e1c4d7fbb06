"""Project trust (spec §4): what needs trust, the ``trust.json`` store and its lock, and the
order in which Pi decides."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

from pi_lsp.resources.trust import (
    LOCK_ATTEMPTS,
    LOCK_DELAY_SECONDS,
    TRUST_REQUIRING_CONFIG_ENTRIES,
    TrustLockError,
    TrustStoreError,
    read_trust_store,
    requires_trust,
    resolve_project_trust,
    save_trust,
    save_trust_many,
    trust_choices,
    trust_requirements,
)
from tests.shared_data import CONFORMANCE
from tests.unit.helpers import write


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    path = tmp_path / "agent"
    path.mkdir()
    return path


def store_file(agent: Path, data: object) -> Path:
    return write(agent / "trust.json", json.dumps(data, indent=2))


# --- §4.1 what requires trust ---------------------------------------------------------------


def test_a_bare_pi_folder_needs_no_trust(tmp_path: Path, home: Path) -> None:
    (tmp_path / "p/.pi").mkdir(parents=True)
    write(tmp_path / "p/.pi/notes.txt", "x")
    assert not requires_trust(str(tmp_path / "p"), str(home))


@pytest.mark.parametrize("entry", TRUST_REQUIRING_CONFIG_ENTRIES)
def test_each_pi_entry_requires_trust(tmp_path: Path, home: Path, entry: str) -> None:
    target = tmp_path / "p/.pi" / entry
    if entry.endswith((".json", ".md")):
        write(target, "")
    else:
        target.mkdir(parents=True)
    assert trust_requirements(str(tmp_path / "p"), str(home))[0].path == str(target)


def test_only_the_cwds_own_pi_folder_counts(tmp_path: Path, home: Path) -> None:
    write(tmp_path / ".pi/settings.json", "{}")
    (tmp_path / "p").mkdir()
    assert not requires_trust(str(tmp_path / "p"), str(home))


def test_agents_skills_in_any_ancestor_requires_trust(tmp_path: Path, home: Path) -> None:
    (tmp_path / ".agents/skills").mkdir(parents=True)
    (tmp_path / "repo/.git").mkdir(parents=True)
    (tmp_path / "repo/src").mkdir()
    (found,) = trust_requirements(str(tmp_path / "repo/src"), str(home))
    assert (found.path, found.kind) == (str(tmp_path / ".agents/skills"), "agents-skills")


def test_the_users_own_agents_skills_is_not_a_project_resource(home: Path) -> None:
    (home / ".agents/skills").mkdir(parents=True)
    (home / "code/p").mkdir(parents=True)
    assert not requires_trust(str(home / "code/p"), str(home))
    assert not requires_trust(str(home), str(home))
    (home / "code/p/.agents/skills").mkdir(parents=True)
    assert requires_trust(str(home / "code/p"), str(home))


def test_home_and_cwd_are_compared_by_realpath(tmp_path: Path, home: Path) -> None:
    (home / ".agents/skills").mkdir(parents=True)
    (tmp_path / "home-link").symlink_to(home)
    assert not requires_trust(str(tmp_path / "home-link"), str(tmp_path / "home-link"))
    assert not requires_trust(str(home), str(tmp_path / "home-link"))


# --- §4.2 the store -------------------------------------------------------------------------


def test_nearest_boolean_wins_and_null_means_no_decision(tmp_path: Path, agent: Path) -> None:
    parent, child = tmp_path / "ws", tmp_path / "ws/child"
    child.mkdir(parents=True)
    assert read_trust_store(str(agent)).lookup(str(child)) is None

    store_file(agent, {str(parent): True})
    entry = read_trust_store(str(agent)).lookup(str(child))
    assert entry is not None
    assert (entry.key, entry.decision) == (str(parent), True)

    store_file(agent, {str(parent): True, str(child): False})
    entry = read_trust_store(str(agent)).lookup(str(child))
    assert entry is not None
    assert entry.decision is False

    store_file(agent, {str(parent): True, str(child): None})
    entry = read_trust_store(str(agent)).lookup(str(child))
    assert entry is not None
    assert (entry.key, entry.decision) == (str(parent), True)


def test_entry_points_at_its_line(tmp_path: Path, agent: Path) -> None:
    text = "\ufeff{\n" + '  "/elsewhere": false,\n' + f'  "{tmp_path}": true\n' + "}\n"
    write(agent / "trust.json", text)
    store = read_trust_store(str(agent))
    entry = store.entries[str(tmp_path)]
    assert (entry.where.start_line, entry.where.start_column) == (2, 2)
    assert store.findings == ()


@pytest.mark.parametrize(
    ("content", "rule", "pi_text"),
    [
        (
            '{"a": tru}',
            "trust-store-invalid-json",
            'Failed to read trust store {path}: Unexpected token \'}\', "{"a": tru}" is not '
            "valid JSON",
        ),
        (
            "",
            "trust-store-invalid-json",
            "Failed to read trust store {path}: Unexpected end of JSON input",
        ),
        ("[]", "trust-store-not-object", "Invalid trust store {path}: expected an object"),
        ("null", "trust-store-not-object", "Invalid trust store {path}: expected an object"),
        (
            '{"/x": 1}',
            "trust-store-invalid-value",
            'Invalid trust store {path}: value for "/x" must be true, false, or null',
        ),
        (
            '{"/b": "yes", "7": {}}',
            "trust-store-invalid-value",
            'Invalid trust store {path}: value for "7" must be true, false, or null',
        ),
    ],
)
def test_broken_store_is_reported_with_pis_message_and_left_alone(
    tmp_path: Path, agent: Path, content: str, rule: str, pi_text: str
) -> None:
    path = write(agent / "trust.json", content)
    before = (path.read_bytes(), os.stat(path).st_mtime_ns)

    store = read_trust_store(str(agent))

    assert not store.ok
    assert store.findings[0].rule == rule
    assert store.findings[0].severity == "error"
    assert store.findings[0].pi_message == pi_text.replace("{path}", str(path))
    with pytest.raises(TrustStoreError):
        save_trust(str(agent), str(tmp_path), True)
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before
    assert not (agent / "trust.json.lock").exists()


def test_invalid_json_finding_is_located(agent: Path) -> None:
    write(agent / "trust.json", '{\n  "/a": true\n  "/b": false\n}')
    (finding,) = read_trust_store(str(agent)).findings
    assert (finding.where.start_line, finding.where.start_column) == (2, 2)


def test_bom_is_tolerated(tmp_path: Path, agent: Path) -> None:
    write(agent / "trust.json", b'\xef\xbb\xbf{"' + str(tmp_path).encode() + b'": true}')
    assert read_trust_store(str(agent)).decision(str(tmp_path)) is True


def test_save_writes_sorted_pretty_json_and_creates_the_directory(tmp_path: Path) -> None:
    agent = tmp_path / "new/agent"
    save_trust(str(agent), "/zeta", True)
    save_trust(str(agent), "/alpha", False)
    save_trust_many(str(agent), [("/mid", True), ("/zeta", None)])

    assert (agent / "trust.json").read_text("utf-8") == '{\n  "/alpha": false,\n  "/mid": true\n}\n'
    assert not (agent / "trust.json.lock").exists()


def test_save_keeps_null_entries_and_unicode(agent: Path) -> None:
    write(agent / "trust.json", '{"/kept": null, "/b\u00e9": true}')
    save_trust(str(agent), "/a", True)
    assert (agent / "trust.json").read_text("utf-8") == (
        '{\n  "/a": true,\n  "/b\u00e9": true,\n  "/kept": null\n}\n'
    )


def test_saved_keys_are_canonical(tmp_path: Path, agent: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    store = save_trust(str(agent), str(tmp_path / "link"), True)
    assert list(store.entries) == [os.path.realpath(tmp_path / "real")]


def test_trust_parent_choice_replaces_the_child_entry(tmp_path: Path, agent: Path) -> None:
    cwd = tmp_path / "ws/proj"
    cwd.mkdir(parents=True)
    choices = {c.label: c for c in trust_choices(str(cwd))}
    save_trust(str(agent), str(cwd), False)
    parent_choice = choices[f"Trust parent folder ({tmp_path / 'ws'})"]
    store = save_trust_many(str(agent), parent_choice.updates)
    assert {k: e.decision for k, e in store.entries.items()} == {str(tmp_path / "ws"): True}


def test_dialog_choices_in_pis_order(tmp_path: Path) -> None:
    labels = [c.label for c in trust_choices(str(tmp_path))]
    assert labels == [
        "Trust",
        f"Trust parent folder ({tmp_path.parent})",
        "Trust (this session only)",
        "Do not trust",
        "Do not trust (this session only)",
    ]
    assert [c.label for c in trust_choices("/", include_session_only=False)] == [
        "Trust",
        "Do not trust",
    ]


# --- the lock -------------------------------------------------------------------------------


def test_a_held_lock_makes_a_write_give_up_after_ten_attempts(agent: Path) -> None:
    (agent / "trust.json.lock").mkdir()
    started = time.monotonic()
    with pytest.raises(TrustLockError) as caught:
        save_trust(str(agent), "/a", True)
    assert time.monotonic() - started >= (LOCK_ATTEMPTS - 1) * LOCK_DELAY_SECONDS
    assert caught.value.locked
    assert caught.value.message == "Lock file is already being held"
    assert not (agent / "trust.json").exists()
    assert (agent / "trust.json.lock").is_dir()


def test_a_read_under_a_held_lock_still_answers_and_says_so(tmp_path: Path, agent: Path) -> None:
    store_file(agent, {str(tmp_path): True})
    (agent / "trust.json.lock").mkdir()
    store = read_trust_store(str(agent))
    assert store.decision(str(tmp_path)) is True
    (finding,) = store.findings
    assert finding.rule == "trust-store-locked"
    assert finding.pi_message == "Lock file is already being held"


def test_a_stale_lock_is_taken_over(agent: Path) -> None:
    lock = agent / "trust.json.lock"
    lock.mkdir()
    old = time.time() - 30
    os.utime(lock, (old, old))
    save_trust(str(agent), "/a", True)
    assert json.loads((agent / "trust.json").read_text()) == {"/a": True}
    assert not lock.exists()


def test_a_lock_released_meanwhile_is_acquired(agent: Path) -> None:
    lock = agent / "trust.json.lock"
    lock.mkdir()
    releaser = threading.Timer(0.05, lock.rmdir)
    releaser.start()
    try:
        save_trust(str(agent), "/a", True)
    finally:
        releaser.join()
    assert json.loads((agent / "trust.json").read_text()) == {"/a": True}


def test_reading_a_missing_store_creates_nothing(tmp_path: Path) -> None:
    store = read_trust_store(str(tmp_path / "no-agent"))
    assert store.ok
    assert not store.exists
    assert not (tmp_path / "no-agent").exists()


# --- §4.3 resolution ------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    cwd = tmp_path / "ws/proj"
    write(cwd / ".pi/APPEND_SYSTEM.md", "PROJECT APPEND")
    return cwd


def test_cli_flags_come_first(project: Path, agent: Path, home: Path) -> None:
    store_file(agent, {str(project): False})
    approved = resolve_project_trust(str(project), str(agent), approve=True, home=str(home))
    assert (approved.trusted, approved.rule) == (True, "cli-approve")
    store_file(agent, {str(project.parent): True})
    refused = resolve_project_trust(str(project), str(agent), approve=False, home=str(home))
    assert (refused.trusted, refused.rule) == (False, "cli-no-approve")
    assert json.loads((agent / "trust.json").read_text()) == {str(project.parent): True}


def test_nothing_trust_requiring_is_trusted_without_reading_the_store(
    tmp_path: Path, agent: Path, home: Path
) -> None:
    write(agent / "trust.json", "{ broken")
    (tmp_path / "plain").mkdir()
    decision = resolve_project_trust(str(tmp_path / "plain"), str(agent), home=str(home))
    assert (decision.trusted, decision.rule, decision.findings) == (
        True,
        "nothing-requires-trust",
        (),
    )


def test_saved_decision_names_its_entry(project: Path, agent: Path, home: Path) -> None:
    store_file(agent, {str(project.parent): True})
    decision = resolve_project_trust(str(project), str(agent), home=str(home))
    assert (decision.trusted, decision.rule) == (True, "saved-decision")
    assert decision.entry is not None
    assert decision.entry.key == str(project.parent)
    assert decision.entry.where.path == str(agent / "trust.json")
    assert decision.requirements[0].path == str(project / ".pi/APPEND_SYSTEM.md")
    assert "parent folder" in decision.reason


def test_default_project_trust_then_no_ui(project: Path, agent: Path, home: Path) -> None:
    settings = write(agent / "settings.json", '{\n  "defaultProjectTrust": "always"\n}')
    always = resolve_project_trust(str(project), str(agent), home=str(home))
    assert (always.trusted, always.rule) == (True, "default-always")
    assert always.setting is not None
    assert (always.setting.path, always.setting.start_line) == (str(settings), 1)

    write(agent / "settings.json", '{"defaultProjectTrust": "never"}')
    never = resolve_project_trust(str(project), str(agent), home=str(home))
    assert (never.trusted, never.rule) == (False, "default-never")

    write(agent / "settings.json", "{ broken settings count as {}")
    print_mode = resolve_project_trust(str(project), str(agent), home=str(home))
    assert (print_mode.trusted, print_mode.rule) == (False, "no-ui")
    interactive = resolve_project_trust(str(project), str(agent), has_ui=True, home=str(home))
    assert (interactive.trusted, interactive.rule, interactive.needs_prompt) == (
        False,
        "ask",
        True,
    )
    given = resolve_project_trust(
        str(project), str(agent), default_project_trust="always", home=str(home)
    )
    assert given.rule == "default-always"


def test_saved_decision_beats_default_always(project: Path, agent: Path, home: Path) -> None:
    write(agent / "settings.json", '{"defaultProjectTrust": "always"}')
    store_file(agent, {str(project): False})
    decision = resolve_project_trust(str(project), str(agent), home=str(home))
    assert (decision.trusted, decision.rule) == (False, "saved-decision")


def test_broken_store_makes_the_project_untrusted_with_pis_error(
    project: Path, agent: Path, home: Path
) -> None:
    path = write(agent / "trust.json", '{"a": tru}')
    decision = resolve_project_trust(str(project), str(agent), home=str(home))
    assert (decision.trusted, decision.rule) == (False, "store-error")
    assert decision.findings[0].pi_message == (
        f'Failed to read trust store {path}: Unexpected token \'}}\', "{{"a": tru}}" is not '
        "valid JSON"
    )
    assert path.read_text() == '{"a": tru}'


def test_symlinked_cwd_is_looked_up_by_its_realpath(tmp_path: Path, home: Path) -> None:
    """Checked with Pi 0.85: only the realpath key (or its ancestors) trusts the folder."""
    real = tmp_path / "ws/real"
    write(real / ".pi/APPEND_SYSTEM.md", "x")
    (tmp_path / "other").mkdir()
    link = tmp_path / "other/link"
    link.symlink_to(real)
    for key, trusted in ((link, False), (tmp_path / "other", False), (real, True)):
        agent = tmp_path / f"agent-{key.name}"
        store_file(agent, {str(key): True})
        decision = resolve_project_trust(str(link), str(agent), home=str(home))
        assert decision.trusted is trusted, key
        assert decision.cwd == str(real)


# --- the golden cases -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "approve", "trusted", "rule"),
    [
        ("sp-trust-parent-entry", None, True, "saved-decision"),
        ("sp-trust-no-approve-override", False, False, "cli-no-approve"),
        ("sp-trust-default-always", None, True, "default-always"),
        ("sp-system-md-trusted", None, True, "saved-decision"),
        ("sp-system-md-untrusted", None, False, "no-ui"),
        ("sp-skills-untrusted", None, False, "no-ui"),
        ("sp-system-md-ancestor", True, True, "cli-approve"),
        ("sp-context-files", None, True, "nothing-requires-trust"),
    ],
)
def test_golden_cases_decide_as_pi_did(
    tmp_path: Path, home: Path, case: str, approve: bool | None, trusted: bool, rule: str
) -> None:
    ws, agent = tmp_path / "ws", tmp_path / "agent"
    ws.mkdir()
    agent.mkdir()
    env = {**os.environ, "WS": str(ws), "AGENT": str(agent)}
    subprocess.run(
        ["bash", "-e", str(CONFORMANCE / case / "setup.sh")], cwd=ws, env=env, check=True
    )
    cwd = ws / json.loads((CONFORMANCE / case / "case.json").read_text())["cwd"]

    decision = resolve_project_trust(str(cwd), str(agent), approve=approve, home=str(home))

    assert (decision.trusted, decision.rule) == (trusted, rule)
