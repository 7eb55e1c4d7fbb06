"""The agent: providers streaming from real LLM APIs, and the loop that runs tools and compacts."""
