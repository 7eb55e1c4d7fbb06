"""``pi-lsp chat --list-models [SEARCH] [--all]``: the models a user can choose, as Pi lists them.

Without ``--all`` the table is Pi 0.85's ``pi --list-models``: the models whose provider has a
key (built-in catalogue and models.json), sorted by provider then id, with the columns
provider, model, context, max-out, thinking and images, or Pi's lines when nothing is available
or nothing matches. ``--all`` lists every model Pi knows and adds a ``key`` column: where the
provider's key comes from (``$VAR``, ``auth.json``, ``models.json``), ``none`` (with the
variables that would hold it), or ``cannot reach yet (<api>)`` for a model pi-lsp cannot talk
to (choosing one says why).

SEARCH keeps the models whose ``provider id`` holds every word of it (split at spaces and
slashes) as a subsequence, ignoring case; a word of letters then digits also matches with the
two swapped ("gpt5" finds "5-gpt"), as Pi's fuzzy filter does. The order is always provider,
then id.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from pi_lsp.agent.providers.catalogue import builtin_providers
from pi_lsp.agent.providers.config import (
    ListedModel,
    ModelsConfig,
    catalogue_listing,
    provider_key_source,
)

__all__ = ["format_token_count", "list_models", "matches_search"]

_SEARCH_WORDS = re.compile(r"[\s/]+")
_COLUMNS = ("provider", "model", "context", "max-out", "thinking", "images")
NO_MODELS = (
    "No models available. Set an API key for a provider (pi-lsp chat --list-models --all "
    "shows each provider's variable) or add one to models.json."
)


def format_token_count(count: int) -> str:
    """200000 → ``200K``, 1000000 → ``1M``, 1048576 → ``1.0M``, as Pi prints windows."""
    for size, unit in ((1_000_000, "M"), (1_000, "K")):
        if count >= size:
            whole, rest = divmod(count, size)
            return f"{whole}{unit}" if rest == 0 else f"{count / size:.1f}{unit}"
    return str(count)


def _is_subsequence(word: str, text: str) -> bool:
    position = 0
    for char in word:
        position = text.find(char, position)
        if position < 0:
            return False
        position += 1
    return True


def _swapped(word: str) -> str | None:
    """``gpt5`` → ``5gpt`` and ``5gpt`` → ``gpt5``: a word of ASCII letters then digits (or
    digits then letters) with its two runs swapped; ``None`` for any other word."""
    for first, second in ((str.isalpha, str.isdigit), (str.isdigit, str.isalpha)):
        cut = 0
        while cut < len(word) and word[cut].isascii() and first(word[cut]):
            cut += 1
        rest = word[cut:]
        if 0 < cut < len(word) and rest.isascii() and second(rest):
            return rest + word[:cut]
    return None


def _matches_word(word: str, text: str) -> bool:
    if _is_subsequence(word, text):
        return True
    swapped = _swapped(word)
    return swapped is not None and _is_subsequence(swapped, text)


def matches_search(search: str, provider: str, model_id: str) -> bool:
    """``search`` finds ``provider/model_id`` (every word a subsequence of ``provider id``)."""
    text = f"{provider} {model_id}".lower()
    words = [w for w in _SEARCH_WORDS.split(search.strip().lower()) if w]
    return all(_matches_word(word, text) for word in words)


def _key_column(model: ListedModel, source: str | None) -> str:
    if model.unreachable is not None:
        return f"cannot reach yet ({model.api})"
    if source is not None:
        return source
    builtin = builtin_providers().get(model.provider)
    variables = builtin.key_variables if builtin is not None else ()
    return "none" + (f" (set ${' or $'.join(variables)})" if variables else "")


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in rows
    ]


def list_models(
    config: ModelsConfig,
    search: str | None,
    *,
    every: bool,
    agent_dir: str | None,
) -> list[str]:
    """The lines ``pi-lsp chat --list-models`` prints."""
    sources: dict[str, str | None] = {}

    def source_of(provider: str) -> str | None:
        if provider not in sources:
            sources[provider] = provider_key_source(config, provider, agent_dir)
        return sources[provider]

    models = catalogue_listing(config)
    if not every:
        models = [m for m in models if source_of(m.provider) is not None]
        if not models:
            return [NO_MODELS]
    if search:
        models = [m for m in models if matches_search(search, m.provider, m.id)]
        if not models:
            return [f'No models matching "{search}"']
    models.sort(key=lambda m: (m.provider.casefold(), m.provider, m.id.casefold(), m.id))
    header = [*_COLUMNS, "key"] if every else list(_COLUMNS)
    rows = [header]
    for model in models:
        row = [
            model.provider,
            model.id,
            format_token_count(model.context_window),
            format_token_count(model.max_tokens),
            "yes" if model.reasoning else "no",
            "yes" if "image" in model.input else "no",
        ]
        if every:
            row.append(_key_column(model, source_of(model.provider)))
        rows.append(row)
    return _table(rows)
