"""Which model a chat talks to, at which thinking level, and how the choice is recorded.

Written once for both faces: ``pi-lsp chat`` and the language server's ``pi/chat`` /
``pi/model/select`` / ``pi/session/usage`` (the counterpart of Pi's model resolver).

- An explicit provider / model must resolve; without one, the *fallback chain* is tried in
  order — the model the session's branch last recorded, the model picked in the editor with
  ``pi/model/select``, ``defaultProvider`` / ``defaultModel`` from settings — and then every
  models.json model; the first that has a key wins (:func:`choose_model`).
- The thinking level: the one asked for, else the level a resumed session records, else
  ``defaultThinkingLevel``, else ``medium`` (:func:`initial_thinking_level`), clamped to what
  the model offers: ``off`` without reasoning, the nearest level its ``thinkingLevelMap``
  has otherwise (:func:`clamp_thinking_level`).
- A new session records the model and level as its first entries; a resumed one only a level
  entry when it has none yet (:func:`record_model_choice`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pi_lsp.agent.model_api import ModelInfo, ThinkingLevel, thinking_level_or_off
from pi_lsp.agent.model_api import clamp_thinking_level as clamp_levels

if TYPE_CHECKING:
    from pi_lsp.agent.providers.config import ModelsConfig, ResolvedModel
    from pi_lsp.session.context import SessionContext
    from pi_lsp.session.session_file import SessionFile

__all__ = [
    "DEFAULT_THINKING_LEVEL",
    "NO_MODEL",
    "choose_model",
    "clamp_thinking_level",
    "fallback_models",
    "initial_thinking_level",
    "record_model_choice",
    "recorded_model",
    "settings_default_model",
]

NO_MODEL = (
    "no model available: give --provider and --model, set defaultProvider/defaultModel in "
    "settings.json, or define a model with a key in models.json"
)


def settings_default_model(settings: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(defaultProvider, defaultModel)`` from merged settings, when both are set."""
    provider = settings.get("defaultProvider")
    model = settings.get("defaultModel")
    if isinstance(provider, str) and provider and isinstance(model, str) and model:
        return provider, model
    return None


def recorded_model(context: SessionContext | None) -> tuple[str, str] | None:
    """The ``(provider, id)`` the session's branch last recorded, if any."""
    recorded = (context.model if context is not None else None) or {}
    provider, model_id = recorded.get("provider"), recorded.get("modelId")
    if isinstance(provider, str) and isinstance(model_id, str):
        return provider, model_id
    return None


def fallback_models(
    context: SessionContext | None,
    selected: tuple[str, str] | None,
    settings: Mapping[str, Any],
) -> list[tuple[str, str]]:
    """The fallback chain, in order: the recorded model, the selected one, the settings' default."""
    chain: list[tuple[str, str]] = []
    for candidate in (recorded_model(context), selected, settings_default_model(settings)):
        if candidate is not None:
            chain.append(candidate)
    return chain


def choose_model(
    config: ModelsConfig,
    provider: str | None,
    model: str | None,
    *,
    fallbacks: Sequence[tuple[str, str]] = (),
    env: Mapping[str, str] | None = None,
    agent_dir: str | None = None,
) -> tuple[ResolvedModel, list[str]]:
    """The model to talk to, and warnings about fallbacks that could not be used.

    An explicit ``provider`` / ``model`` must resolve (else :class:`ModelChoiceError`). Without
    one, each ``(provider, model)`` of ``fallbacks`` is tried in order (see
    :func:`fallback_models`), then Pi's default model of each built-in provider (in Pi's order),
    then every models.json model; the first pi-lsp can reach with a key wins.
    """
    from pi_lsp.agent.providers.catalogue import default_models
    from pi_lsp.agent.providers.config import (
        ModelChoiceError,
        all_models,
        resolve_model,
    )

    if provider or model:
        resolved = resolve_model(config, provider, model, env=env, agent_dir=agent_dir)
        return resolved, [resolved.warning] if resolved.warning else []
    warnings: list[str] = []
    for fallback_provider, fallback_model in fallbacks:
        try:
            resolved = resolve_model(
                config, fallback_provider, fallback_model, env=env, agent_dir=agent_dir
            )
        except ModelChoiceError as error:
            warnings.append(f"cannot use {fallback_provider}/{fallback_model}: {error}")
            continue
        return resolved, warnings
    candidates = [(info.provider, info.id) for info in all_models(config, env)]
    for choice_provider, choice_model in [*default_models(), *candidates]:
        try:
            resolved = resolve_model(
                config, choice_provider, choice_model, env=env, agent_dir=agent_dir
            )
        except ModelChoiceError:
            continue
        return resolved, warnings
    raise ModelChoiceError(NO_MODEL)


#: the level of a new session when neither the command line nor the settings name one (Pi's)
DEFAULT_THINKING_LEVEL: ThinkingLevel = "medium"


def clamp_thinking_level(model: ModelInfo, level: str | None) -> ThinkingLevel:
    """A known level the model offers (Pi's clamp): ``off`` for a model without reasoning;
    for one whose ``thinkingLevelMap`` lacks the level, the nearest it has, higher first (so
    ``off`` is gpt-5's ``minimal``)."""
    if not model.reasoning:
        return "off"
    return clamp_levels(model, thinking_level_or_off(level))


def _has_thinking_entry(session: SessionFile) -> bool:
    return "thinking_level_change" in session.get_branch_types()


def initial_thinking_level(
    flag: str | None,
    settings: Mapping[str, Any],
    session: SessionFile,
    context: SessionContext | None,
) -> str:
    """The requested level, else the level a resumed session records, else
    ``defaultThinkingLevel``, else Pi's default ``medium`` (clamp it with
    :func:`clamp_thinking_level`: a model without reasoning gets ``off``)."""
    if flag is not None:
        return flag
    if context is not None and _has_thinking_entry(session):
        return str(context.thinking_level)
    default = settings.get("defaultThinkingLevel")
    return default if isinstance(default, str) else DEFAULT_THINKING_LEVEL


def record_model_choice(
    session: SessionFile, model: ModelInfo, thinking: str, context: SessionContext | None
) -> None:
    """Open a new session (``context`` None) with the model and thinking level, as Pi does.

    A resumed session gets only a thinking-level entry when it has none yet (spec §8.2): Pi
    0.85 records no model change when a session is continued with another model (checked with
    the oracle: tests/conformance/test_session_interop.py); the assistant messages carry the
    model that answered them.
    """
    if context is None:
        session.append_model_change(model.provider, model.id)
        session.append_thinking_level_change(thinking)
        return
    if not _has_thinking_entry(session):
        session.append_thinking_level_change(thinking)
