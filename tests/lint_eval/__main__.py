"""``python -m tests.lint_eval``: score the conflict lint on the labelled sets.

python -m tests.lint_eval [--set dev|test|cases|all] [--json | --markdown] [--corpus]
python -m tests.lint_eval --write-doc      # docs/lint-evaluation.md, every set + corpus
python -m tests.lint_eval --write-floors   # tests/lint_heldout/floors.json from dev, test
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import sys

from tests.lint_eval.causes import causes
from tests.lint_eval.corpus import CorpusFinding, judged_corpus_findings
from tests.lint_eval.evaluation import SET_NAMES, SetEvaluation, evaluate_set
from tests.lint_eval.floors import FLOOR_SETS, FLOORS, write_floors
from tests.lint_eval.report import REPO, as_json, render_markdown, render_text
from tests.shared_data import CORPUS, SHARED_MISSING, SHARED_PRESENT

DOC = os.path.join(REPO, "docs", "lint-evaluation.md")
CORPUS_REPOS = str(CORPUS / "repos")


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m tests.lint_eval", description=__doc__)
    parser.add_argument("--set", choices=(*SET_NAMES, "all"), default="all")
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--json", action="store_true", help="print JSON")
    shown.add_argument("--markdown", action="store_true", help="print the doc's Markdown")
    parser.add_argument("--corpus", action="store_true", help="also lint the shared corpus")
    parser.add_argument("--write-doc", action="store_true", help=f"write {DOC} (every set)")
    parser.add_argument("--write-floors", action="store_true", help=f"write {FLOORS}")
    return parser.parse_args(argv)


def _corpus(wanted: bool) -> list[CorpusFinding] | None:
    if not wanted:
        return None
    if not SHARED_PRESENT:
        print(f"corpus skipped: {SHARED_MISSING}", file=sys.stderr)
        return None
    return judged_corpus_findings(CORPUS_REPOS)


def main(argv: list[str] | None = None) -> int:
    opts = _arguments(argv)
    everything = opts.write_doc or opts.set == "all"
    names = SET_NAMES if everything else (opts.set,)
    if opts.write_floors:
        names = tuple(dict.fromkeys((*names, *FLOOR_SETS)))
    evaluations: list[SetEvaluation] = [evaluate_set(name) for name in names]
    corpus = _corpus(opts.corpus or opts.write_doc)
    today = datetime.date.today().isoformat()
    if opts.write_doc:
        stages = {name: [(cause, asked) for _, _, cause, asked in causes(name)] for name in names}
        with open(DOC, "w", encoding="utf-8") as handle:
            handle.write(render_markdown(evaluations, today, corpus, _shown(CORPUS_REPOS), stages))
        print(f"wrote {os.path.relpath(DOC)}")
    if opts.write_floors:
        write_floors(evaluations, today)
        print(f"wrote {os.path.relpath(FLOORS)}")
    if opts.write_doc or opts.write_floors:
        return 0
    if opts.json:
        print(json.dumps(as_json(evaluations, corpus), indent=2))
    elif opts.markdown:
        print(render_markdown(evaluations, today, corpus, _shown(CORPUS_REPOS)), end="")
    else:
        print(render_text(evaluations), end="")
    return 0


def _shown(path: str) -> str:
    """The corpus folder as the repository's docs name it (beside the repository: ``../``)."""
    relative = os.path.relpath(path, REPO)
    return relative if relative.startswith("..") else path


if __name__ == "__main__":
    sys.exit(main())
