"""One file never holds the server: a context file whose instructions take more CPU time to
read than the time budget per file (``fileBudgetMs``) gets a warning naming the budget and is
left out of the checks, while the other files get their diagnostics, hovers answer, and a
quick fix asked for in that file is not bought by reading it without a limit."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.lsp.harness import start_client, wait_until
from tests.prose import context_prose


async def test_a_file_past_the_time_budget_is_skipped_and_the_rest_stays_live(
    tmp_path: Path,
) -> None:
    for name in ("home", "agent", "ws/big", "ws/small"):
        (tmp_path / name).mkdir(parents=True)
    big = tmp_path / "ws" / "big" / "AGENTS.md"
    # ~200 KiB of prose: parsing it alone takes longer than 100 ms, reading it seconds
    head = "# Notes\n\n- Indent with tabs.\n- Use 4 spaces for indentation.\n\n"
    big.write_text(head + context_prose(200 * 1024))
    small = tmp_path / "ws" / "small" / "AGENTS.md"
    small.write_text("# Tools\n\n- Use npm.\n- Use pnpm.\n")
    client = await start_client(tmp_path, options={"fileBudgetMs": 100})
    try:
        [conflict] = await wait_until(client, small, bool)
        assert (conflict.code, conflict.range.start.line) == ("PI102", 3)
        stopped = await wait_until(client, big, lambda ds: any(d.code == "PI105" for d in ds))
        [warning] = [d for d in stopped if d.code == "PI105"]
        assert warning.severity == types.DiagnosticSeverity.Warning
        assert warning.message.startswith("pi-lsp stopped reading this file after 100 ms")
        # none of its hundreds of conflicts: the file was left out of the checks
        assert not [d for d in stopped if d.code in ("PI101", "PI102", "PI103")]

        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(small.as_uri()), types.Position(0, 0))
        )
        assert hover is not None and "small/AGENTS.md" in hover.contents.value  # type: ignore[union-attr]

        # a conflict in the file, as an editor could still hold it from an earlier version:
        # the fix would read the file past the budget, so none is offered
        stale = types.Diagnostic(
            range=types.Range(types.Position(3, 2), types.Position(3, 31)),
            message="Conflicting instructions",
            code="PI102",
            source="pi-lsp",
            related_information=[
                types.DiagnosticRelatedInformation(
                    types.Location(
                        big.as_uri(),
                        types.Range(types.Position(2, 2), types.Position(2, 19)),
                    ),
                    "earlier instruction",
                )
            ],
        )
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(big.as_uri()),
                stale.range,
                types.CodeActionContext(diagnostics=[stale]),
            )
        )
        assert actions is not None and list(actions) == []

        # an edit elsewhere is linted again; the big file is read again (a verdict of out of
        # time is not remembered: it may have been a slow moment) and is still too slow
        uri = small.as_uri()
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri, "markdown", 1, "- Use yarn.\n\n- Use bun.\n")
            )
        )
        [again] = await wait_until(
            client, small, lambda ds: len(ds) == 1 and ds[0].range.start.line == 2
        )
        assert "yarn" in again.message and "bun" in again.message
        assert any(d.code == "PI105" for d in client.diagnostics[big.as_uri()])
    finally:
        await client.shutdown_session()
