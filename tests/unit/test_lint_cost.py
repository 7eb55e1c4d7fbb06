"""The instruction checks cost in proportion to the text: four times the text, about four
times the work, never sixteen.

Each test compares the CPU time per unit of text between a small input and one four times
larger, with a margin that a loaded 2-core machine keeps: linear work gives a ratio near 1;
the quadratic code this guards against gave 3.6 to 4.4 at these sizes. Each size is timed a
few times and the fastest run counts (CPU time of this process, so that waiting for a core
does not count).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence

from pi_lsp.lint.conflicts import find_conflicts

MARGIN = 2.2
_paths = itertools.count()


def _fastest(chain: Sequence[tuple[str, str]], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        find_conflicts(chain)
        best = min(best, time.process_time() - start)
    return best


def _paragraph(sentences: int) -> str:
    short = ("Run it.", "Check the log.", "Fix the failing test.", "Then push the branch.")
    return " ".join(short[i % len(short)] for i in range(sentences)) + "\n"


def _reading(text: str) -> float:
    """CPU time to read ``text`` for instructions and check them (a new path: no cache)."""
    return _fastest([(f"/r{next(_paths)}/AGENTS.md", text)], repeat=1)


def test_one_long_paragraph_is_read_in_proportion_to_its_length() -> None:
    small, large = _paragraph(600), _paragraph(2400)
    _reading(small)  # warm: patterns compiled
    per_char_small = min(_reading(small) for _ in range(3)) / len(small)
    per_char_large = min(_reading(large) for _ in range(3)) / len(large)
    ratio = per_char_large / per_char_small
    assert ratio < MARGIN, f"per-character cost grew {ratio:.1f}x for 4x the paragraph"


def _repeated_rules(copies: int) -> str:
    rules = (
        "- Use pnpm for installs.\n"
        "- Always run the unit tests first.\n"
        "- Never push to the main branch.\n"
    )
    return rules * copies


def test_comparing_instructions_grows_with_their_number() -> None:
    """Instructions are parsed once per file text, so a second check of the same chain
    costs only the comparisons: each instruction against what came before it."""
    chains = [
        [("/g/AGENTS.md", "- Use npm.\n"), ("/r/AGENTS.md", _repeated_rules(copies))]
        for copies in (200, 800)
    ]
    found = [len(find_conflicts(chain)) for chain in chains]  # parsed, and cached
    # every "use pnpm" is compared with the parent's npm; the file repeats one contradiction,
    # reported at its first mention
    assert found == [1, 1]
    per_rule = [_fastest(chain) / copies for chain, copies in zip(chains, (200, 800), strict=True)]
    ratio = per_rule[1] / per_rule[0]
    assert ratio < MARGIN, f"per-instruction cost grew {ratio:.1f}x for 4x the instructions"
