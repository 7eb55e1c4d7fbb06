"""Run the instruction conflict check over the real-world corpus and print what it reports.

For every folder of ``/work/shared/corpus/repos/OWNER__NAME`` that holds a context file (the
one Pi picks: ``AGENTS.override.md`` … ``CLAUDE.MD``), the chain is that repository's context
files from its root down to the folder, in prompt order. Every conflict found is printed once
(``path:line: rule: message``, then the earlier location), followed by the counts.

    .venv/bin/python bench/lint_corpus.py [CORPUS_REPOS_DIR] [--duplicates]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from pi_lsp.lint.conflicts import CONFLICT, CONFLICT_IN_FILE, DUPLICATE, find_conflicts
from pi_lsp.resources.context_files import ContextFile, read_context_file
from pi_lsp.resources.model import Finding

DEFAULT_REPOS = "/work/shared/corpus/repos"
_SKIP_DIRS = {".git", "node_modules"}


def _folders_with_context(repo: str) -> list[str]:
    out: list[str] = []
    for directory, dirs, _files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        found, _ = read_context_file(directory)
        if found is not None:
            out.append(directory)
    return out


def _chain(repo: str, folder: str) -> list[ContextFile]:
    relative = os.path.relpath(folder, repo)
    parts = [] if relative == "." else relative.split(os.sep)
    chain: list[ContextFile] = []
    directory = repo
    for part in ["", *parts]:
        directory = os.path.join(directory, part) if part else directory
        found, _ = read_context_file(directory)
        if found is not None:
            chain.append(found)
    return chain


def _show(finding: Finding, root: str) -> str:
    where = finding.where
    line = f"{os.path.relpath(where.path, root)}:{where.start_line + 1}: {finding.rule} "
    line += f"[{finding.severity}] {finding.message}"
    for related in finding.related:
        line += f"\n    earlier: {os.path.relpath(related.where.path, root)}"
        line += f":{related.where.start_line + 1}"
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repos", nargs="?", default=DEFAULT_REPOS)
    parser.add_argument("--duplicates", action="store_true", help="also print duplicates")
    args = parser.parse_args(argv)
    root: str = args.repos
    if not os.path.isdir(root):
        print(f"no corpus at {root}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    files: set[str] = set()
    chains = 0
    seen: set[tuple[str, int, int, str, str]] = set()
    conflicts: list[Finding] = []
    duplicates: list[Finding] = []
    for name in sorted(os.listdir(root)):
        repo = os.path.join(root, name)
        if not os.path.isdir(repo):
            continue
        for folder in _folders_with_context(repo):
            chain = _chain(repo, folder)
            chains += 1
            files.update(os.path.realpath(f.path) for f in chain)
            for finding in find_conflicts([(f.path, f.content) for f in chain]):
                related = finding.related[0].where if finding.related else finding.where
                key = (
                    finding.where.path,
                    finding.where.start_line,
                    related.start_line,
                    related.path,
                    finding.rule,
                )
                if key in seen:
                    continue
                seen.add(key)
                if finding.rule in (CONFLICT, CONFLICT_IN_FILE):
                    conflicts.append(finding)
                elif finding.rule == DUPLICATE:
                    duplicates.append(finding)
    elapsed = time.perf_counter() - started
    for finding in conflicts:
        print(_show(finding, root))
    if args.duplicates:
        for finding in duplicates:
            print(_show(finding, root))
    warnings = sum(1 for f in conflicts if f.severity == "warning")
    print()
    print(f"real context files scanned: {len(files)} (chains: {chains})")
    print(
        f"conflicts reported: {len(conflicts)} ({warnings} warning, "
        f"{len(conflicts) - warnings} information)"
    )
    print(f"duplicate instructions reported: {len(duplicates)}")
    print(f"time: {elapsed:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
