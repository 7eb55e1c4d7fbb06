"""Resource boundary: everything on disk that decides what a model call starts with."""
