"""The redactor built from a request's credentials, and the log filter that applies what the
process has seen to every record written (message, arguments, traceback)."""

from __future__ import annotations

import logging
from pathlib import Path

from pi_lsp.agent.model_api import ModelInfo, ModelRequest
from pi_lsp.agent.providers.secret import (
    KNOWN_SECRETS,
    RedactingFilter,
    Redactor,
    redactor_for,
)


def test_a_request_masks_its_key_and_every_header_value_longest_first() -> None:
    model = ModelInfo(
        "m",
        "p",
        "openai-completions",
        "http://x",
        headers={"Authorization": "Bearer key-12345", "X-Team": "tëam-secret", "X-On": "on"},
    )
    mask = redactor_for(ModelRequest(model, "", [], api_key="key-12345"))
    text = 'auth "Bearer key-12345", key key-12345, team tëam-secret / "t\\u00ebam-secret", on'
    assert mask(text) == 'auth "***", key ***, team *** / "***", on'  # "on": too short to mask
    assert KNOWN_SECRETS("seen: key-12345") == "seen: ***"


def test_the_log_filter_masks_messages_arguments_and_tracebacks(tmp_path: Path) -> None:
    log_file = tmp_path / "log"
    handler = logging.FileHandler(log_file)
    handler.addFilter(RedactingFilter(Redactor(["hdr-value-9876"])))
    logger = logging.getLogger("test_redaction")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        logger.warning("sent %s", {"X-Team": "hdr-value-9876"})
        try:
            raise RuntimeError("server said hdr-value-9876")
        except RuntimeError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
        handler.close()
    written = log_file.read_text()
    assert "hdr-value-9876" not in written
    assert "sent {'X-Team': '***'}" in written and "RuntimeError: server said ***" in written
