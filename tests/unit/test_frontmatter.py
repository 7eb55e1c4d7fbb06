"""Frontmatter split and YAML 1.2 core-schema values, as Pi's ``parseFrontmatter`` gives them."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.resources.frontmatter import FrontmatterError, parse_frontmatter, strip_frontmatter
from pi_lsp.resources.yaml_core import YamlProblem, load_yaml
from tests.shared_data import FIXTURES as PROJECT_FIXTURES

FIXTURES = PROJECT_FIXTURES / "skills"


# --- the split (spec §6.2) -----------------------------------------------------------------------


def test_basic_block() -> None:
    fm = parse_frontmatter(
        "---\nname: \"skill-name\"\ndescription: 'A desc'\nfoo-bar: value\n---\n\nBody text"
    )
    assert fm.data == {"name": "skill-name", "description": "A desc", "foo-bar": "value"}
    assert fm.body == "Body text"
    assert fm.has_frontmatter
    assert fm.key_lines == {"name": 1, "description": 2, "foo-bar": 3}
    assert fm.block_lines == (0, 4)
    assert fm.body_line == 6


def test_crlf_and_lone_cr_become_lf() -> None:
    fm = parse_frontmatter("---\r\nname: x\r\n---\r\nline one\r\nline two\rline three\r\n")
    assert fm.data == {"name": "x"}
    assert fm.body == "line one\nline two\nline three"
    assert fm.key_lines == {"name": 1}


def test_leading_bom_is_dropped() -> None:
    fm = parse_frontmatter("\ufeff---\ndescription: d\n---\nbody")
    assert fm.data == {"description": "d"}
    assert fm.body == "body"


def test_no_frontmatter_keeps_the_whole_text_untrimmed() -> None:
    fm = parse_frontmatter("  # Title\n\ntext\n")
    assert fm.data == {}
    assert fm.body == "  # Title\n\ntext\n"
    assert not fm.has_frontmatter
    assert fm.block_lines is None


def test_unterminated_frontmatter_is_all_body() -> None:
    text = "---\nname: x\ndescription: never closed\n"
    fm = parse_frontmatter(text)
    assert not fm.has_frontmatter
    assert fm.data == {}
    assert fm.body == text


def test_invalid_yaml_raises() -> None:
    with pytest.raises(FrontmatterError):
        parse_frontmatter("---\nfoo: [bar\n---\nBody")


def test_block_scalar_keeps_its_final_newline() -> None:
    fm = parse_frontmatter("---\ndescription: |\n  Line one\n  Line two\n---\nbody")
    assert fm.data["description"] == "Line one\nLine two\n"
    span = fm.fields["description"]
    assert (span.line, span.end_line) == (1, 3)


def test_empty_block_and_null_document() -> None:
    empty = parse_frontmatter("---\n---\n\n  body  \n")
    assert empty.has_frontmatter
    assert empty.data == {}
    assert empty.body == "body"
    assert parse_frontmatter("---\n# only a comment\n---\nx").data == {}
    assert parse_frontmatter("---\n~\n---\nx").data == {}


def test_document_that_is_not_a_mapping_gives_no_data() -> None:
    assert parse_frontmatter("---\njust text\n---\nx").data == {}
    assert parse_frontmatter("---\n- a\n- b\n---\nx").data == {}


def test_closing_delimiter_is_any_line_starting_with_three_dashes() -> None:
    fm = parse_frontmatter("---\nname: x\n----- not yaml\nbody")
    assert fm.data == {"name": "x"}
    assert fm.body == "-- not yaml\nbody"


def test_body_is_trimmed_with_javascript_whitespace() -> None:
    fm = parse_frontmatter("---\na: 1\n---\n\ufeff\u3000 body \x1c")
    assert fm.body == "body \x1c"


def test_strip_frontmatter() -> None:
    assert strip_frontmatter("---\na: b\n---\n\n  text\n\n") == "text"


# --- YAML 1.2 core schema ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("yes", "yes"),
        ("on", "on"),
        ("No", "No"),
        ("010", 10),
        ("0o10", 8),
        ("0x1F", 31),
        ("-0x1", "-0x1"),
        ("+0o7", "+0o7"),
        ("1_000", "1_000"),
        ("0b101", "0b101"),
        ("1e3", 1000.0),
        ("1.", 1.0),
        (".5", 0.5),
        ("+1", 1),
        ("2001-12-14", "2001-12-14"),
        ("1:20", "1:20"),
        ("=", "="),
        ("~", None),
        ("null", None),
        ("NULL", None),
        ("nUll", "nUll"),
        ("True", True),
        ("FALSE", False),
        ("tRue", "tRue"),
        ("-.Inf", -math.inf),
        ("a #comment", "a"),
        ("a# not a comment", "a# not a comment"),
        ("a:b", "a:b"),
        ("a]", "a]"),
        ('"a\\x41\\u00e9\\N\\_"', "aAé\x85\xa0"),
        ('"\\ud83d\\ude00"', "😀"),
        ("'it''s'", "it's"),
        ("a\tb  ", "a\tb"),
        ("a\x7fb\x01", "a\x7fb\x01"),
    ],
)
def test_core_schema_values(value: str, expected: Any) -> None:
    fm = parse_frontmatter(f"---\nk: {value}\n---\n")
    assert fm.data["k"] == expected
    assert type(fm.data["k"]) is type(expected)
    # the full parser agrees with the line scanner
    slow = load_yaml(f"k: {value}").value["k"]
    assert slow == expected and type(slow) is type(expected)


def test_nan_and_explicit_tags() -> None:
    assert math.isnan(parse_frontmatter("---\nk: .NaN\n---\n").data["k"])
    data = parse_frontmatter("---\na: !!str 123\nb: !!int 010\nc: !custom x\n---\n").data
    assert data == {"a": "123", "b": 10, "c": "x"}


def test_merge_key_is_an_ordinary_key_and_keys_become_strings() -> None:
    data = parse_frontmatter("---\n<<: {a: 1}\nb: 2\n1: one\nnull: nothing\ntrue: yes\n---\n").data
    assert data == {"<<": {"a": 1}, "b": 2, "1": "one", "": "nothing", "true": "yes"}


def test_nested_values_and_aliases() -> None:
    fm = parse_frontmatter(
        "---\nname: x\nmetadata:\n  author: me\n  tags: [a, b]\nallowed-tools:\n  - read\n"
        "  - bash\nref: &r v\ncopy: *r\n---\n"
    )
    assert fm.data == {
        "name": "x",
        "metadata": {"author": "me", "tags": ["a", "b"]},
        "allowed-tools": ["read", "bash"],
        "ref": "v",
        "copy": "v",
    }
    assert fm.key_lines == {"name": 1, "metadata": 2, "allowed-tools": 5, "ref": 8, "copy": 9}


def test_duplicate_keys_are_an_error() -> None:
    with pytest.raises(FrontmatterError) as caught:
        parse_frontmatter("---\na: 1\na: 2\n---\n")
    assert "at line 2, column 1" in caught.value.message
    assert (caught.value.line, caught.value.column) == (2, 0)


def test_recursive_alias_does_not_hang() -> None:
    data = parse_frontmatter("---\na: &x [1, *x]\n---\n").data
    assert data["a"][0] == 1
    assert data["a"][1] is data["a"]


# --- errors --------------------------------------------------------------------------------------


def test_fixture_error_position_reads_like_pi() -> None:
    text = (FIXTURES / "invalid-yaml" / "SKILL.md").read_text()
    with pytest.raises(FrontmatterError) as caught:
        parse_frontmatter(text)
    error = caught.value
    assert "at line 2, column 31" in error.message
    assert error.message.endswith("description: [unclosed bracket\n" + " " * 30 + "^\n")
    # file position: line 2 (0-based) is the description line, column 30 is its end
    assert (error.line, error.column) == (2, 30)
    assert str(error) == error.message


def test_error_column_counts_utf16_units_in_the_message() -> None:
    with pytest.raises(FrontmatterError) as caught:
        parse_frontmatter('---\nk: "😀😀 unterminated\n---\n')
    error = caught.value
    assert "at line 1, column" in error.message
    assert error.line == 1
    with pytest.raises(YamlProblem):
        load_yaml("a: [1, 2")


def test_nul_character_is_reported() -> None:
    with pytest.raises(FrontmatterError) as caught:
        parse_frontmatter("---\nname: x\nmetadata:\n  a: \x00\n---\n")
    assert (caught.value.line, caught.value.column) == (3, 5)


def test_error_position_on_a_frontmatter_line_after_the_opening_one() -> None:
    with pytest.raises(FrontmatterError) as caught:
        parse_frontmatter("---\nname: ok\nbad: x: y\n---\n")
    assert caught.value.line == 2
    assert caught.value.message.startswith(caught.value.problem)


# --- the line scanner and the full parser agree --------------------------------------------------

_keys = st.from_regex(r"[a-z_][a-z0-9_-]{0,12}", fullmatch=True).filter(
    lambda key: key not in {"true", "false", "null"}
)
_plain = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\n\r"),
    max_size=30,
)
_values = st.one_of(
    _plain,
    _plain.map(lambda text: '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'),
    _plain.map(lambda text: "'" + text.replace("'", "''") + "'"),
    st.sampled_from(["true", "False", "~", "010", "0x1f", "1.5e3", ".inf", "-7", "", "yes"]),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_keys, _values, min_size=1, max_size=5))
def test_scanner_matches_the_full_parser(entries: dict[str, str]) -> None:
    yaml_text = "\n".join(
        f"{key}: {value}" if value else f"{key}:" for key, value in entries.items()
    )
    try:
        expected = load_yaml(yaml_text)
    except YamlProblem:
        with pytest.raises(FrontmatterError):
            parse_frontmatter(f"---\n{yaml_text}\n---\n")
        return
    fm = parse_frontmatter(f"---\n{yaml_text}\n---\n")
    assert _same(fm.data, expected.value)
    assert fm.key_lines == {key: position.line + 1 for key, position in expected.keys.items()}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b
