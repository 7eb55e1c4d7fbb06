"""Globs as fd and the ignore crate parse them (Rust ``globset`` semantics)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_lsp.tools.glob_automaton import GlobAutomaton, GlobSpec
from pi_lsp.tools.glob_regex import (
    GlobError,
    GlobOptions,
    compile_regex,
    glob_regex_source,
    has_uppercase,
    parse_glob,
)

PLAIN = GlobOptions()
SEPARATED = GlobOptions(literal_separator=True)


def matches(glob: str, path: str, options: GlobOptions = PLAIN) -> bool:
    """Whether ``glob`` matches ``path``; the regex and the automaton (which the tools use)
    must agree."""
    tokens = parse_glob(glob, options)
    regex = compile_regex(glob_regex_source(tokens, options))
    by_regex = regex.fullmatch(path.encode()) is not None
    assert GlobAutomaton([GlobSpec(tokens, options)]).fullmatch(path.encode()) is by_regex
    return by_regex


@pytest.mark.parametrize(
    ("glob", "path"),
    [
        ("a*b", "a_b"),
        ("a*b*c", "a___b___c"),
        ("a*b[xyz]c*d", "abxcdbxcddd"),
        ("*.rs", ".rs"),
        ("☃", "☃"),
        ("some/**/needle.txt", "some/needle.txt"),
        ("some/**/needle.txt", "some/one/two/needle.txt"),
        ("**", ""),
        ("**", "/x/.asdf"),
        ("**/test", "test"),
        ("**/test", "one/two/test"),
        ("/**/test", "/test"),
        ("**/.*", "abc/.abc"),
        ("test/**", "test/"),
        ("test/**", "test/one/two"),
        ("a[0-9]b", "a9b"),
        ("a[!0-9]b", "a_b"),
        ("a[^0-9]b", "a_b"),
        ("[abc-]", "-"),
        ("[-a-c]", "b"),
        ("_[[]_[]]_[?]_[*]_!_", "_[_]_?_*_!_"),
        ("{a,b}", "b"),
        ("{**/src/**,foo}", "abc/src/bar"),
        ("{[}],foo}", "}"),
        ("{*.foo,*.bar}", "test.bar"),
        ("foo{,.txt}", "foo.txt"),
        ("{a,b{c,d}}", "bd"),
        ("a,b", "a,b"),
        ("\\[", "["),
        ("\\*", "*"),
        ("\\a", "a"),
        ("a**b", "ab"),
        ("*hello.txt", "some/path/to/hello.txt"),
    ],
)
def test_matches(glob: str, path: str) -> None:
    assert matches(glob, path)


@pytest.mark.parametrize(
    ("glob", "path"),
    [
        ("a*b*c", "abcd"),
        ("some/**/needle.txt", "some/other/notthis.txt"),
        ("/**/test", "test"),
        ("**/.*", "ab.c"),
        ("a[!0-9]b", "a0b"),
        ("[!-]", "-"),
        ("*hello.txt", "hello.txt-and-then-some"),
        ("a", "foo/a"),
        ("**/foo", "foofoo"),
        ("foo/**", "foo"),
        ("foo{,.txt}", "foo"),
        (".*/**", ".abc"),
    ],
)
def test_does_not_match(glob: str, path: str) -> None:
    assert not matches(glob, path)


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        ("abc/def", "abc/def", True),
        ("abc?def", "abc/def", False),
        ("abc*def", "abc/def", False),
        ("abc[/]def", "abc/def", True),
        ("*.c", "mozilla-sha1/sha1.c", False),
        ("some/*/needle.txt", "some/one/two/needle.txt", False),
        ("**/*.md", "/proj/docs/sub/b.md", True),
    ],
)
def test_literal_separator(glob: str, path: str, expected: bool) -> None:
    assert matches(glob, path, SEPARATED) is expected


def test_question_mark_is_one_byte() -> None:
    # globset matches bytes: "é" is two of them
    assert not matches("?.txt", "é.txt", SEPARATED)
    assert matches("??.txt", "é.txt", SEPARATED)
    assert matches("é*", "été", SEPARATED)


@pytest.mark.parametrize(
    ("glob", "message"),
    [
        ("[", "error parsing glob '[': unclosed character class; missing ']'"),
        ("[]", "error parsing glob '[]': unclosed character class; missing ']'"),
        ("[!]", "error parsing glob '[!]': unclosed character class; missing ']'"),
        ("[z-a]", "error parsing glob '[z-a]': invalid range; 'z' > 'a'"),
        (
            "{a,b",
            "error parsing glob '{a,b': unclosed alternate group; missing '}' "
            "(maybe escape '{' with '[{]'?)",
        ),
        (
            "a,b}",
            "error parsing glob 'a,b}': unopened alternate group; missing '{' "
            "(maybe escape '}' with '[}]'?)",
        ),
        ("abc\\", "error parsing glob 'abc\\': dangling '\\'"),
    ],
)
def test_errors_read_like_globset(glob: str, message: str) -> None:
    with pytest.raises(GlobError) as caught:
        parse_glob(glob)
    assert str(caught.value) == message


def test_unclosed_class_allowed_for_gitignore() -> None:
    options = GlobOptions(literal_separator=True, allow_unclosed_class=True)
    assert matches("[abc", "[abc", options)
    assert matches("{[abc,xyz}", "[abc", options)


@pytest.mark.parametrize(
    ("glob", "case_sensitive"),
    [
        ("*.md", False),
        ("*.MD", True),
        ("README*", True),
        ("[A-Z]*", True),
        ("[a-z]*", False),
        ("[!A]*", True),  # the class spans "B" to the end
        ("[!a]*", False),
        ("{a,B}", True),
        ("**/src/*.rs", False),
        ("été", False),
        ("Été", True),
    ],
)
def test_smart_case(glob: str, case_sensitive: bool) -> None:
    assert has_uppercase(parse_glob(glob, SEPARATED)) is case_sensitive


# --- the automaton agrees with the regex ---------------------------------------------------------

_GLOB_PIECES = st.sampled_from(
    [
        "a",
        "b",
        "/",
        "*",
        "**",
        "?",
        "[ab]",
        "[!a]",
        "[a-é]",
        "{a,b}",
        "{*,/}",
        "{,a}",
        "é",
        "A",
        ".",
        "\\*",
        "/**/",
        "**/",
        "/**",
    ]
)
_PATH_PIECES = st.sampled_from(["a", "b", "/", "A", ".", "é", "x"])
_OPTIONS = st.sampled_from(
    (
        PLAIN,
        SEPARATED,
        GlobOptions(literal_separator=True, allow_unclosed_class=True),
        GlobOptions(empty_alternates=True),
    )
)


@settings(max_examples=300, deadline=None)
@given(
    globs=st.lists(st.lists(_GLOB_PIECES, max_size=6).map("".join), min_size=1, max_size=3),
    paths=st.lists(st.lists(_PATH_PIECES, max_size=8).map("".join), min_size=1, max_size=5),
    options=_OPTIONS,
    ignore_case=st.booleans(),
)
def test_automaton_picks_what_the_regex_picks(
    globs: list[str], paths: list[str], options: GlobOptions, ignore_case: bool
) -> None:
    """The last glob whose regex matches a path is the one the automaton names."""
    specs = []
    for glob in globs:
        try:
            specs.append(GlobSpec(parse_glob(glob, options), options, ignore_case))
        except GlobError:
            continue
    flags = re.DOTALL | (re.IGNORECASE if ignore_case else 0)
    regexes = [compile_regex(glob_regex_source(spec.tokens, options), flags) for spec in specs]
    automaton = GlobAutomaton(specs)
    for path in paths:
        subject = path.encode()
        hits = [i for i, regex in enumerate(regexes) if regex.fullmatch(subject)]
        assert automaton.last_match(subject) == (hits[-1] if hits else None)
