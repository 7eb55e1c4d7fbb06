#!/usr/bin/env python3
"""Speed of ``@`` completion (``pi/complete/files``) on a large tree; run by hand.

    .venv/bin/python bench/mentions_bench.py [--files 100000] [--root DIR]

Makes a tree of ``--files`` empty files (1,000 folders of 100, in 10 groups) unless ``--root``
names one, then times, in process, the first query (the walk included: fd's view of the tree,
ignore files read) and the later ones, which the server answers from the list it keeps
(:class:`pi_lsp.server.file_index.FileIndex`). Each query asks for the best 50.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from pi_lsp.server.file_index import FileIndex  # noqa: E402

QUERIES = ("", "f", "main", "mod57/file9", "m5f3p", "file_42_part.py", "zzz")


def make_tree(root: Path, files: int) -> None:
    per_folder = 100
    for index in range(files):
        folder = root / f"pkg{index // (per_folder * 100)}" / f"mod{index // per_folder}"
        if index % per_folder == 0:
            folder.mkdir(parents=True, exist_ok=True)
        (folder / f"file_{index % per_folder}_part.py").touch()


async def measure(root: Path) -> None:
    index = FileIndex(str(root))
    start = time.perf_counter()
    await index.search("main", 50)
    first = time.perf_counter() - start
    print(f"{len(index.entries or ())} entries; first query (walk + match): {first:.2f} s")
    for query in QUERIES:
        start = time.perf_counter()
        found = await index.search(query, 50)
        took = time.perf_counter() - start
        best = found[0].path if found else "-"
        print(f"  {query!r:20} {took * 1000:7.1f} ms  {len(found):3} shown, best {best}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--root", type=Path, default=None)
    args = parser.parse_args()
    if args.root is not None:
        asyncio.run(measure(args.root))
        return
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        make_tree(root, args.files)
        asyncio.run(measure(root))


if __name__ == "__main__":
    main()
