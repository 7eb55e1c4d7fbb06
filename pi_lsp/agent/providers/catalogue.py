"""The model ids Pi knows for each built-in provider pi-lsp can reach, without a models.json.

``builtin_model_ids.json`` lists, per provider of
:data:`~pi_lsp.agent.providers.config.BUILTIN_PROVIDERS`, the ids of Pi 0.85.0's built-in
model catalogue (the ``MODELS`` table of ``@earendil-works/pi-ai``), in Pi's order. pi-lsp uses
them only to tell which provider a bare ``--model`` id belongs to, as Pi does; a built-in
provider still accepts any id given with ``--provider`` or ``provider/id``.

The file is generated, never edited by hand::

    npm install --prefix DIR @earendil-works/pi-ai@0.85.0
    .venv/bin/python scripts/generate_model_catalogue.py --pi-home DIR

(``--pi-home`` defaults to ``$PI_ORACLE_HOME`` or ``~/.cache/pi-oracle``). The script insists
on pi-ai 0.85.0 itself: Pi's ``pi`` command carries the pi-ai of its own version, while the
pi-ai npm installs beside it may be a later release with other models (the oracle's is 0.85.1).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources

__all__ = ["builtin_model_ids"]

_DATA = "builtin_model_ids.json"


@cache
def builtin_model_ids() -> Mapping[str, Sequence[str]]:
    """Provider name → the ids Pi's catalogue lists for it."""
    text = resources.files(__package__).joinpath(_DATA).read_text(encoding="utf-8")
    providers = json.loads(text)["providers"]
    return {name: tuple(ids) for name, ids in providers.items()}
