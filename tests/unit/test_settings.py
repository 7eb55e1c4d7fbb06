"""Settings (spec §10.1, §4.4): global and trusted-project ``settings.json``, merged as Pi merges
them, with broken files reported at their line and column and never rewritten."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_lsp.js.json import js_string
from pi_lsp.js.json_document import JsonSyntaxError, parse_json_document
from pi_lsp.resources.file_source import OverlayFileSource
from pi_lsp.resources.settings import (
    deep_merge,
    load_settings,
    read_settings_file,
)
from tests.unit.helpers import write


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    cwd, agent = tmp_path / "proj", tmp_path / "agent"
    (cwd / ".pi").mkdir(parents=True)
    agent.mkdir()
    return cwd, agent


# --- merging --------------------------------------------------------------------------------


def test_project_values_win_objects_merge_and_arrays_are_replaced(
    dirs: tuple[Path, Path],
) -> None:
    cwd, agent = dirs
    write(
        agent / "settings.json",
        json.dumps(
            {
                "theme": "dark",
                "compaction": {"enabled": True, "reserveTokens": 1000},
                "skills": ["~/global-skills"],
                "defaultProjectTrust": "ask",
            }
        ),
    )
    write(
        cwd / ".pi/settings.json",
        json.dumps({"compaction": {"reserveTokens": 2000}, "skills": ["./s"], "theme": None}),
    )

    settings = load_settings(str(cwd), str(agent), project_trusted=True)

    assert dict(settings.merged) == {
        "theme": None,
        "compaction": {"enabled": True, "reserveTokens": 2000},
        "skills": ["./s"],
        "defaultProjectTrust": "ask",
    }
    assert settings.findings == ()


def test_untrusted_project_settings_are_not_read(dirs: tuple[Path, Path]) -> None:
    cwd, agent = dirs
    write(agent / "settings.json", '{"defaultTools": ["read", "bash"]}')
    write(cwd / ".pi/settings.json", "{ this is not even json")

    settings = load_settings(str(cwd), str(agent), project_trusted=False)

    assert settings.get("defaultTools") == ["read", "bash"]
    assert settings.project_file.status == "untrusted"
    assert settings.findings == ()


def test_trusted_golden_case_settings_reach_the_merge(dirs: tuple[Path, Path]) -> None:
    cwd, agent = dirs
    write(cwd / ".pi/settings.json", '{"defaultTools": ["read", "grep"]}')
    settings = load_settings(str(cwd), str(agent), project_trusted=True)
    assert settings.get("defaultTools") == ["read", "grep"]
    assert settings.global_file.status == "missing"


def test_each_key_remembers_its_file_and_line(dirs: tuple[Path, Path]) -> None:
    cwd, agent = dirs
    global_path = write(
        agent / "settings.json",
        '{\n  "theme": "dark",\n  "compaction": {\n    "enabled": false\n  },\n  "x": 1\n}\n',
    )
    project_path = write(
        cwd / ".pi/settings.json",
        '\ufeff{\r\n\t"x": 2,\r\n\t"compaction": {"keepRecentTokens": 5}}',
    )

    settings = load_settings(str(cwd), str(agent), project_trusted=True)

    theme = settings.origin("theme")
    assert [(r.path, r.start_line, r.start_column) for r in theme] == [(str(global_path), 1, 2)]
    assert (theme[0].end_line, theme[0].end_column) == (1, 17)
    (x,) = settings.origin("x")
    assert (x.path, x.start_line, x.start_column) == (str(project_path), 1, 1)
    merged = settings.origin("compaction")
    assert [(r.path, r.start_line) for r in merged] == [
        (str(project_path), 2),
        (str(global_path), 2),
    ]
    assert (merged[1].end_line, merged[1].end_column) == (4, 3)


def test_deep_merge_does_not_touch_its_inputs() -> None:
    base = {"a": {"b": [1], "c": 1}}
    override = {"a": {"c": 2}, "d": [{"e": 1}]}
    merged = deep_merge(base, override)
    merged["a"]["b"].append(2)
    merged["d"][0]["e"] = 9
    assert base == {"a": {"b": [1], "c": 1}}
    assert override == {"a": {"c": 2}, "d": [{"e": 1}]}


def test_legacy_keys_are_migrated_and_keep_their_line(dirs: tuple[Path, Path]) -> None:
    cwd, agent = dirs
    write(
        agent / "settings.json",
        "{\n"
        '  "queueMode": "all",\n'
        '  "websockets": true,\n'
        '  "skills": {"enableSkillCommands": false, "customDirectories": ["~/s"]},\n'
        '  "retry": {"maxDelayMs": 500}\n'
        "}",
    )
    settings = load_settings(str(cwd), str(agent), project_trusted=True)
    assert dict(settings.merged) == {
        "steeringMode": "all",
        "transport": "websocket",
        "skills": ["~/s"],
        "enableSkillCommands": False,
        "retry": {"provider": {"maxRetryDelayMs": 500}},
    }
    assert settings.origin("steeringMode")[0].start_line == 1
    assert settings.origin("transport")[0].start_line == 2
    assert settings.origin("enableSkillCommands")[0].start_line == 3


def test_default_project_trust_comes_from_the_global_file_only(dirs: tuple[Path, Path]) -> None:
    cwd, agent = dirs
    write(cwd / ".pi/settings.json", '{"defaultProjectTrust": "always"}')
    settings = load_settings(str(cwd), str(agent), project_trusted=True)
    assert settings.get("defaultProjectTrust") == "always"
    assert settings.default_project_trust == "ask"
    write(agent / "settings.json", '{"defaultProjectTrust": "never"}')
    assert load_settings(str(cwd), str(agent), project_trusted=True).default_project_trust == (
        "never"
    )
    write(agent / "settings.json", '{"defaultProjectTrust": "sometimes"}')
    assert load_settings(str(cwd), str(agent), project_trusted=True).default_project_trust == "ask"


def test_unsaved_settings_buffer_is_used(dirs: tuple[Path, Path]) -> None:
    cwd, agent = dirs
    path = write(agent / "settings.json", '{"theme": "dark"}')
    source = OverlayFileSource({str(path): (7, '{"theme": "light"}')})
    settings = load_settings(str(cwd), str(agent), project_trusted=True, source=source)
    assert settings.get("theme") == "light"
    assert settings.global_file.version == ("buffer", 7)


# --- broken files ---------------------------------------------------------------------------


def test_broken_file_is_reported_at_the_error_and_treated_as_empty(
    dirs: tuple[Path, Path],
) -> None:
    cwd, agent = dirs
    write(agent / "settings.json", '{"theme": "dark"}')
    text = '{\n  "compaction": {"enabled": true},\n  "theme": "light",\n}\n'
    path = write(cwd / ".pi/settings.json", text)
    before = (path.read_bytes(), os.stat(path).st_mtime_ns)

    settings = load_settings(str(cwd), str(agent), project_trusted=True)

    assert dict(settings.merged) == {"theme": "dark"}
    (finding,) = settings.findings
    assert finding.rule == "settings-invalid-json"
    assert finding.severity == "warning"
    assert (finding.where.path, finding.where.start_line, finding.where.start_column) == (
        str(path),
        3,
        0,
    )
    assert "line 4, column 1" in finding.message
    assert finding.pi_message == (
        f"Warning: Invalid settings file {path}: Expected double-quoted property name in JSON "
        "at position 57 (line 4 column 1)"
    )
    assert (path.read_bytes(), os.stat(path).st_mtime_ns) == before


def test_bom_is_accepted(dirs: tuple[Path, Path]) -> None:
    cwd, agent = dirs
    write(agent / "settings.json", b'\xef\xbb\xbf{"defaultProjectTrust": "always"}')
    settings = load_settings(str(cwd), str(agent), project_trusted=False)
    assert settings.default_project_trust == "always"
    assert settings.findings == ()


def test_empty_file_is_an_empty_object_but_whitespace_is_an_error(
    dirs: tuple[Path, Path],
) -> None:
    _cwd, agent = dirs
    path = write(agent / "settings.json", "")
    assert read_settings_file(str(path), "global").status == "empty"
    write(agent / "settings.json", "  \n")
    broken = read_settings_file(str(path), "global")
    assert broken.status == "invalid"
    assert broken.findings[0].pi_message == (
        f"Warning: Invalid settings file {path}: Unexpected end of JSON input"
    )


@pytest.mark.parametrize(
    ("text", "pi_text"),
    [
        ("null", "Cannot use 'in' operator to search for 'queueMode' in null"),
        ("5", "Cannot use 'in' operator to search for 'queueMode' in 5"),
        ('"x"', "Cannot use 'in' operator to search for 'queueMode' in x"),
        ("1e21", "Cannot use 'in' operator to search for 'queueMode' in 1e+21"),
        ("[1]", None),
    ],
)
def test_a_value_that_is_not_an_object(tmp_path: Path, text: str, pi_text: str | None) -> None:
    path = write(tmp_path / "settings.json", text)
    result = read_settings_file(str(path), "global")
    assert result.status == "invalid"
    assert dict(result.data) == {}
    (finding,) = result.findings
    assert finding.rule == "settings-not-object"
    expected = None if pi_text is None else f"Warning: Invalid settings file {path}: {pi_text}"
    assert finding.pi_message == expected


def test_directory_in_place_of_the_file(tmp_path: Path) -> None:
    (tmp_path / "settings.json").mkdir()
    result = read_settings_file(str(tmp_path / "settings.json"), "global")
    assert result.status == "unreadable"
    assert result.findings[0].pi_message == (
        f"Warning: Invalid settings file {tmp_path / 'settings.json'}: "
        "EISDIR: illegal operation on a directory, read"
    )


# --- the JSON reader: V8's messages (recorded from Node 22's JSON.parse) ---------------------

V8_MESSAGES = [
    ("", "Unexpected end of JSON input"),
    ("{", "Expected property name or '}' in JSON at position 1 (line 1 column 2)"),
    ('{"a":1,}', "Expected double-quoted property name in JSON at position 7 (line 1 column 8)"),
    ('{"a" 1}', "Expected ':' after property name in JSON at position 5 (line 1 column 6)"),
    (
        '{"a":1 "b":2}',
        "Expected ',' or '}' after property value in JSON at position 7 (line 1 column 8)",
    ),
    ("[1,]", "Unexpected token ']', \"[1,]\" is not valid JSON"),
    ("[1 2]", "Expected ',' or ']' after array element in JSON at position 3 (line 1 column 4)"),
    (
        '{"a":"x\ny"}',
        "Bad control character in string literal in JSON at position 7 (line 1 column 8)",
    ),
    ('{"a":"\\q"}', "Bad escaped character in JSON at position 7 (line 1 column 8)"),
    ('{"a":-}', "No number after minus sign in JSON at position 6 (line 1 column 7)"),
    ('{"a":1e}', "Exponent part is missing a number in JSON at position 7 (line 1 column 8)"),
    ('{"a":1.}', "Unterminated fractional number in JSON at position 7 (line 1 column 8)"),
    ("{} x", "Unexpected non-whitespace character after JSON at position 3 (line 1 column 4)"),
    ('{"a":tru}', 'Unexpected token \'}\', "{"a":tru}" is not valid JSON'),
    ('{"a":"unterminated', "Unterminated string in JSON at position 18 (line 1 column 19)"),
    ('{"a":01}', "Unexpected number in JSON at position 6 (line 1 column 7)"),
    ("nul", "Unexpected end of JSON input"),
    ('{"a":"\\u12g4"}', "Bad Unicode escape in JSON at position 10 (line 1 column 11)"),
    ('t"', "Unexpected string in JSON at position 1 (line 1 column 2)"),
    ("NaN", '"NaN" is not valid JSON'),
    ("\u00a0{}", "Unexpected token '\u00a0', \"\u00a0{}\" is not valid JSON"),
    (
        '{"🙂🙂":1 x}',
        "Expected ',' or '}' after property value in JSON at position 10 (line 1 column 11)",
    ),
    ('{\r\n"a"\r1}', "Expected ':' after property name in JSON at position 7 (line 3 column 1)"),
    ('{\n\r"a" 1}', "Expected ':' after property name in JSON at position 7 (line 3 column 5)"),
    ("@" + "b" * 19, "Unexpected token '@', \"@" + "b" * 19 + '" is not valid JSON'),
    ("@" + "b" * 20, "Unexpected token '@', \"@bbbbbbbbb\"... is not valid JSON"),
    (
        '{"a":1,\r\n"b":x, "ccccccccccccccccccccccc":1}',
        'Unexpected token \'x\', ..."":1,\r\n"b":x, "cccccc"... is not valid JSON',
    ),
    (
        '{"' + "a" * 58 + '":@}',
        'Unexpected token \'@\', ..."aaaaaaaa":@}" is not valid JSON',
    ),
    ("🙂" + "b" * 25, "Unexpected token '\ufffd', \"🙂bbbbbbbb\"... is not valid JSON"),
]


@pytest.mark.parametrize(("text", "message"), V8_MESSAGES)
def test_json_errors_read_like_node(text: str, message: str) -> None:
    with pytest.raises(JsonSyntaxError) as caught:
        parse_json_document(text)
    assert caught.value.message == message


def test_json_values_and_member_positions() -> None:
    text = '{"a": [1, {"x": 2}], "b": {"c": {"d": "\\ud83d\\ude00"}}, "a": -0.5e1}'
    document = parse_json_document(text)
    assert document.value == {"a": -5.0, "b": {"c": {"d": "😀"}}}
    paths = [m.path for m in document.members]
    assert paths == [("a",), ("b", "c", "d"), ("b", "c"), ("b",), ("a",)]
    last_a = document.top_level()["a"]
    assert text[last_a.key_start : last_a.end] == '"a": -0.5e1'
    assert text[last_a.value_start : last_a.end] == "-0.5e1"


def test_js_string_of_numbers() -> None:
    assert [js_string(v) for v in (5, 1.5, 1e21, 1e-7, 123e-20, -0.0, 2**70)] == [
        "5",
        "1.5",
        "1e+21",
        "1e-7",
        "1.23e-18",
        "0",
        "1.1805916207174113e+21",
    ]
