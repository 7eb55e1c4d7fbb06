"""Labelled workspaces: where the sets live, what a case's labels say, and the chain it loads.

Two label formats are read. The held-out sets (``tests/lint_heldout/dev`` and ``test``, see
``tests/lint_heldout/README.md``) label ``conflicts`` and ``overrides`` (``later`` / ``earlier``
with a ``dimension``) and ``negatives`` (``a`` / ``b``). ``tests/lint_cases`` labels only
``conflicts``; one marked ``"override": true`` is read as an override, and its pairs carry no
dimension. References are ``path:line``, the path relative to the case folder, lines 1-based.

The chain is built as Pi builds it for the folder holding the empty ``cwd`` marker: the file
Pi picks in ``agent/``, then the file Pi picks in every folder from ``project/`` down to the
marker. Folders above ``project/`` are never part of it, wherever the case lies on disk.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Any, Literal

from pi_lsp.resources.context_files import ContextFile, read_context_file

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: set name -> its folder; ``test`` is the frozen held-out set (aggregates only, never cases)
SET_FOLDERS = {
    "cases": os.path.join(TESTS, "lint_cases"),
    "dev": os.path.join(TESTS, "lint_heldout", "dev"),
    "test": os.path.join(TESTS, "lint_heldout", "test"),
}
FROZEN_SETS = frozenset({"test"})
#: what a pair of ``tests/lint_cases`` is filed under: that format names no dimension
NO_DIMENSION = "(no dimension)"

LabelKind = Literal["conflict", "override", "negative"]


@dataclass(frozen=True, slots=True, order=True)
class Ref:
    """A line of a file of a case: ``path`` relative to the case folder, ``line`` 1-based."""

    path: str
    line: int

    @classmethod
    def parse(cls, text: str) -> Ref:
        path, _, line = text.rpartition(":")
        return cls(path, int(line))

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True, slots=True)
class Label:
    """One labelled pair; for a conflict or an override ``first`` is the later side."""

    kind: LabelKind
    first: Ref
    second: Ref
    dimension: str
    why: str = ""


@dataclass(frozen=True, slots=True)
class Workspace:
    name: str
    folder: str
    description: str
    labels: tuple[Label, ...]

    def of_kind(self, kind: LabelKind) -> list[Label]:
        return [label for label in self.labels if label.kind == kind]


def _ordered_label(kind: LabelKind, item: dict[str, str], dimension: str) -> Label:
    later, earlier = Ref.parse(item["later"]), Ref.parse(item["earlier"])
    return Label(kind, later, earlier, item.get("dimension") or dimension, item.get("why", ""))


def read_labels(data: dict[str, Any]) -> tuple[Label, ...]:
    """The pairs of a ``labels.json`` in either format."""
    labels: list[Label] = []
    for item in data.get("conflicts") or []:
        kind: LabelKind = "override" if item.get("override") else "conflict"
        labels.append(_ordered_label(kind, item, NO_DIMENSION))
    for item in data.get("overrides") or []:
        labels.append(_ordered_label("override", item, NO_DIMENSION))
    for item in data.get("negatives") or []:
        a, b = Ref.parse(item["a"]), Ref.parse(item["b"])
        labels.append(Label("negative", a, b, item.get("dimension", ""), item.get("why", "")))
    return tuple(labels)


def load_workspace(folder: str) -> Workspace:
    folder = os.path.realpath(folder)
    with open(os.path.join(folder, "labels.json"), encoding="utf-8") as handle:
        data = json.load(handle)
    return Workspace(
        os.path.basename(folder), folder, str(data.get("description", "")), read_labels(data)
    )


def case_folders(set_folder: str) -> list[str]:
    """The case folders of a set, by name."""
    return [
        os.path.join(set_folder, name)
        for name in sorted(os.listdir(set_folder))
        if os.path.isfile(os.path.join(set_folder, name, "labels.json"))
    ]


def load_set(name_or_folder: str) -> list[Workspace]:
    folder = SET_FOLDERS.get(name_or_folder, name_or_folder)
    return [load_workspace(case) for case in case_folders(folder)]


def working_directory(case: str) -> str:
    """The folder of ``case`` that holds the ``cwd`` marker."""
    for directory, dirs, files in os.walk(case):
        dirs.sort()
        if "cwd" in files:
            return directory
    raise AssertionError(f"{case} has no cwd marker")


def build_chain(case: str) -> list[ContextFile]:
    """The context files the working directory of ``case`` loads, in prompt order."""
    chain: list[ContextFile] = []
    agent = os.path.join(case, "agent")
    if os.path.isdir(agent):
        found, _ = read_context_file(agent, "global")
        if found is not None:
            chain.append(found)
    project = os.path.join(case, "project")
    relative = os.path.relpath(working_directory(case), project)
    directory = project
    for part in ["", *([] if relative == "." else relative.split(os.sep))]:
        directory = os.path.join(directory, part) if part else directory
        found, _ = read_context_file(directory)
        if found is not None:
            chain.append(found)
    return chain


def quoted_line(case: str, ref: Ref) -> str:
    """The text of a referenced line, stripped (empty when the line is not there)."""
    try:
        with open(os.path.join(case, ref.path), encoding="utf-8") as handle:
            lines = handle.read().split("\n")
    except OSError:
        return ""
    return lines[ref.line - 1].strip() if 0 < ref.line <= len(lines) else ""
