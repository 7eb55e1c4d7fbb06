"""Large context files of made-up but realistic prose, for the lint cost tests and bench.

``context_prose(size)`` writes Markdown the way long AGENTS.md files are written: sections
with headings, paragraphs of several sentences, bullet and numbered lists, code fences, and a
share of instructions that name tools (package managers, test runners, indentation) and say
always/never, so that the conflict and duplicate checks have real work to compare. The text
is the same for a given size and seed. ``one_paragraph(size)`` writes the same kind of
sentences as a single wrapped paragraph.
"""

from __future__ import annotations

import random

_WORD_TEXT = (
    "build cache config module service handler request response queue worker schema "
    "table index migration release branch commit review change feature bug fix patch "
    "version tag client server socket token session user account profile setting option "
    "flag default value field record entry list map set tree graph node edge path file "
    "folder package library script command output input error warning message log trace "
    "metric alert deploy staging production preview local remote mirror backup snapshot "
    "archive report page layout widget button form dialog menu panel theme style color "
    "font icon image parser lexer compiler runtime loader bundler plugin adapter driver "
    "provider consumer"
)
_WORDS = _WORD_TEXT.split()
_VERB_TEXT = (
    "update check keep write read move rename split merge document describe validate "
    "refresh clean format review test measure log rotate pin bump tag sign verify"
)
_VERBS = _VERB_TEXT.split()
_TOOLS = (
    "Use pnpm for every install.",
    "Run the tests with pytest before you push.",
    "Indent with 4 spaces.",
    "Use npm to install the dependencies.",
    "Never use yarn in this repository.",
    "Format the code with prettier.",
    "Use 2 spaces for indentation.",
    "Respond in English.",
    "Line length: 100",
    "Prefer vitest over jest.",
)
_POLAR = ("Always", "Never", "Please", "You must", "Do not")


def _phrase(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def _sentence(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.08:
        return rng.choice(_TOOLS)
    if roll < 0.25:
        verb = rng.choice(_VERBS)
        return f"{rng.choice(_POLAR)} {verb} the {_phrase(rng, rng.randint(2, 5))}."
    body = _phrase(rng, rng.randint(6, 16))
    if rng.random() < 0.2:
        body += f" (`{rng.choice(_WORDS)} {rng.choice(_VERBS)}`)"
    return body[0].upper() + body[1:] + "."


def _section(rng: random.Random, number: int) -> str:
    parts = [f"## {number}. {_phrase(rng, rng.randint(1, 3)).title()}", ""]
    for _ in range(rng.randint(1, 3)):
        kind = rng.random()
        if kind < 0.45:
            parts.append(" ".join(_sentence(rng) for _ in range(rng.randint(2, 6))))
        elif kind < 0.8:
            parts.extend(f"- {_sentence(rng)}" for _ in range(rng.randint(3, 8)))
        elif kind < 0.93:
            parts.extend(f"{i}. {_sentence(rng)}" for i in range(1, rng.randint(3, 6)))
        else:
            parts.extend(["```sh", f"{rng.choice(_VERBS)} {_phrase(rng, 3)}", "```"])
        parts.append("")
    return "\n".join(parts) + "\n"


def context_prose(size: int, seed: int = 13) -> str:
    """About ``size`` characters of Markdown (it stops at the first section past ``size``)."""
    rng = random.Random(seed)
    chunks = ["# Project guide\n\n"]
    length = len(chunks[0])
    number = 1
    while length < size:
        chunk = _section(rng, number)
        chunks.append(chunk)
        length += len(chunk)
        number += 1
    return "".join(chunks)


def one_paragraph(size: int, seed: int = 13) -> str:
    """About ``size`` characters of sentences in one paragraph, wrapped at 80 columns: no
    blank line, so Markdown sees one block (the shape of a pasted or generated document)."""
    rng = random.Random(seed)
    lines: list[str] = []
    line = ""
    length = 0
    while length < size:
        for word in _sentence(rng).split(" "):
            if line and len(line) + len(word) >= 80:
                lines.append(line)
                length += len(line) + 1
                line = ""
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "\n".join(lines) + "\n"


#: A short parent file that makes choices the large file contradicts and repeats.
PARENT_RULES = (
    "# Global rules\n\n"
    "- Use npm for packages.\n"
    "- Indent with tabs.\n"
    "- Always run the tests with pytest before you push.\n"
    "- Respond in French.\n"
)
