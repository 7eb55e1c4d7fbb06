"""Tests of the agent package: providers over real HTTP, models.json, error rules."""
