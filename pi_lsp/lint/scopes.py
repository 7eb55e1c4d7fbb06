"""Where an instruction applies: its scope, and whether two scopes overlap.

A :class:`Scope` has four parts:

* ``folder``: the folder of the context file. Every instruction of a nested ``AGENTS.md``
  applies to that folder's subtree; the files of one chain all load for one working directory,
  so their folders always overlap (that overlap is the ordinary cross-file conflict).
* ``languages``: the languages or file types the rule is limited to, from the nearest heading
  that names one ("## Python", "### TypeScript style") or from the sentence ("In TypeScript
  files, …", "for `*.tsx` files", "Go code …"). Empty means every language.
* ``condition``: the situation the rule is limited to, from a phrase that opens the clause
  ("When running in CI, …", "If the build fails, …", "For the docs site, …", "For hotfixes,
  …"), lowercased. Empty means always.
* ``heading``: the heading path, for messages and for the tier-2 judge.

Two scopes overlap (:func:`scopes_overlap`) when their languages share one (or either names
none) and their conditions are the same (both empty, or the same words). Tier 1 compares only
overlapping instructions. Pairs it declines because one side is conditional, or the two
conditions differ, are candidates for a judge: :func:`declined_reason` says why a pair was
declined, and :func:`pi_lsp.lint.conflicts.scoped_pairs` lists them for a chain. Pairs in
different explicit languages are not candidates: a Python rule and a TypeScript rule do not
meet.

A scope given as plain text (a table's scope column, "Python", "docs site", "CI") folds into a
scope with :meth:`Scope.with_hint`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace

from pi_lsp.lint.purposes import purposes_meet

#: language key -> the words that name it (whole words, any case but for :data:`_SHORT`)
_LANGUAGE_WORDS: dict[str, tuple[str, ...]] = {
    "python": ("python",),
    "typescript": ("typescript", "ts"),
    "javascript": ("javascript", "js"),
    "go": ("go", "golang"),
    "rust": ("rust",),
    "java": ("java",),
    "kotlin": ("kotlin",),
    "ruby": ("ruby",),
    "csharp": ("c#", "csharp"),
    "swift": ("swift",),
    "php": ("php",),
    "shell": ("shell", "bash", "sh"),
    "sql": ("sql",),
    "css": ("css", "scss", "sass"),
    "html": ("html",),
    "markdown": ("markdown",),
    "yaml": ("yaml",),
    "terraform": ("terraform",),
    "elixir": ("elixir",),
    "scala": ("scala",),
    "dart": ("dart",),
    "cpp": ("c++", "cpp"),
}
#: short or common words that name a language only as written here ("Go", not "go")
_CASED_SPELLINGS = frozenset(
    {"Go", "Golang", "TS", "JS", "SQL", "CSS", "SCSS", "HTML", "Bash", "Shell", "YAML", "PHP"}
)
_SHORT = frozenset(
    {"go", "golang", "ts", "js", "sql", "css", "scss", "html", "bash", "shell", "sh"}
)

#: file extension -> language key
_EXTENSIONS: dict[str, str] = {
    "py": "python",
    "pyi": "python",
    "ts": "typescript",
    "tsx": "typescript",
    "mts": "typescript",
    "cts": "typescript",
    "js": "javascript",
    "jsx": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "go": "go",
    "rs": "rust",
    "java": "java",
    "kt": "kotlin",
    "kts": "kotlin",
    "rb": "ruby",
    "cs": "csharp",
    "swift": "swift",
    "php": "php",
    "sh": "shell",
    "bash": "shell",
    "sql": "sql",
    "css": "css",
    "scss": "css",
    "html": "html",
    "md": "markdown",
    "yml": "yaml",
    "yaml": "yaml",
    "tf": "terraform",
    "ex": "elixir",
    "exs": "elixir",
    "scala": "scala",
    "dart": "dart",
    "cpp": "cpp",
    "cc": "cpp",
    "hpp": "cpp",
}


def _word_alternation(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_ALL_WORDS = tuple(w for words in _LANGUAGE_WORDS.values() for w in words)
_BY_WORD = {w: key for key, words in _LANGUAGE_WORDS.items() for w in words}
_LANGUAGE_WORD = _word_alternation(_ALL_WORDS)
#: the nouns a language names a scope with: "TypeScript files", "Python code"
_SCOPE_NOUN = (
    r"(?:files?|code|sources?|source files?|modules?|packages?|projects?|tests?|components?|"
    r"scripts?|services?|crates?|libraries|library|bindings?|snippets?|examples?|lines)\b"
)
_EXTENSION = _word_alternation(tuple(_EXTENSIONS))
#: "`*.tsx`", "*.py", ".ts files"
_GLOB = re.compile(
    r"(?<![\w.])(?:\*{1,2}/)?\*?\.(" + _EXTENSION + r")\b(?![\w.])",
    re.IGNORECASE,
)
#: a language named as a scope anywhere in a sentence: "in TypeScript files", "Go code"
_SENTENCE_LANGUAGE = re.compile(
    r"(?<![\w#+.-])(" + _LANGUAGE_WORD + r")(?![\w#+-])\s?" + _SCOPE_NOUN, re.IGNORECASE
)
#: a language that opens a sentence as the subject of a setting or convention: "Python line
#: length is 100", "YAML is indented with 2 spaces", "TypeScript strings use single quotes"
_SUBJECT_LANGUAGE = re.compile(
    r"^[^\w#]*+(?:the\s++)?(" + _LANGUAGE_WORD + r")(?![\w#+.-])(?=\s++(?:is|are|uses?|gets?|"
    r"must|should|line\s++length|lines?|indent\w*+|imports?|strings?|naming|style|formatting|"
    r"max\w*+|width|wrap\w*+|quotes?|tabs?|docstrings?|comments?)\b)",
    re.IGNORECASE,
)
#: a language as the object of a verb that works on source text: "Indent TypeScript with 2
#: spaces", "Format Markdown with Prettier", "Lint Python with Ruff"
_OBJECT_LANGUAGE = re.compile(
    r"^[^\w#]*+(?:(?:always|please|also)\s++)?(?:indent|format|lint|type-?check|style)\s++"
    r"(?:all\s++|the\s++|your\s++|our\s++)?(" + _LANGUAGE_WORD + r")(?![\w#+.-])"
    r"(?=\s++(?:with|using|via|by|at|to)\b)",
    re.IGNORECASE,
)
_HEADING_WORD = re.compile(r"(?<![\w#+.-])(" + _LANGUAGE_WORD + r")(?![\w#+-])", re.IGNORECASE)


def _names_language(written: str) -> bool:
    """Whether a matched language word counts as written: a short or common one ("go",
    "sh") only in its usual spelling ("Go", "Bash")."""
    return written.lower() not in _SHORT or written in _CASED_SPELLINGS or written == "sh"


#: a phrase that opens a clause and limits it, up to the comma that ends it
_OPENING_SCOPE = re.compile(
    r"^\W*+(?P<phrase>(?:for|in|inside|within|under|when|whenever|if|unless|while|on|"
    r"outside|unlike)\s[^,;:]{1,80}+),\s*+(?=\S)",
    re.IGNORECASE,
)
#: openings that do not limit the clause ("In this package, …" is the file's own folder;
#: "In general, …", "If in doubt, …")
_NOT_A_CONDITION = re.compile(
    r"^(?:in|for|within|inside|under|on)\s+(?:this|the|our)\s+(?:package|directory|folder|"
    r"repo|repository|project|subproject|workspace|module|codebase|monorepo|service|app|crate)"
    r"(?:\s+(?:here|itself))?$"
    r"|^(?:in|for|on)\s+(?:all|every|general|any|short|particular|addition|practice|"
    r"summary|most|each)\b"
    r"|^(?:if|when)\s+(?:in\s+doubt|unsure|possible|needed|necessary|applicable)$"
    r"|^unless\s+(?:(?:told|asked|instructed|stated|noted|specified)\s+otherwise|"
    r"otherwise\s+(?:told|asked|instructed|stated|noted|specified))$"
    r"|^for\s+(?:now|the\s+time\s+being)$"
    r"|^unlike\b"
    r"|^(?:in|for)\s+(?:all|every|any)\b",
    re.IGNORECASE,
)
#: a sentence that ends on one of a few unmistakable situations ("Use `npm ci` in CI."); a
#: trailing "when …" or "if …" is too often the rule's general purpose ("use pnpm when
#: installing packages") to count
_TRAILING_CONDITION = re.compile(
    r"\s((?:in|on|during)\s++(?:the\s++)?ci(?:\s++(?:jobs?|runs?|pipelines?))?|"
    r"for\s++hotfix(?:es)?|for\s++(?:the\s++)?docs(?:\s++site)?)\W*+$",
    re.IGNORECASE,
)
#: a verb of enforcing right before a trailing "in CI" ("the heap budget is 48 KiB and is
#: checked by `mem_report.py` in CI"): CI is where the rule is enforced, not where it holds
_ENFORCED_BEFORE = re.compile(
    r"\b(?:checked|enforced|verified|validated|gated|caught|flagged|fails?|failing|blocks?|"
    r"blocked|rejected|reported|asserted)\b(?:\s++by\s++[^\s;:,]++(?:\s++[^\s;:,]++)?)?\s*+$",
    re.IGNORECASE,
)
#: an exception word right before a trailing situation ("do not use npm, except for the docs
#: site", "never use Docker other than in CI"): the rule holds everywhere but there, which is
#: a condition of its own, never the situation itself
_EXCEPTED_BEFORE = re.compile(
    r"\b(?:except(?:\s++for)?|other\s++than|apart\s++from|but\s++not|outside(?:\s++of)?|"
    r"save\s++for|excluding|besides)\s*+$",
    re.IGNORECASE,
)

#: what may stand in brackets before a trailing condition that still limits the sentence:
#: "(in CI)", "(only in CI)", "(and in CI)"
_BARE_ASIDE = re.compile(r"[\s\x1a`*_]*+(?:(?:only|also|and|even|just|but|not|except)\b)?\s*+")


def _in_own_aside(sentence: str, start: int) -> bool:
    """Whether the trailing condition at ``start`` ends a bracketed aside with a statement of
    its own ("Jest is our test runner (`npm test` runs `jest` in CI)"): the condition is the
    aside's, not the sentence's."""
    opened = sentence.rfind("(", 0, start)
    if opened < 0 or sentence.rfind(")", 0, start) > opened:
        return False
    return _BARE_ASIDE.fullmatch(sentence, opened + 1, start) is None


#: a use restricted to a purpose or a place ("use Enzyme only to read the old tests", "mocks
#: only in unit tests", "Docker only for the integration suite"): the sentence holds there
_ONLY_FOR = re.compile(
    r"\bonly\s++((?:to|for|in|inside|within|when|while|on|during)\s++[^.;:,()]++)", re.IGNORECASE
)
_CLAUSE_BREAK = re.compile(r"[;:\u2014\u2013]|\s-\s")
#: "the docs site" and "docs site" are one condition
_CONDITION_FILLER = re.compile(r"\b(?:the|a|an|any|all|our|your)\s+", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Scope:
    """Where one instruction applies (see the module documentation)."""

    folder: str = ""
    languages: frozenset[str] = frozenset()
    condition: str = ""
    heading: tuple[str, ...] = ()
    #: what a choice is for, as :func:`pi_lsp.lint.purposes.purpose_key` compares it: set
    #: only on the scope a choice is compared in (see :mod:`pi_lsp.lint.conflicts`)
    purpose: str = ""
    #: the languages are only those of the ecosystems of the tools the sentence names
    #: ("Metrics go to Datadog through `statsd`"), not stated by its words or its heading
    languages_from_tools: bool = False

    @property
    def conditional(self) -> bool:
        return bool(self.condition)

    def with_hint(self, hint: str) -> Scope:
        """This scope narrowed by a scope given as plain text (a table row's scope column):
        languages when the text names them ("Python", "`*.tsx`"), else a condition."""
        text = hint.strip()
        if not text:
            return self
        languages = languages_of(text) or heading_languages(text)
        if languages:
            return replace(self, languages=languages, languages_from_tools=False)
        return replace(self, condition=normalize_condition(text))


#: the scope of an instruction that applies everywhere its file applies
EVERYWHERE = Scope()


def normalize_condition(phrase: str) -> str:
    """A condition's words compared as words: lowercase, articles dropped, spacing collapsed."""
    text = _CONDITION_FILLER.sub("", phrase.replace("`", "").lower())
    return " ".join(text.split()).strip(" .!?:;,")


def languages_of(text: str) -> frozenset[str]:
    """The languages ``text`` names as a scope: "in TypeScript files", "for `*.py`"."""
    found = {
        _BY_WORD[m.group(1).lower()]
        for m in _SENTENCE_LANGUAGE.finditer(text)
        if _names_language(m.group(1))
    }
    found.update(_EXTENSIONS[m.group(1).lower()] for m in _GLOB.finditer(text))
    for opening in (_SUBJECT_LANGUAGE.match(text), _OBJECT_LANGUAGE.match(text)):
        if opening is not None and _names_language(opening.group(1)):
            found.add(_BY_WORD[opening.group(1).lower()])
    return frozenset(found)


def heading_languages(title: str) -> frozenset[str]:
    """The languages a heading names ("Python", "TypeScript style", "Go (backend)")."""
    found = {
        _BY_WORD[m.group(1).lower()]
        for m in _HEADING_WORD.finditer(title)
        if _names_language(m.group(1)) and m.group(1) != "sh"
    }
    found.update(_EXTENSIONS[m.group(1).lower()] for m in _GLOB.finditer(title))
    return frozenset(found)


#: generic nouns after a folder's name in a place phrase ("the worker service", "the
#: extension app")
_PLACE_NOUNS = frozenset(
    {
        "service",
        "app",
        "application",
        "package",
        "module",
        "crate",
        "library",
        "lib",
        "site",
        "folder",
        "directory",
        "dir",
        "project",
        "subproject",
        "workspace",
        "component",
        "plugin",
        "cli",
        "tool",
        "binary",
        "code",
        "codebase",
    }
)
_PLACE_OPENERS = frozenset({"in", "for", "within", "inside", "under", "on", "across"})
_PLACE_ARTICLES = frozenset({"the", "this", "our", "these"})


def names_own_folder(phrase: str, folder: str) -> bool:
    """Whether a place phrase names the folder of the file it is written in ("in the
    worker" in ``services/worker/AGENTS.md``, "for the extension" in ``apps/extension/``,
    "in the docs site" in ``docs/``): the file's own scope, not a condition. A phrase that
    names another part of the repository stays a condition."""
    name = os.path.basename(os.path.normpath(folder)).lower() if folder else ""
    words = phrase.lower().replace("`", " ").split()
    if not name or not words or len(words) > 6 or words[0] not in _PLACE_OPENERS:
        return False
    words = words[1:]
    while words and words[0] in _PLACE_ARTICLES:
        words = words[1:]
    while words and words[-1] in _PLACE_NOUNS:
        words = words[:-1]
    if not words:
        return False
    written = " ".join(words).strip("/.")
    variants = {name, name.replace("-", " "), name.replace("_", " "), name.lstrip("@")}
    return written in variants or written.rstrip("s") == name.rstrip("s")


def opening_scope(clause: str, folder: str = "") -> tuple[frozenset[str], str, int] | None:
    """The scope phrase a clause opens with ("For the docs site, use npm"): the languages it
    names, its condition (empty when it only names languages) and where the rest of the clause
    begins; both empty for an opening that does not limit the clause ("In this package, …",
    "In general, …", "Unlike the root AGENTS.md, …", or a phrase naming ``folder``, the
    file's own folder: "In the worker, …" in ``services/worker/``); ``None`` when the clause
    opens with no such phrase."""
    match = _OPENING_SCOPE.match(clause)
    if match is None:
        return None
    phrase = match.group("phrase").strip()
    if _NOT_A_CONDITION.match(phrase) or names_own_folder(phrase, folder):
        return frozenset(), "", match.end()
    languages = languages_of(phrase) or heading_languages(phrase)
    if languages:
        return languages, "", match.end()
    return frozenset(), normalize_condition(phrase), match.end()


def scope_for(
    path: str,
    heading: tuple[str, ...],
    sentence: str,
    opening: tuple[frozenset[str], str] | None,
    groups: Iterable[str] = (),
) -> Scope:
    """The scope of a sentence of ``path`` under ``heading``: the languages of its opening
    phrase, else those it names as a scope, else those of its nearest heading that names one,
    else those of the ecosystem ``groups`` of the tools it chooses ("Prettier with `printWidth: 80`"
    speaks of JavaScript and TypeScript); the condition of its opening phrase, else of its
    last words ("… in CI."), else of a use it restricts ("… only to read the old tests")."""
    languages: frozenset[str] = frozenset()
    condition = ""
    if opening is not None:
        languages, condition = opening
    if not condition:
        trailing = _TRAILING_CONDITION.search(sentence)
        if (
            trailing is not None
            and not _in_own_aside(sentence, trailing.start())
            and not names_own_folder(trailing.group(1), os.path.dirname(path))
            and not _ENFORCED_BEFORE.search(
                sentence, max(0, trailing.start() - 60), trailing.start()
            )
        ):
            condition = normalize_condition(trailing.group(1))
            if _EXCEPTED_BEFORE.search(sentence, max(0, trailing.start() - 20), trailing.start()):
                condition = f"except {condition}"
    if not condition:
        only = _ONLY_FOR.search(sentence)
        # in the sentence's first clause: "single quotes; template literals only when …"
        # restricts the second clause, not the first
        if (
            only is not None
            and not _CLAUSE_BREAK.search(sentence, 0, only.start())
            and not names_own_folder(only.group(1), os.path.dirname(path))
        ):
            condition = normalize_condition(only.group(1))
    if not languages:
        languages = languages_of(sentence)
    if not languages:
        for title in reversed(heading):
            languages = heading_languages(title)
            if languages:
                break
    from_tools = False
    if not languages:
        languages = frozenset(
            language for group in groups for language in _GROUP_LANGUAGES.get(group, ())
        )
        from_tools = bool(languages)
    return Scope(
        os.path.dirname(path), languages, condition, heading, languages_from_tools=from_tools
    )


#: the ecosystem group of a catalogue value -> the languages a tool of that group works on
_GROUP_LANGUAGES: dict[str, tuple[str, ...]] = {
    "js": ("javascript", "typescript"),
    "ts": ("typescript",),
    "node": ("javascript", "typescript"),
    "python": ("python",),
    "go": ("go",),
    "rust": ("rust",),
    "jvm": ("java", "kotlin"),
    "java": ("java",),
    "kotlin": ("kotlin",),
    "ruby": ("ruby",),
    "php": ("php",),
    "dotnet": ("csharp",),
    "elixir": ("elixir",),
    "swift": ("swift",),
    "cpp": ("cpp",),
}


def declined_reason(a: Scope, b: Scope) -> str | None:
    """Why two instructions with these scopes are not compared by tier 1, or ``None`` when
    their scopes overlap: ``"languages"`` (explicit, different languages: never a conflict),
    ``"conditional"`` (one side applies only under a condition the other does not state) or
    ``"conditions"`` (two different conditions). The last two are candidates for a judge."""
    if a.languages and b.languages and not (a.languages & b.languages):
        return "languages"
    if not purposes_meet(a.purpose, b.purpose):
        return "purposes"
    if a.condition == b.condition:
        return None
    if a.condition and b.condition:
        return "conditions"
    return "conditional"


def scopes_overlap(a: Scope, b: Scope) -> bool:
    """Whether two instructions with these scopes can contradict each other: the same
    condition (or none on both sides) and a language in common (or no language on a side).
    Folders are not compared: the files of one chain all apply where the chain loads."""
    return declined_reason(a, b) is None


def share_scope(a: Scope, a_text: str, b: Scope, b_text: str) -> bool:
    """:func:`scopes_overlap`, or one side's condition named in the other, unconditional
    side's own words ("In tests, always mock the repository layer" against "Don't stub the
    repository layer in tests"): ``a_text`` and ``b_text`` are the sentences, normalized."""
    reason = declined_reason(a, b)
    if reason is None:
        return True
    if reason != "conditional":
        return False
    condition, other = (a.condition, b_text) if a.condition else (b.condition, a_text)
    return f" {condition} " in f" {normalize_condition(other)} "
