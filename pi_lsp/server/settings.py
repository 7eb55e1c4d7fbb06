"""Typed settings from the client; a bad value falls back to its default with a message.

The same keys arrive in ``initializationOptions`` and, for clients that support it, from
``workspace/configuration`` (section ``pi-lsp``); later sources override earlier ones key by key.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from pi_lsp.lint.rules import RULES
from pi_lsp.server.convert import DEFAULT_RULES_DOC_URL

SEVERITY_NAMES = ("error", "warning", "information", "hint", "off")
CONFIGURATION_SECTION = "pi-lsp"
APPROVAL_MODES = ("never", "bash", "mutating")


def _rule_keys() -> frozenset[str]:
    return frozenset(k for rule in RULES for k in (rule.code, rule.name))


@dataclass(frozen=True)
class ServerSettings:
    agent_dir: str | None = None
    model_window: int = 128_000
    debounce_ms: int = 20
    #: rule code or name -> severity name, or "off"
    severities: dict[str, str] = field(default_factory=dict)
    rules_doc_url: str = DEFAULT_RULES_DOC_URL
    #: CPU time one context file may take to be read for instructions: about 2.7 times what
    #: a file of the full size budget (256 KiB, ~6 s per MB) takes, so that only unusually
    #: slow content runs out of it
    file_budget_ms: int = 4000
    #: tier 2: ask the configured model about pairs the word rules leave undecided (on save,
    #: and after ``judge_idle_ms`` without changes; 0: on save only)
    judge: bool = False
    #: ``provider/id`` for the judge; None: the model ``pi-lsp chat`` would use
    judge_model: str | None = None
    judge_idle_ms: int = 5000
    #: which of the chat's tool calls wait for the user's answer to ``pi/approve``:
    #: ``never`` (Pi's behaviour), ``bash``, or ``mutating`` (bash, edit and write)
    approval_mode: str = "never"
    #: command prefixes and paths (files, or folders and all below) that are never asked about
    approval_allow_commands: tuple[str, ...] = ()
    approval_allow_paths: tuple[str, ...] = ()

    @classmethod
    def from_options(cls, options: object) -> tuple[ServerSettings, list[str]]:
        """Settings from ``initializationOptions``, and a message for every value ignored."""
        return cls().merged(options)

    def merged(self, options: object) -> tuple[ServerSettings, list[str]]:
        """These settings with the valid values of ``options`` laid over them."""
        problems: list[str] = []
        if options is None:
            return self, problems
        if not isinstance(options, dict):
            problems.append(f"pi-lsp settings must be an object, got {options!r}; ignored")
            return self, problems
        changes: dict[str, Any] = {}
        agent_dir = options.get("agentDir")
        if isinstance(agent_dir, str) and agent_dir:
            changes["agent_dir"] = agent_dir
        elif agent_dir not in (None, ""):
            problems.append(f"agentDir must be a path, got {agent_dir!r}; using the default")
        for key, attr, low in (
            ("modelWindow", "model_window", 1),
            ("debounceMs", "debounce_ms", 0),
            ("fileBudgetMs", "file_budget_ms", 1),
            ("judgeIdleMs", "judge_idle_ms", 0),
        ):
            value = options.get(key)
            if value is None:
                continue
            if isinstance(value, int) and not isinstance(value, bool) and value >= low:
                changes[attr] = value
            else:
                problems.append(f"{key} must be a whole number ≥ {low}, got {value!r}; ignored")
        judge = options.get("judge")
        if isinstance(judge, bool):
            changes["judge"] = judge
        elif judge is not None:
            problems.append(f"judge must be true or false, got {judge!r}; ignored")
        judge_model = options.get("judgeModel")
        if isinstance(judge_model, str) and judge_model:
            changes["judge_model"] = judge_model
        elif judge_model not in (None, ""):
            problems.append(f"judgeModel must be provider/id, got {judge_model!r}; ignored")
        url = options.get("rulesDocUrl")
        if isinstance(url, str) and url:
            changes["rules_doc_url"] = url
        elif url not in (None, ""):
            problems.append(f"rulesDocUrl must be a URL, got {url!r}; ignored")
        mode = options.get("approvalMode")
        if mode in APPROVAL_MODES:
            changes["approval_mode"] = mode
        elif mode is not None:
            choices = ", ".join(APPROVAL_MODES)
            problems.append(f"approvalMode must be one of {choices}, got {mode!r}; ignored")
        for key, attr in (
            ("approvalAllowCommands", "approval_allow_commands"),
            ("approvalAllowPaths", "approval_allow_paths"),
        ):
            value = options.get(key)
            if value is None:
                continue
            if isinstance(value, list) and all(isinstance(item, str) for item in value):
                changes[attr] = tuple(item.strip() for item in value if item.strip())
            else:
                problems.append(f"{key} must be a list of strings, got {value!r}; ignored")
        severities = options.get("severities")
        if severities is not None:
            changes["severities"] = self._severities(severities, problems)
        return replace(self, **changes), problems

    def _severities(self, value: object, problems: list[str]) -> dict[str, str]:
        if not isinstance(value, dict):
            problems.append(f"severities must map rules to severities, got {value!r}; ignored")
            return self.severities
        known = _rule_keys()
        out: dict[str, str] = {}
        for rule, severity in value.items():
            if rule not in known:
                problems.append(f"severities: no rule {rule!r} (see docs/rules.md); ignored")
            elif severity not in SEVERITY_NAMES:
                choices = ", ".join(SEVERITY_NAMES)
                problems.append(f"severities.{rule} must be one of {choices}; ignored")
            else:
                out[rule] = severity
        return out
