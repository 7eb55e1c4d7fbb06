"""Model providers: one module per wire format (OpenAI-compatible chat completions, Anthropic).

``provider_for(model)`` gives the :class:`~pi_lsp.agent.model_api.Provider` for a model;
``config`` resolves ``--provider`` / ``--model`` to a model and key (models.json, auth.json,
environment); ``errors`` and ``retry`` tell the loop what a failure means and how long to wait.
"""

from pi_lsp.agent.providers.registry import provider_for

__all__ = ["provider_for"]
