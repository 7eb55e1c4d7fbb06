"""Pairs of instructions that tier 1 declined to judge, for the model judge (tier 2).

Tier 1 (:mod:`pi_lsp.lint.conflicts`) reports only what its words settle. Two kinds of pair
are left over that a reader might still call a conflict:

* ``dimension``: both sentences name values of one dimension (npm and pnpm, tabs and spaces)
  that differ, but at least one side makes no choice tier 1 can read: it describes ("the docs
  site builds with npm"), or it is scoped ("for the docs, use npm");
* ``polarity``: one sentence says never, the other always (or is a plain imperative), and
  their actions share at least two content words without being the same action;
* ``topic``: a sentence of a later file and the sentence of an earlier file that shares the
  most word stems with it (at least two; a shared heading word counts as one): the two files
  speak of one thing, perhaps with a choice no vocabulary knows ("validate all input with
  zod" / "use yup schemas for form validation"). This is how the new sentences of a changed
  file meet the rest of the chain.

On the development set (tests/lint_heldout/dev, 40 workspaces) the three find 24 of the 31
labelled conflicts tier 1 misses, with 45 pairs in all; over the 50 repositories of the real
corpus, about 40 distinct pairs per repository.

:func:`candidate_pairs` finds all three over the instructions of one chain, in prompt order. Other
producers (a scope reader, a frame matcher) can add their own :class:`Candidate` lists; the
judge takes any list of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pi_lsp.lint.instructions import Instruction
from pi_lsp.lint.stems import lemma
from pi_lsp.lint.vocabulary import current

__all__ = ["Candidate", "candidate_pairs", "mentions"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """Two instructions of one chain the model is asked about; ``earlier`` comes first in the
    prompt. ``reason`` says why the pair was chosen (``dimension:<name>``, ``polarity``…)."""

    earlier: Instruction
    later: Instruction
    reason: str


_WORD = re.compile(r"[a-z][a-z0-9_+.-]*+")
#: words that carry no action: polarity, modals, articles, pronouns, common glue
_FILLER_WORDS = (
    "a an the and or but if of to in on for with by at as from into onto that this these those "
    "it its is are be been being was were do does did done not no never always must should "
    "shall may might can could will would you your we our us they their them i me my please "
    "make sure ensure avoid use using used any all every each some other than then there here "
    "when while before after also only just very more most less least own same such so too "
    "don't doesn't mustn't shouldn't can't won't isn't aren't"
)
_FILLER = frozenset(_FILLER_WORDS.split())
_MIN_SHARED_WORDS = 2
#: a stem in more earlier sentences than this is too common to pair sentences on
_COMMON_STEM = 40
_TOPIC_PER_SENTENCE = 1
#: candidates one later sentence may bring from each kind of pair, and the sentences kept per
#: dimension to pair with: the pairs stay linear in the sentences of a chain, whatever it
#: repeats (the judge asks about at most 40 a run anyway)
_PER_LATER = 3
_PER_INDEX = 64
#: stems two sentences of a topic pair share at least (a shared heading word counts one)
_TOPIC_MIN = 2


def mentions(text: str) -> dict[str, set[tuple[str, str]]]:
    """``dimension -> {(value, group)}`` for every value of the vocabulary ``text`` (lowercase
    plain text) names, whatever the sentence does with it."""
    found: dict[str, set[tuple[str, str]]] = {}
    for hit in current().find(text):
        found.setdefault(hit.dimension.name, set()).add((hit.value, hit.group))
    return found


def _content_words(action: str) -> frozenset[str]:
    return frozenset(
        w.strip(".-") for w in _WORD.findall(action) if w not in _FILLER and len(w) > 1
    )


def _chose(instruction: Instruction, dimension: str) -> bool:
    return any(c.dimension == dimension for c in instruction.choices)


def _differ(a: set[tuple[str, str]], b: set[tuple[str, str]]) -> bool:
    """One side names a value the other does not, and the other a value the first does not,
    in one group: the two sentences could be choosing differently."""
    only_a = a - b
    only_b = b - a
    return any(ga == gb for _, ga in only_a for _, gb in only_b)


def _dimension_pairs(instructions: Sequence[Instruction]) -> Iterable[Candidate]:
    named = [(i, mentions(i.normalized)) for i in instructions]
    #: dimension -> the first sentences that name one of its values (at most _PER_INDEX)
    by_dimension: dict[str, list[int]] = {}
    for later_at, (later, later_named) in enumerate(named):
        paired: set[int] = set()
        for dimension, values in later_named.items():
            for earlier_at in by_dimension.get(dimension, ()):
                if earlier_at in paired or len(paired) >= _PER_LATER:
                    continue
                earlier, earlier_named = named[earlier_at]
                if not _differ(values, earlier_named[dimension]):
                    continue
                if _chose(later, dimension) and _chose(earlier, dimension):
                    continue  # tier 1 read both choices and settled it
                if not (later.directive or earlier.directive):
                    continue  # two descriptions: nothing is asked of the agent
                paired.add(earlier_at)
                yield Candidate(earlier, later, f"dimension:{dimension}")
        for dimension in later_named:
            known = by_dimension.setdefault(dimension, [])
            if len(known) < _PER_INDEX:
                known.append(later_at)


def _first_word(action: str) -> str:
    return action.split(" ", 1)[0]


def _polarity_pairs(instructions: Sequence[Instruction]) -> Iterable[Candidate]:
    """A never-sentence against an earlier or later sentence that does the same kind of thing:
    an always, an imperative, or a sentence opening with the never-sentence's verb ("Commit
    the generated files" against "never commit generated files")."""

    def doing(i: Instruction, never: Instruction) -> bool:
        if i.polarity == "never":
            return False
        return (
            i.polarity == "always"
            or i.directive
            or _first_word(i.action) == _first_word(never.action)
        )

    words = [_content_words(i.action) for i in instructions]
    #: content word -> positions of the instructions whose action holds it
    by_word: dict[str, list[int]] = {}
    for later_at, later in enumerate(instructions):
        shared: dict[int, int] = {}
        for word in words[later_at]:
            known = by_word.setdefault(word, [])
            if len(known) > _COMMON_STEM:
                continue  # a word in that many sentences pairs nothing in particular
            for earlier_at in known:
                shared[earlier_at] = shared.get(earlier_at, 0) + 1
            known.append(later_at)
        yielded = 0
        for earlier_at in sorted(shared):
            if shared[earlier_at] < _MIN_SHARED_WORDS or yielded >= _PER_LATER:
                continue
            earlier = instructions[earlier_at]
            if earlier.action == later.action:
                continue  # the same action is tier 1's to report
            if (later.polarity == "never" and doing(earlier, later)) or (
                earlier.polarity == "never" and doing(later, earlier)
            ):
                yielded += 1
                yield Candidate(earlier, later, "polarity")


def _stems(text: str) -> frozenset[str]:
    """The stems of the content words (:func:`~pi_lsp.lint.frames.lemma`, the stemmer the
    action frames use), so "validate" meets "validation" and "bundles" meets "bundle"."""
    return frozenset(lemma(w) for w in _content_words(text))


def _topic_pairs(instructions: Sequence[Instruction]) -> Iterable[Candidate]:
    """A sentence of a later file against the sentences of earlier files that share the most
    stems with it (at least :data:`_TOPIC_MIN`, a shared heading word counting as one), at
    most :data:`_TOPIC_PER_SENTENCE` each."""
    stems = [_stems(i.action) for i in instructions]
    headings = [_stems(" ".join(i.heading[1:] or i.heading)) for i in instructions]
    by_stem: dict[str, list[int]] = {}
    for later_at, later in enumerate(instructions):
        if not stems[later_at]:
            continue
        score: dict[int, int] = {}
        for stem in stems[later_at]:
            posting = by_stem.get(stem, ())
            if len(posting) > _COMMON_STEM:
                continue  # a word most sentences share says nothing about the topic
            for earlier_at in posting:
                if instructions[earlier_at].path != later.path:
                    score[earlier_at] = score.get(earlier_at, 0) + 1
        for earlier_at in list(score):
            if headings[earlier_at] & headings[later_at]:
                score[earlier_at] += 1
        best = sorted(
            (at for at, points in score.items() if points >= _TOPIC_MIN),
            key=lambda at: (-score[at], at),
        )
        for earlier_at in best[:_TOPIC_PER_SENTENCE]:
            yield Candidate(instructions[earlier_at], later, f"topic:{score[earlier_at]}")
        for stem in stems[later_at]:
            by_stem.setdefault(stem, []).append(later_at)


def _priority(candidate: Candidate) -> tuple[int, int, int]:
    kind, _, points = candidate.reason.partition(":")
    topic = kind == "topic"
    shared = int(points) if topic else 0
    return (int(topic), int(candidate.earlier.path == candidate.later.path), -shared)


def candidate_pairs(
    instructions: Sequence[Instruction],
    settled: frozenset[tuple[object, object]] = frozenset(),
    first: Sequence[Candidate] = (),
) -> list[Candidate]:
    """The candidate pairs among ``instructions`` (one chain, prompt order), pairs of two files
    first; ``settled`` holds ``(later.where, earlier.where)`` pairs tier 1 already reported;
    ``first`` are pairs another producer found (the scoped pairs of
    :func:`pi_lsp.lint.conflicts.scoped_pairs`), kept ahead of this module's own."""
    seen: set[tuple[object, object]] = set(settled)
    out: list[Candidate] = []
    found = (
        *first,
        *_dimension_pairs(instructions),
        *_polarity_pairs(instructions),
        *_topic_pairs(instructions),
    )
    for candidate in found:
        key = (candidate.later.where, candidate.earlier.where)
        if key in seen:
            continue
        seen.add(key)
        out.append(candidate)
    # dimension and polarity pairs before topic pairs, pairs of two files first, then the
    # topic pairs that share the most (a stable sort keeps prompt order among equals)
    out.sort(key=_priority)
    return out
