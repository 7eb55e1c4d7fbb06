"""The provider for a model: one per wire format, all sharing one HTTP client per base URL."""

from __future__ import annotations

from pi_lsp.agent.model_api import ModelInfo, Provider
from pi_lsp.agent.providers.anthropic_messages import AnthropicMessagesProvider
from pi_lsp.agent.providers.google_generative_ai import GoogleGenerativeAIProvider
from pi_lsp.agent.providers.openai_completions import OpenAICompletionsProvider
from pi_lsp.agent.providers.openai_responses import OpenAIResponsesProvider
from pi_lsp.agent.providers.transport import ClientSource

__all__ = ["provider_for"]

_OPENAI = OpenAICompletionsProvider()
_ANTHROPIC = AnthropicMessagesProvider()
_RESPONSES = OpenAIResponsesProvider()
_GOOGLE = GoogleGenerativeAIProvider()


def provider_for(model: ModelInfo, *, clients: ClientSource | None = None) -> Provider:
    """The provider that speaks ``model.api``.

    Requests go through :func:`~pi_lsp.agent.providers.transport.shared_client` (one
    ``httpx.AsyncClient`` per base URL and event loop) unless ``clients`` supplies the client.
    """
    if model.api == "openai-completions":
        return _OPENAI if clients is None else OpenAICompletionsProvider(clients)
    if model.api == "anthropic-messages":
        return _ANTHROPIC if clients is None else AnthropicMessagesProvider(clients)
    if model.api == "openai-responses":
        return _RESPONSES if clients is None else OpenAIResponsesProvider(clients)
    if model.api == "google-generative-ai":
        return _GOOGLE if clients is None else GoogleGenerativeAIProvider(clients)
    raise ValueError(f"no provider speaks the api {model.api!r}")
