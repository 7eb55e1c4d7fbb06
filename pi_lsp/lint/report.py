"""Diagnostics as a person or a tool reads them: text (like ruff's), JSON and SARIF 2.1.0.

Lines and columns are 1-based and counted in Unicode code points; every path is written by
:func:`pi_lsp.resources.shown_paths.shown_path` (relative to the linted root inside it, ``~/``
under the home folder, absolute elsewhere), the same in all three formats.
"""

from __future__ import annotations

import json
import os
import pathlib
import urllib.parse
from typing import Any

from pi_lsp import __version__
from pi_lsp.lint.engine import TreeLint, count_by_severity
from pi_lsp.lint.rules import RULES
from pi_lsp.resources.context_files import CONTEXT_FILE_NAMES
from pi_lsp.resources.model import SourceRange
from pi_lsp.resources.shown_paths import shown_path

SARIF_LEVEL = {"error": "error", "warning": "warning", "information": "note", "hint": "note"}


def notes(result: TreeLint, root: str, agent_dir: str) -> list[str]:
    """What the reader should know besides the diagnostics: that no context file was found."""
    if result.context_files:
        return []
    names = " / ".join(n for n in CONTEXT_FILE_NAMES if not n.endswith(".MD"))
    return [
        f"No context files found for {os.path.abspath(root)} (looked for {names} from / down "
        f"to there, in the folders below it and in the agent dir {shown_path(agent_dir, root)})"
    ]


def _position(where: SourceRange) -> dict[str, int]:
    return {
        "line": where.start_line + 1,
        "column": where.start_column + 1,
        "endLine": where.end_line + 1,
        "endColumn": where.end_column + 1,
    }


def as_text(result: TreeLint, root: str, agent_dir: str) -> str:
    diagnostics = result.diagnostics
    lines = []
    for d in diagnostics:
        where = d.finding.where
        path = shown_path(where.path, root)
        lines.append(
            f"{path}:{where.start_line + 1}:{where.start_column + 1}: {d.rule.code} "
            f"{d.finding.message} [{d.rule.name}]"
        )
        for related in d.finding.related:
            r = related.where
            lines.append(
                f"  --> {shown_path(r.path, root)}:{r.start_line + 1}:{r.start_column + 1}: "
                f"{related.message}"
            )
    counts = count_by_severity(diagnostics)
    lines.extend(notes(result, root, agent_dir))
    if not diagnostics:
        if not lines:
            lines.append("All checks passed!")
    else:
        parts = [
            f"{counts[s]} {s}" for s in ("error", "warning", "information", "hint") if s in counts
        ]
        noun = "problem" if len(diagnostics) == 1 else "problems"
        lines.append(f"Found {len(diagnostics)} {noun} ({', '.join(parts)}).")
    return "\n".join(lines) + "\n"


def as_json(result: TreeLint, root: str, agent_dir: str) -> str:
    items = []
    for d in result.diagnostics:
        where = d.finding.where
        items.append(
            {
                "path": shown_path(where.path, root),
                **_position(where),
                "severity": d.severity,
                "code": d.rule.code,
                "rule": d.rule.name,
                "message": d.finding.message,
                "related": [
                    {
                        "path": shown_path(r.where.path, root),
                        "line": r.where.start_line + 1,
                        "column": r.where.start_column + 1,
                        "message": r.message,
                    }
                    for r in d.finding.related
                ],
            }
        )
    payload = {
        "diagnostics": items,
        "contextFiles": [shown_path(path, root) for path in result.context_files],
        "notes": notes(result, root, agent_dir),
    }
    return json.dumps(payload, ensure_ascii=False, indent=2) + "\n"


def _sarif_artifact(path: str, root: str) -> dict[str, str]:
    """A file inside ``root`` relative to the ``ROOT`` base; any other as an absolute
    ``file://`` URI (a ``~/`` path is not one a SARIF viewer can resolve)."""
    inside = shown_path(path, root, home="")
    if not os.path.isabs(inside):
        return {"uri": urllib.parse.quote(inside.replace(os.sep, "/")), "uriBaseId": "ROOT"}
    return {"uri": pathlib.Path(os.path.abspath(path)).as_uri()}


def _sarif_location(where: SourceRange, root: str, message: str | None = None) -> dict[str, Any]:
    region = {
        "startLine": where.start_line + 1,
        "startColumn": where.start_column + 1,
        "endLine": where.end_line + 1,
        "endColumn": where.end_column + 1,
    }
    artifact = _sarif_artifact(where.path, root)
    out: dict[str, Any] = {"physicalLocation": {"artifactLocation": artifact, "region": region}}
    if message is not None:
        out["message"] = {"text": message}
    return out


def as_sarif(lint: TreeLint, root: str, agent_dir: str) -> str:
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.why or rule.summary},
            "help": {"text": f"{rule.why} Example: {rule.example}"},
            "defaultConfiguration": {"level": SARIF_LEVEL[rule.severity]},
        }
        for rule in RULES
    ]
    index = {rule.code: i for i, rule in enumerate(RULES)}
    results = []
    for d in lint.diagnostics:
        result: dict[str, Any] = {
            "ruleId": d.rule.code,
            "level": SARIF_LEVEL[d.severity],
            "message": {"text": d.finding.message},
            "locations": [_sarif_location(d.finding.where, root)],
        }
        if d.rule.code in index:
            result["ruleIndex"] = index[d.rule.code]
        if d.finding.related:
            result["relatedLocations"] = [
                {"id": i, **_sarif_location(r.where, root, r.message)}
                for i, r in enumerate(d.finding.related)
            ]
        results.append(result)
    sarif = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pi-lsp",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "originalUriBaseIds": {
                    "ROOT": {"uri": pathlib.Path(os.path.abspath(root)).as_uri() + "/"}
                },
                "invocations": [
                    {
                        "executionSuccessful": True,
                        "toolExecutionNotifications": [
                            {"level": "note", "message": {"text": note}}
                            for note in notes(lint, root, agent_dir)
                        ],
                    }
                ],
                "results": results,
            }
        ],
    }
    return json.dumps(sarif, ensure_ascii=False, indent=2) + "\n"
