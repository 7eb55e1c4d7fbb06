"""Findings over a Resources snapshot: conflicts, duplicates, shadowing, skills, budgets."""
