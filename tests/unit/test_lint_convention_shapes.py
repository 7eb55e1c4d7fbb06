"""Process conventions read by their shape (pi_lsp/lint/conventions.py): a value a convention
verb or preposition introduces, a config setting written in code, a reply language asked for
in another language, an example list of spellings, a heading required in the reply, emoji
rejected where gitmoji puts them. Every sentence is made up for these tests."""

from __future__ import annotations

import pytest

from pi_lsp.lint.choices import read_choices
from pi_lsp.lint.conflicts import find_conflicts
from tests.clauses import masked_clause


def _read(sentence: str) -> set[tuple[str, str, str]]:
    clause, masked = masked_clause(sentence)
    return {(c.dimension, c.value, c.stance) for c in read_choices(clause, masked)}


def _conflicts(earlier: str, later: str, *, global_file: bool = False) -> list[str]:
    first = "/home/me/.pi/agent/AGENTS.md" if global_file else "/r/AGENTS.md"
    chain = [
        (first, f"# First\n\n{earlier}\n"),
        ("/r/lib/AGENTS.md", f"# Lib\n\n{later}\n"),
    ]
    return sorted(
        str(f.data["dimension"]) for f in find_conflicts(chain) if f.rule.startswith("conflict")
    )


@pytest.mark.parametrize(
    ("earlier", "later", "dimension"),
    [
        # a term of art introduced by a preposition or a verb of following, in a clause that
        # names what the role is about
        (
            "- Phrase every commit subject as an order: imperative mood.",
            "Release notes are cut straight from the log, which is why we word commit "
            "subjects in the past tense.",
            "commit-tense",
        ),
        (
            "| Setting | Value |\n|---|---|\n| Merge style | Rebase and merge |",
            "Here we ship pull requests with squash-and-merge to keep one commit per change.",
            "merge-strategy",
        ),
        (
            "- Pull requests target `trunk`.",
            "Base every PR against `main`; nothing lands on trunk from here.",
            "pr-base-branch",
        ),
        (
            "- Guides and READMEs are in British English.",
            "Reference pages here follow American English.",
            "documentation-spelling",
        ),
        (
            "- Docstrings: Google style.",
            "Every public function carries a docstring in NumPy style.",
            "docstring-style",
        ),
        (
            "- Branch names: `<user>/<topic>`.",
            "Name branches after the change type, like `<type>/short-slug` (a branch per issue).",
            "branch-naming",
        ),
        # a config setting in code is the setting, whatever verb frames it
        (
            '- The shared `tsconfig` turns on `"strict": true`.',
            "Our `tsconfig.json` keeps `strict: false` for the legacy port.",
            "typescript-strictness",
        ),
        (
            "- **Nullable reference types:** on for every project.",
            "`Worker.csproj` carries `<Nullable>disable</Nullable>` until the bindings are "
            "annotated.",
            "nullable-reference-types",
        ),
        (
            "- Type checking: mypy with `strict = true` for all of `src/`.",
            "The plugin modules opt out of strict typing: their mypy section sets "
            "`disallow_untyped_defs = false`.",
            "python-type-strictness",
        ),
        # a required heading in the reply against a rule without headings in replies
        (
            "- No headings in replies, please; plain paragraphs read better in the terminal.",
            "Close each response with a `### What changed` heading and a bullet per file.",
            "response-format",
        ),
        # strings through the translation layer against hard-coded copy
        (
            "- All user-visible strings go through `react-intl` message ids.",
            "Hardcode the labels in English in this tool; no i18n for internal screens.",
            "string-externalisation",
        ),
    ],
)
def test_convention_shapes_conflict(earlier: str, later: str, dimension: str) -> None:
    assert dimension in _conflicts(earlier, later)


@pytest.mark.parametrize(
    ("earlier", "later", "dimension"),
    [
        (
            "- Réponds toujours en français, même si je t'écris en anglais.",
            "Answer in English here so the whole team can read the transcripts.",
            "response-language",
        ),
        (
            "- Contesta siempre en español.",
            "Reply in German in this repository.",
            "response-language",
        ),
        (
            "- 请始终用中文回答。",
            "Respond in English in this repository.",
            "response-language",
        ),
        (
            "- Keine Emojis, nirgends. Never use emoji anywhere.",
            "Commit subjects follow gitmoji, one emoji per change type.",
            "commit-emoji",
        ),
        (
            "- Spell it the British way in docs: colour, optimise, catalogue.",
            "Write documentation with American spelling (color, optimize).",
            "documentation-spelling",
        ),
    ],
)
def test_global_shapes_conflict_with_the_project(earlier: str, later: str, dimension: str) -> None:
    assert dimension in _conflicts(earlier, later, global_file=True)


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Antworte immer auf Deutsch, auch wenn ich Englisch schreibe.", ("German", "prefer")),
        ("Rispondi sempre in italiano.", ("Italian", "prefer")),
        ("Responda sempre em português.", ("Portuguese", "prefer")),
        ("Antwoord altijd in het Nederlands.", ("Dutch", "prefer")),
        ("日本語で回答してください。", ("Japanese", "prefer")),
    ],
)
def test_a_reply_language_is_read_from_a_rule_in_another_language(
    sentence: str, expected: tuple[str, str]
) -> None:
    assert ("response-language", *expected) in _read(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        # the language a rule is written in is no choice
        "Antworte kurz und sachlich.",
        "Sois bref et précis.",
        # the language of artefacts, not of the reply
        "Schreibe Commit-Messages und Kommentare auf Englisch.",
        "Écris les commentaires du code en anglais.",
        # a language in a condition
        "Antworte knapp, auch wenn ich auf Englisch frage.",
    ],
)
def test_no_reply_language_where_the_rule_asks_for_none(sentence: str) -> None:
    assert not {c for c in _read(sentence) if c[0] == "response-language"}


@pytest.mark.parametrize(
    "sentence",
    [
        # narrative, hedges, questions and conditions state no convention
        "We wrote commit subjects in the past tense until last year.",
        "You may land small fixes with rebase-and-merge.",
        "Should PRs go against `main`?",
        "If a package still uses `strict: false`, leave a note in the issue.",
        # a subject naming only some cases, or someone else's file
        "Release PRs go against `main`.",
        'The upstream starter ships `"strict": false` in its tsconfig.',
        # values listed, not chosen; a term used as a subject, not a verb
        "GitHub offers squash and merge, rebase and merge and plain merge commits.",
        "Hardcoded strings are caught by the copy linter.",
        # user-facing copy is not the documentation's spelling
        "Write UI copy in British English for the shop in London.",
        # a code sample or a flag spelled one way is no spelling rule
        "Docs mention the `--colour` and `--behaviour` flags exactly as the CLI spells them.",
        # headings in an artefact, not in the reply
        "End every PR description with a `## Testing` heading.",
        # a word that happens to be spelled one way, twice, is no example list
        "After changing runtime behavior or behavior-heavy docs, rerun the suite.",
        # importing what a dependency exports is not how this project exports
        "Import the date helper through its default export.",
    ],
)
def test_hard_negatives_choose_nothing_of_these_roles(sentence: str) -> None:
    roles = {
        "commit-tense",
        "merge-strategy",
        "pr-base-branch",
        "typescript-strictness",
        "string-externalisation",
        "documentation-spelling",
        "response-format",
        "export-style",
    }
    assert not {c for c in _read(sentence) if c[0] in roles and c[2] == "prefer"}


@pytest.mark.parametrize(
    "sentence",
    [
        "No emoji in chat replies.",
        "No emoji in replies, but gitmoji is fine for commit subjects.",
        "Avoid emoji except in the release notes, where every commit type gets one.",
    ],
)
def test_emoji_kept_out_of_replies_only_says_nothing_of_commits(sentence: str) -> None:
    assert ("commit-emoji", "emoji in commit messages", "reject") not in _read(sentence)


def test_a_setting_taken_away_is_rejected() -> None:
    assert ("typescript-strictness", "non-strict", "reject") in _read(
        'Swap `"strict": false` for the tsconfig defaults.'
    ) | _read('Replace `"strict": false` with the base tsconfig.')
    assert ("typescript-strictness", "non-strict", "reject") in _read(
        "Never put `strict: false` in a package tsconfig."
    )


def test_a_quoted_bad_example_beside_the_good_one_chooses_no_spelling() -> None:
    assert not _read("In docs write color, not colour, and organize, not organise.") & {
        ("documentation-spelling", "British English", "prefer"),
        ("documentation-spelling", "American English", "prefer"),
    }


def test_emoji_rejected_in_replies_only_does_not_meet_gitmoji() -> None:
    assert _conflicts("- Keep replies free of emoji.", "We use gitmoji for commit subjects.") == []


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Use Korean for every reply.", ("response-language", "Korean", "prefer")),
        ("Talk Italian with me, please.", ("response-language", "Italian", "prefer")),
        ("Отвечай по-английски.", ("response-language", "English", "prefer")),
        ("영어로 답변해 주세요.", ("response-language", "English", "prefer")),
        (
            "Phrase commit subjects in the imperative.",
            ("commit-tense", "imperative mood", "prefer"),
        ),
        ("We rebase-merge every pull request.", ("merge-strategy", "rebase merge", "prefer")),
        (
            "Start a branch with `git switch -c chore/bump-deps`.",
            ("branch-naming", "type/description", "prefer"),
        ),
        (
            "Branches are named like `OPS-311/rotate-keys`.",
            ("branch-naming", "ticket-id branches", "prefer"),
        ),
        (
            "Never name a branch `<your-name>/<topic>`.",
            ("branch-naming", "user/description", "reject"),
        ),
    ],
)
def test_more_phrasings_of_the_same_shapes(sentence: str, expected: tuple[str, str, str]) -> None:
    assert expected in _read(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "It is imperative that the suite passes before any commit.",
        "Write German UI strings to `de.json` and keep the branch green.",
        "`hotfix/*` branches are deployed by the release bot.",
        "Keep notes about the branch in `notes/branching.md`.",
    ],
)
def test_near_misses_of_those_shapes_choose_nothing(sentence: str) -> None:
    assert not {
        c for c in _read(sentence) if c[0] in ("response-language", "commit-tense", "branch-naming")
    }


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("Write docstrings in NumPy format.", "NumPy style"),
        ("Docstrings follow the Google format.", "Google style"),
        ("Public functions carry docstrings in NumPy docstring format.", "NumPy style"),
    ],
)
def test_a_docstring_style_named_as_a_format_is_the_style(sentence: str, value: str) -> None:
    assert ("docstring-style", value, "prefer") in _read(sentence)


@pytest.mark.parametrize(
    "sentence",
    ["Export the arrays in NumPy format.", "Dates use the Google format in the sheet."],
)
def test_a_format_outside_docstrings_is_no_docstring_style(sentence: str) -> None:
    assert not {d for d, _, _ in _read(sentence)} & {"docstring-style"}
