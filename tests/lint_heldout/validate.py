#!/usr/bin/env python3
"""Check the held-out lint sets: markers, labels, load chains, and test/SHA256SUMS.

usage: python3 tests/lint_heldout/validate.py [--stats]
"""

import collections
import hashlib
import json
import os
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))


def chain(case, cwd):
    """Files Pi loads for cwd: the global file, then AGENTS.md (else CLAUDE.md) downwards."""
    out = ["agent/AGENTS.md"] if os.path.isfile(os.path.join(case, "agent/AGENTS.md")) else []
    parts = cwd.split("/")
    for i in range(1, len(parts) + 1):
        for name in ("AGENTS.md", "CLAUDE.md"):
            rel = "/".join([*parts[:i], name])
            if os.path.isfile(os.path.join(case, rel)):
                out.append(rel)
                break
    return out


def check_case(case, errs):
    name = os.path.relpath(case, HERE)
    marks = [os.path.relpath(r, case) for r, _, fs in os.walk(case) if "cwd" in fs]
    if len(marks) != 1 or not marks[0].startswith("project"):
        errs.append(f"{name}: want exactly one cwd marker under project/, found {marks}")
        return None
    ch = chain(case, marks[0])
    labels = json.loads(Path(case, "labels.json").read_text(encoding="utf-8"))
    if not labels.get("description"):
        errs.append(f"{name}: no description")

    def where(ref):
        rel, _, line = ref.rpartition(":")
        path = os.path.join(case, rel)
        if not os.path.isfile(path):
            errs.append(f"{name}: {ref}: no such file")
            return None
        lines = Path(path).read_text(encoding="utf-8").split("\n")
        n = int(line)
        if not 1 <= n <= len(lines) or not lines[n - 1].strip():
            errs.append(f"{name}: {ref}: line out of range or blank")
            return None
        if rel not in ch:
            errs.append(f"{name}: {ref}: not on the chain {ch}")
            return None
        return ch.index(rel), n

    for kind in ("conflicts", "overrides"):
        for item in labels.get(kind, []):
            a, b = where(item["later"]), where(item["earlier"])
            if a and b and not a > b:
                errs.append(f"{name}: {kind}: {item['later']} is not later than {item['earlier']}")
            if not item.get("dimension") or not item.get("why"):
                errs.append(f"{name}: {kind}: missing dimension or why")
    for item in labels.get("negatives", []):
        where(item["a"])
        where(item["b"])
        if not item.get("why"):
            errs.append(f"{name}: negative without why")
    return labels


def check_sums(root, errs):
    sums = os.path.join(root, "SHA256SUMS")
    if not os.path.isfile(sums):
        errs.append("test/SHA256SUMS missing")
        return
    want = {}
    for line in Path(sums).read_text(encoding="utf-8").splitlines(keepends=True):
        digest, _, rel = line.rstrip("\n").partition("  ")
        want[rel] = digest
    have = {}
    for r, _, fs in os.walk(root):
        for f in fs:
            rel = os.path.relpath(os.path.join(r, f), root)
            if rel != "SHA256SUMS":
                have[rel] = hashlib.sha256(Path(r, f).read_bytes()).hexdigest()
    if sorted(want) != list(want):
        errs.append("test/SHA256SUMS is not sorted by path")
    for rel in sorted(set(want) | set(have)):
        if want.get(rel) != have.get(rel):
            errs.append(f"test/SHA256SUMS mismatch: {rel}")


def main():
    errs, stats = [], {}
    for s in ("test", "dev", "fresh"):
        root = os.path.join(HERE, s)
        if not os.path.isdir(root):
            continue
        st = stats[s] = collections.Counter()
        dims = stats[s + "/dims"] = collections.Counter()
        for c in sorted(os.listdir(root)):
            case = os.path.join(root, c)
            if not os.path.isdir(case):
                continue
            labels = check_case(case, errs)
            if labels is None:
                continue
            st["workspaces"] += 1
            st["with conflicts" if labels["conflicts"] else "without conflicts"] += 1
            for k in ("conflicts", "overrides", "negatives"):
                st[k] += len(labels.get(k, []))
            for k in ("conflicts", "overrides"):
                for item in labels.get(k, []):
                    dims[item["dimension"], k] += 1
        if s == "test":
            check_sums(root, errs)
    for e in errs:
        print("ERROR", e)
    for s in ("test", "dev", "fresh"):
        if s in stats:
            print(s, dict(stats[s]))
    if "--stats" in sys.argv:
        for s in ("test", "dev", "fresh"):
            dims = stats.get(s + "/dims", {})
            for d in sorted({d for d, _ in dims}):
                print(f"  {s}\t{dims[d, 'conflicts']}\t{dims[d, 'overrides']}\t{d}")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
