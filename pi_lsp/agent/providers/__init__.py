"""Model providers: one module per wire format (OpenAI-compatible chat completions, Anthropic)."""
