"""The catalogue kept as data (``pi_lsp/lint/catalogue.toml``): it loads, it covers the stack,
and an entry that cannot be used is refused with a message naming it."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from pi_lsp.lint.catalogue import (
    KINDS,
    CatalogueError,
    load_catalogue,
    parse_catalogue,
    parse_roles,
)
from pi_lsp.lint.engine import user_vocabulary
from pi_lsp.lint.rules_doc import render
from pi_lsp.resources.model import Finding, SourceRange
from pi_lsp.resources.settings import Settings, SettingsFile

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_catalogue_loads_with_every_kind_and_many_roles() -> None:
    catalogue = load_catalogue()
    assert len(catalogue.roles) >= 150
    assert {role.kind for role in catalogue.roles} == set(KINDS)
    for name in (
        "package-manager",
        "python-env-tool",
        "jvm-build-tool",
        "bundler",
        "test-runner",
        "test-location",
        "formatter",
        "python-linter",
        "js-linter",
        "go-version",
        "rust-msrv",
        "typescript-target",
        "typescript-strictness",
        "quotes",
        "semicolons",
        "indentation",
        "line-length",
        "naming-files",
        "naming-json-fields",
        "commit-convention",
        "commit-tense",
        "merge-strategy",
        "pr-base-branch",
        "response-language",
        "response-tone",
        "emoji-policy",
        "documentation-spelling",
        "http-timeout",
        "page-size",
        "coverage-threshold",
        "orm-js",
        "validation-library",
        "feature-flags",
        "ci-system",
        "cloud-provider",
        "api-style",
        "config-format",
        "export-style",
        "dependency-pinning",
        "changelog-tool",
        "monorepo-tool",
    ):
        assert name in catalogue.by_name, name


def test_commands_that_imply_a_value_are_data() -> None:
    roles = load_catalogue().by_name
    commands = {value.name: value.commands for role in roles.values() for value in role.values}
    assert "./gradlew" in commands["Gradle"]
    assert "mvn" in commands["Maven"]
    assert "uv run" in commands["uv"]
    assert "poetry run" in commands["poetry"]
    assert "bunx" in commands["bun"]
    assert (
        "cargo nextest"
        in roles["test-runner"]
        .values[[v.name for v in roles["test-runner"].values].index("nextest")]
        .aliases
    )


def _one_role(body: str) -> str:
    return f'[[role]]\nname = "queue"\nlabel = "queue"\n{body}\n'


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('kind = "sometimes"\nvalues = ["kafka"]', "role 'queue': 'kind' must be one of"),
        ("values = []", "role 'queue': 'values' must be a non-empty list"),
        ('values = ["kafka", "kafka"]', "role 'queue': value 'kafka' is listed twice"),
        ('colour = "red"\nvalues = ["kafka"]', "role 'queue': unknown key 'colour'"),
        (
            'values = [{ name = "kafka", patterns = [\'kafka(\'] , triggers = ["kafka"] }]',
            "role 'queue' value 'kafka': 'patterns' is not a valid pattern",
        ),
        (
            "values = [{ name = \"kafka\", patterns = ['kafka'] }]",
            "role 'queue' value 'kafka': 'patterns' need 'triggers'",
        ),
        (
            'values = [{ name = "kafka", patterns = [\'kafka (\\d+)\'], triggers = ["kafka"] }]',
            "role 'queue' value 'kafka': a capturing pattern needs '{}' in the name",
        ),
        ('values = [{ name = "kafka", aka = ["--"] }]', "alias '--' has no letter or digit"),
        ('kind = "maximum"\nunit = "furlongs"\nsubjects = ["queue depth"]', "'unit' must be"),
        ('kind = "maximum"', "role 'queue': 'subjects' must be"),
    ],
)
def test_a_bad_entry_is_refused_naming_it(body: str, message: str) -> None:
    with pytest.raises(CatalogueError) as error:
        parse_catalogue(_one_role(body), "mine.toml")
    assert str(error.value).startswith("mine.toml: ")
    assert message in str(error.value)


def test_a_role_defined_twice_and_bad_toml_are_refused() -> None:
    twice = _one_role('values = ["kafka"]') * 2
    with pytest.raises(CatalogueError, match="role 'queue' is defined twice"):
        parse_catalogue(twice)
    with pytest.raises(CatalogueError, match=r"catalogue\.toml: "):
        parse_catalogue("[[role]\n")
    with pytest.raises(CatalogueError, match=r"no \[\[role\]\] entries"):
        parse_catalogue("")


def test_user_roles_report_errors_per_entry_without_raising() -> None:
    roles, errors = parse_roles(
        [
            {"name": "queue", "label": "message queue", "values": ["Kafka", "RabbitMQ"]},
            {"name": "Queue", "values": []},
            "not a role",
        ]
    )
    assert [r.name for r in roles] == ["queue"]
    assert [index for index, _ in errors] == [1, 2]
    assert "'name' must be lowercase" in errors[0][1]
    assert "a role must be a table" in errors[1][1]
    not_a_list = parse_roles({"name": "queue"})
    assert not_a_list == ([], [(-1, "'lint.catalogue' must be a list of roles")])


def test_rules_doc_lists_the_catalogue_and_answers_help(tmp_path: Path) -> None:
    text = render()
    assert "## The catalogue of roles" in text
    assert "| JVM build tool (`jvm-build-tool`) | choice |" in text
    assert "`./gradlew` → Gradle" in text
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for flag in ("--help", "-h"):
        proc = subprocess.run(
            [sys.executable, "-m", "pi_lsp.lint.rules_doc", flag],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 0 and proc.stdout.startswith("usage:"), proc.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "pi_lsp.lint.rules_doc", "--bogus"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("usage:")
    assert list(tmp_path.iterdir()) == []  # no file named --help, -h or --bogus


def test_a_settings_file_swapped_for_a_pipe_is_not_read_for_the_entry_position(
    tmp_path: Path,
) -> None:
    # loaded as a file; by the time the bad entry is placed it is a named pipe nobody writes
    # to: an unguarded read would block for ever, the guarded one gives the `lint` key's place
    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    lint = SourceRange(str(fifo), 3, 2, 3, 8)
    loaded = SettingsFile(
        "global",
        str(fifo),
        "loaded",
        data={"lint": {"catalogue": [{"name": "Bad Name", "values": []}]}},
        key_ranges={"lint": lint},
    )
    missing = SettingsFile("project", str(tmp_path / "p" / "settings.json"), "missing")
    settings = Settings({}, loaded, missing, {})
    found: list[tuple[object, list[Finding]]] = []
    worker = threading.Thread(target=lambda: found.append(user_vocabulary(settings)), daemon=True)
    worker.start()
    worker.join(10)
    if worker.is_alive():  # let the blocked open return, then fail
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        pytest.fail("the settings file was opened as a pipe and blocked")
    [(words, [problem])] = found
    assert words is None and problem.rule == "lint-catalogue-invalid"
    assert problem.where == lint


def test_composes_names_values_of_its_role_that_work_together() -> None:
    roles, errors = parse_roles(
        [
            {
                "name": "site-builder",
                "values": ["Quarry", "Kiln"],
                "composes": [["Quarry", "Kiln"]],
            },
            {"name": "site-host", "values": ["Quarry"], "composes": [["Quarry", "Anvil"]]},
            {"name": "site-cdn", "values": ["Quarry"], "composes": [["Quarry"]]},
        ]
    )
    assert [(r.name, r.composes) for r in roles] == [("site-builder", (("Quarry", "Kiln"),))]
    assert "names no value 'Anvil'" in errors[0][1]
    assert "at least two" in errors[1][1]


def test_purposes_name_the_jobs_a_role_is_split_by() -> None:
    roles, errors = parse_roles(
        [
            {
                "name": "sms-provider",
                "values": ["Chirp"],
                "purposes": {"alerts": ["alert", "page"], "marketing": ["campaign"]},
            },
            {"name": "sms-gateway", "values": ["Chirp"], "purposes": ["alert"]},
            {"name": "sms-relay", "values": ["Chirp"], "purposes": {"alerts": [""]}},
        ]
    )
    assert [(r.name, r.purposes) for r in roles] == [
        ("sms-provider", (("alerts", ("alert", "page")), ("marketing", ("campaign",))))
    ]
    assert "'purposes' must be a table" in errors[0][1]
    assert "'purposes' must be a string or a list" in errors[1][1]
