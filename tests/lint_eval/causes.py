"""Why a labelled conflict was missed, by the stage of the lint where it was lost.

``python -m tests.lint_eval.causes --set dev`` lists each missed conflict of a set with the
stage that lost it; for the frozen set only the counts per stage are printed (no case, line
or text). The stages, first match wins:

* ``not read (later|earlier|both)``: no instruction of the lint covers the labelled block on
  that side (the sentence was not read as a rule: narrative, an example, not normative);
* ``no value (later|earlier|both)``: the instruction is read, but no catalogue value and no
  action frame was found on that side;
* ``other dimensions``: both sides make choices, but on no common dimension;
* ``same dimension, compatible``: a common dimension, but the choices do not contradict
  (same value, different ecosystem groups, both rejecting);
* ``scope declined (…)``: contradicting choices whose scopes do not overlap, with the reason;
* ``frames only``: no contradicting choices; both sides have action frames that did not meet;
* ``not reported``: contradicting choices in overlapping scopes that no finding reports.

Each miss is also marked ``candidate`` when the tier-2 judge would be asked about it (the
pair is among :func:`pi_lsp.lint.judge.chain_candidates` within the first
:data:`~pi_lsp.lint.judge.MAX_PAIRS` of its chain): the share of such misses is the most a
perfect judge could add to tier 1's recall.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence

from pi_lsp.lint.choices import contradicts
from pi_lsp.lint.conflicts import instructions_of
from pi_lsp.lint.instructions import Instruction
from pi_lsp.lint.judge import MAX_PAIRS, chain_candidates
from pi_lsp.lint.scopes import declined_reason
from tests.lint_eval.blocks import BlockIndex
from tests.lint_eval.running import lint_workspace
from tests.lint_eval.scoring import score_workspace
from tests.lint_eval.workspaces import (
    FROZEN_SETS,
    SET_FOLDERS,
    Label,
    Ref,
    Workspace,
    build_chain,
    load_set,
)


def _covering(
    instructions: Sequence[Instruction], ref: Ref, blocks: BlockIndex
) -> list[Instruction]:
    start, end = blocks.block(ref.path, ref.line)
    out = []
    for instruction in instructions:
        where = instruction.where
        if not where.path.endswith(ref.path):
            continue
        if where.start_line < end and where.end_line >= start:
            out.append(instruction)
    return out


def _side(name: str, later: bool, earlier: bool) -> str:
    if later and earlier:
        return f"{name} (both)"
    return f"{name} ({'later' if later else 'earlier'})"


def miss_cause(workspace: Workspace, label: Label) -> str:
    """The stage of the lint that lost ``label``'s conflict in ``workspace``."""
    chain = [(c.path, c.content) for c in build_chain(workspace.folder)]
    instructions: list[Instruction] = []
    for path, text in chain:
        instructions.extend(instructions_of(path, text) or ())
    blocks = BlockIndex(workspace.folder)
    later = _covering(instructions, label.first, blocks)
    earlier = _covering(instructions, label.second, blocks)
    if not later or not earlier:
        return _side("not read", not later, not earlier)

    def valued(side: list[Instruction]) -> bool:
        return any(i.choices or i.frames for i in side)

    if not valued(later) or not valued(earlier):
        return _side("no value", not valued(later), not valued(earlier))
    pairs = [(a, b) for a in later for b in earlier]
    common = False
    for a, b in pairs:
        for new in a.choices:
            for old in b.choices:
                if new.dimension != old.dimension:
                    continue
                common = True
                if contradicts(new, old):
                    reason = declined_reason(a.scope, b.scope)
                    if reason:
                        return f"scope declined ({reason})"
                    return "not reported"
    if common:
        return "same dimension, compatible"
    if any(a.choices for a in later) and any(b.choices for b in earlier):
        return "other dimensions"
    return "frames only"


def judge_would_ask(workspace: Workspace, label: Label) -> bool:
    """Whether the judge's candidates of the workspace's chain hold ``label``'s pair."""
    chain = [(c.path, c.content) for c in build_chain(workspace.folder)]
    blocks = BlockIndex(workspace.folder)
    spans = []
    for ref in (label.first, label.second):
        start, end = blocks.block(ref.path, ref.line)
        spans.append((ref.path, start, end))

    def at(instruction: Instruction, span: tuple[str, int, int]) -> bool:
        path, start, end = span
        where = instruction.where
        return where.path.endswith(path) and where.start_line < end and where.end_line >= start

    for candidate in chain_candidates(chain)[:MAX_PAIRS]:
        a, b = candidate.later, candidate.earlier
        if (at(a, spans[0]) and at(b, spans[1])) or (at(a, spans[1]) and at(b, spans[0])):
            return True
    return False


def causes(name: str) -> list[tuple[Workspace, Label, str, bool]]:
    out = []
    for workspace in load_set(name):
        score = score_workspace(workspace, lint_workspace(workspace))
        for label in score.missed:
            cause = miss_cause(workspace, label)
            out.append((workspace, label, cause, judge_would_ask(workspace, label)))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.lint_eval.causes")
    parser.add_argument("--set", choices=tuple(SET_FOLDERS), default="dev")
    opts = parser.parse_args(argv)
    found = causes(opts.set)
    counts = Counter(cause for _, _, cause, _ in found)
    asked = sum(1 for *_, candidate in found if candidate)
    print(f"{opts.set}: {len(found)} missed conflicts, {asked} of them judge candidates")
    for cause, count in counts.most_common():
        print(f"  {count:3d}  {cause}")
    if opts.set not in FROZEN_SETS:
        for workspace, label, cause, candidate in found:
            mark = " (candidate)" if candidate else ""
            where = f"{label.first} ~ {label.second} [{label.dimension}]"
            print(f"{workspace.name}: {where}: {cause}{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
