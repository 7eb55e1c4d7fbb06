"""The judge's server settings: off by default, and a bad value ignored with a message."""

from __future__ import annotations

from pi_lsp.server.settings import ServerSettings


def test_the_judge_is_off_by_default() -> None:
    settings, problems = ServerSettings.from_options({})
    assert settings.judge is False and settings.judge_model is None
    assert settings.judge_idle_ms == 5000 and problems == []


def test_judge_settings_are_read() -> None:
    options = {"judge": True, "judgeModel": "local/judge-1", "judgeIdleMs": 0}
    settings, problems = ServerSettings.from_options(options)
    assert (settings.judge, settings.judge_model, settings.judge_idle_ms) == (
        True,
        "local/judge-1",
        0,
    )
    assert problems == []


def test_bad_judge_values_fall_back_with_a_message() -> None:
    options = {"judge": "yes", "judgeModel": 3, "judgeIdleMs": -1}
    settings, problems = ServerSettings.from_options(options)
    assert settings == ServerSettings()
    assert len(problems) == 3
    assert any(p.startswith("judge must be true or false") for p in problems)
