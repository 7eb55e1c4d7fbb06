"""``pi/trust``: ask whether a project is trusted, and record the decision in ``trust.json``.

Params ``{"cwd": str, "decision"?: true | false | null}``. Without ``decision`` the request only
reports; ``true``/``false`` stores a decision for the (canonical) ``cwd``, ``null`` removes it.
The store is written by :func:`pi_lsp.resources.trust.save_trust` under Pi's lock, and a rebuild
follows so that the project's diagnostics are published again. A store that cannot be read is
never overwritten: the request fails with an error that names the file and the line.

:func:`trust_status` and :func:`set_trust` are shared with the ``pi-lsp.trustProject`` command
(see :mod:`pi_lsp.server.features.code_actions`).
"""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from pi_lsp.resources.trust import (
    TrustLockError,
    TrustStoreError,
    located_message,
    resolve_project_trust,
    save_trust,
    unwritten_reason,
)
from pi_lsp.server.language_server import PiLanguageServer
from pi_lsp.server.requests import agent_dir_of, cwd_param, failed

METHOD = "pi/trust"
_ABSENT = object()


def trust_status(ls: PiLanguageServer, cwd: str) -> dict[str, Any]:
    """The ``pi/trust`` result for ``cwd``: whether it is trusted, by which entry, and why."""
    decision = resolve_project_trust(cwd, agent_dir_of(ls))
    entry = decision.entry
    result: dict[str, Any] = {
        "cwd": decision.cwd,
        "trusted": decision.trusted,
        "directory": entry.key if entry else None,
        "decision": entry.decision if entry else None,
        "requires": [r.path for r in decision.requirements],
        "storePath": decision.store_path,
        "rule": decision.rule,
        "reason": decision.reason,
    }
    if decision.findings:
        result["problems"] = [located_message(f) for f in decision.findings]
    return result


def set_trust(ls: PiLanguageServer, cwd: str, decision: bool | None) -> dict[str, Any]:
    """Store ``decision`` for ``cwd``, rebuild, and return the new status.

    Raises a :class:`JsonRpcException` (RequestFailed) without writing anything when the store
    is broken or locked.
    """
    agent_dir = agent_dir_of(ls)
    try:
        store = save_trust(agent_dir, cwd, decision)
    except TrustStoreError as error:
        first = error.findings[0]
        raise failed(
            unwritten_reason(error),
            {
                "storePath": first.where.path,
                "line": first.where.start_line + 1,
                "column": first.where.start_column + 1,
                "rule": first.rule,
            },
        ) from error
    except TrustLockError as error:
        raise failed(
            unwritten_reason(error), {"lockPath": error.lock_path, "locked": error.locked}
        ) from error
    except OSError as error:
        raise failed(unwritten_reason(error)) from error
    ls.disk_changes.written(store.path)  # the rebuild below covers it: its event is no change
    ls.request_rebuild(None)
    return trust_status(ls, cwd)


def register(server: PiLanguageServer) -> None:
    @server.feature(METHOD)
    def trust(ls: PiLanguageServer, params: Any) -> dict[str, Any]:
        cwd = cwd_param(ls, getattr(params, "cwd", None), METHOD)
        decision = getattr(params, "decision", _ABSENT)
        if decision is _ABSENT:
            return trust_status(ls, cwd)
        if decision is not None and not isinstance(decision, bool):
            raise JsonRpcInvalidParams(
                f"{METHOD}: decision must be true, false or null, got {decision!r}"
            )
        return set_trust(ls, cwd, decision)
