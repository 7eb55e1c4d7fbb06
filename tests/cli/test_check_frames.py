"""``pi-lsp check`` on always/never paraphrased differently in two context files: one finding
that names the earlier file and quotes both sides; a near miss stays silent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PI_LSP = Path(sys.executable).parent / "pi-lsp"


def _check(tmp: Path, root: str, package: str) -> list[dict[str, Any]]:
    (tmp / "home").mkdir()
    (tmp / "agent").mkdir()
    ws = tmp / "ws"
    (ws / "services" / "billing").mkdir(parents=True)
    (ws / "AGENTS.md").write_text(root)
    (ws / "services" / "billing" / "AGENTS.md").write_text(package)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PI_")}
    env.update(HOME=str(tmp / "home"), PI_CODING_AGENT_DIR=str(tmp / "agent"))
    proc = subprocess.run(
        [str(PI_LSP), "check", "--format", "json"],
        cwd=ws / "services" / "billing",
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.stdout, proc.stderr
    found: list[dict[str, Any]] = json.loads(proc.stdout)["diagnostics"]
    return [d for d in found if d["rule"] == "conflicting-instructions"]


ROOT = """# Ledgerline

## Testing

- Avoid mocking the database in tests: they run against a real Postgres.
- Never commit directly to `main`.
"""


def test_paraphrased_always_and_never_are_one_finding_quoting_both(tmp_path: Path) -> None:
    package = "# billing\n\nTests should mock the DB so the suite runs offline.\n"
    (finding,) = _check(tmp_path, ROOT, package)
    assert finding["path"] == "AGENTS.md" and finding["line"] == 3
    assert finding["severity"] == "warning"
    message = finding["message"]
    assert "../../AGENTS.md" in message
    assert "\u201cTests should mock the DB so the suite runs offline.\u201d here" in message
    assert "Avoid mocking the database in tests" in message
    (related,) = finding["related"]
    assert related["path"].endswith("ws/AGENTS.md") and related["line"] == 5


def test_a_rule_for_another_branch_is_not_reported(tmp_path: Path) -> None:
    package = (
        "# billing\n\n- Always push your commits to your feature branch.\n"
        "- If the suite is slow, mock the database.\n"
    )
    assert _check(tmp_path, ROOT, package) == []


AGENT_ROOT = """# Larkspur

## Git and dependencies

Pushing is off-limits: a maintainer pushes after review.

- Adding a dependency requires sign-off from the platform team.
- Never push to `main`.
"""


def test_a_permission_against_a_prohibition_in_other_words_is_one_finding_per_permission(
    tmp_path: Path,
) -> None:
    package = (
        "# billing\n\n"
        "- The agent is allowed to push to origin.\n"
        "- You may push to your own feature branches.\n"
        "- Ask before installing new packages.\n"
    )
    # pushing is off-limits as a whole, so a permission to push to some branches breaks it too
    # (against "Never push to `main`" alone it would be a near miss)
    finding, branches = _check(tmp_path, AGENT_ROOT, package)
    assert (branches["line"], branches["related"][0]["line"]) == (4, 5)
    assert finding["path"] == "AGENTS.md" and finding["line"] == 3
    message = finding["message"]
    assert "\u201cThe agent is allowed to push to origin.\u201d here (allowed)" in message
    assert "Pushing is off-limits: a maintainer pushes after review." in message
    assert "(never)" in message
    (related,) = finding["related"]
    assert related["path"].endswith("ws/AGENTS.md") and related["line"] == 5


def test_a_gate_against_a_free_permission_is_one_finding(tmp_path: Path) -> None:
    package = "# billing\n\nFeel free to add dependencies you need; nobody reviews this folder.\n"
    (finding,) = _check(tmp_path, AGENT_ROOT, package)
    assert finding["line"] == 3
    assert "(only with approval)" in finding["message"]
    assert finding["related"][0]["line"] == 7
