"""Request boundary: what a model call carries (system prompt, messages as the model sees them)."""
