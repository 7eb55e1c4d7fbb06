import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { ActiveSessionTracker } from "../src/activeSession";
import { OVERWRITE_BUTTON, RESTORE_BUTTON, RESTORE_FILES, restoreOutcome, restoreQuestion, type RestoreResult } from "../src/checkpoints";
import { ChatController, type ChatClient } from "../src/chat/controller";
import { parseWebviewMessage } from "../src/chat/protocol";
import { registerSessionTree, RESTORE_AFTER_MOVE, SESSION_TREE_COMMANDS, SESSION_TREE_VIEW, type SessionTreeProvider } from "../src/sessionTree";
import type { SessionTreeResult } from "../src/sessionTreeModel";
import { stub } from "./vscode-stub";

beforeEach(() => stub.reset());

type Answer = (params: Record<string, unknown>) => unknown;

/** A server that answers by method and records every request. */
function fakeServer(answers: Record<string, Answer>) {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  const request = async <R,>(method: string, params: object = {}): Promise<R> => {
    calls.push({ method, params: params as Record<string, unknown> });
    const answer = answers[method];
    if (!answer) throw new Error(`unexpected ${method}`);
    return (await answer(params as Record<string, unknown>)) as R;
  };
  const client: ChatClient = { request };
  return { request, client, calls, restores: () => calls.filter((call) => call.method === RESTORE_FILES).map((call) => call.params) };
}

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

const file = (relativePath: string, action: RestoreResult["files"][number]["action"], userChanged = false, reason?: string) => ({
  path: `/ws/${relativePath}`,
  relativePath,
  action,
  userChanged,
  ...(reason ? { reason } : {}),
});

/** A dry run: a.txt would be put back, new.txt deleted, mine.txt was changed by the user. */
const PREVIEW: RestoreResult = {
  dryRun: true,
  files: [file("a.txt", "restore"), file("mine.txt", "keep", true, "changed since the agent's last change"), file("new.txt", "delete")],
  touched: ["/ws/a.txt", "/ws/new.txt"],
  userChanged: ["/ws/mine.txt"],
};

/** What the restore answers, forced or not. */
function restored(params: Record<string, unknown>): RestoreResult {
  if (params.dryRun) return PREVIEW;
  const mine = params.force ? file("mine.txt", "restore", true) : file("mine.txt", "keep", true);
  return { files: [file("a.txt", "restore"), mine, file("new.txt", "delete")], touched: [], userChanged: ["/ws/mine.txt"] };
}

describe("the restore confirmation", () => {
  it("lists every file with what happens to it and offers to overwrite only when the user changed one", () => {
    const question = restoreQuestion(PREVIEW)!;
    expect(question.message).toBe("Restore 3 files to this point?");
    expect(question.detail.split("\n")).toEqual([
      "a.txt: put back as it was",
      "mine.txt: changed by you since; kept unless you overwrite it",
      "new.txt: deleted (the agent created it)",
      "",
      "1 file changed by you since the agent's last change.",
    ]);
    expect(question.buttons).toEqual([RESTORE_BUTTON, OVERWRITE_BUTTON]);
    const clean = restoreQuestion({ ...PREVIEW, files: [file("a.txt", "restore")] })!;
    expect(clean.buttons).toEqual([RESTORE_BUTTON]);
    expect(restoreQuestion({ ...PREVIEW, files: [file("a.txt", "unchanged"), file("big.bin", "notRestorable", false, "too big")] })).toBeUndefined();
  });

  it("says what was restored, deleted, kept and not restorable", () => {
    const result: RestoreResult = {
      files: [file("a.txt", "restore"), file("mine.txt", "keep", true), file("new.txt", "delete"), file("big.bin", "notRestorable", false, "it was too big")],
      touched: [],
      userChanged: [],
    };
    expect(restoreOutcome(result)).toBe(
      "pi-lsp: restored 1 file, deleted 1 file the agent created; kept your changes to mine.txt; could not restore big.bin (it was too big).",
    );
  });
});

describe("restoring from the Session view", () => {
  const branched: SessionTreeResult = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "branched-session.tree.json"), "utf8"));

  async function setUp(answers: Record<string, Answer>) {
    const server = fakeServer({ "pi/session/tree": () => branched, ...answers });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "sess-1", file: "/s/a.jsonl", cwd: "/ws" });
    registerSessionTree(server.request, tracker);
    await settle();
    const provider = stub.treeViews.get(SESSION_TREE_VIEW)!.treeDataProvider as SessionTreeProvider;
    return { server, target: provider.getChildren()[3]! }; // the user message e008
  }

  it("previews, asks with the file list, and restores without overwriting the user's changes", async () => {
    const { server, target } = await setUp({ [RESTORE_FILES]: restored });
    stub.answers.push(RESTORE_BUTTON);
    await stub.commands.get(SESSION_TREE_COMMANDS.restoreFiles)!(target);
    expect(server.restores()).toEqual([
      { session: "sess-1", entryId: "e008", after: true, dryRun: true },
      { session: "sess-1", entryId: "e008", after: true },
    ]);
    const asked = stub.asked.at(-1)!;
    expect(asked.text).toBe("Restore 3 files to this point?");
    expect((asked.options as { modal: boolean }).modal).toBe(true);
    expect((asked.options as { detail: string }).detail).toContain("mine.txt: changed by you since");
    expect(stub.messages.at(-1)).toEqual({
      kind: "info",
      text: "pi-lsp: restored 1 file, deleted 1 file the agent created; kept your changes to mine.txt.",
    });
  });

  it("overwrites the user's changes only when asked to (force)", async () => {
    const { server, target } = await setUp({ [RESTORE_FILES]: restored });
    stub.answers.push(OVERWRITE_BUTTON);
    await stub.commands.get(SESSION_TREE_COMMANDS.restoreFiles)!(target);
    expect(server.restores().at(-1)).toEqual({ session: "sess-1", entryId: "e008", after: true, force: true });
    expect(stub.messages.at(-1)!.text).toBe("pi-lsp: restored 2 files, deleted 1 file the agent created.");
  });

  it("writes nothing when the confirmation is cancelled, and says so when there is nothing to restore", async () => {
    const { server, target } = await setUp({ [RESTORE_FILES]: restored });
    stub.answers.push(undefined);
    await stub.commands.get(SESSION_TREE_COMMANDS.restoreFiles)!(target);
    expect(server.restores()).toEqual([{ session: "sess-1", entryId: "e008", after: true, dryRun: true }]);

    const empty = await setUp({ [RESTORE_FILES]: () => ({ dryRun: true, files: [], touched: [], userChanged: [] }) });
    await stub.commands.get(SESSION_TREE_COMMANDS.restoreFiles)!(empty.target);
    expect(empty.server.restores()).toHaveLength(1);
    expect(stub.messages.at(-1)).toEqual({ kind: "info", text: "pi-lsp: no files to restore: the agent changed none after this point." });
  });

  it("Continue from here offers to restore the files, after the move", async () => {
    const { server, target } = await setUp({
      "pi/session/navigate": () => ({ session: "sess-1", cancelled: false, leafId: "e007", editorText: "Rename it." }),
      [RESTORE_FILES]: restored,
    });
    stub.answers.push(RESTORE_BUTTON);
    await stub.commands.get(SESSION_TREE_COMMANDS.navigate)!(target);
    const methods = server.calls.map((call) => call.method);
    expect(methods.indexOf("pi/session/navigate")).toBeLessThan(methods.indexOf(RESTORE_FILES));
    expect(stub.asked.at(-1)!.text).toBe(RESTORE_AFTER_MOVE);
    expect(server.restores().at(-1)).toEqual({ session: "sess-1", entryId: "e008", after: true });
  });

  it("Continue from here asks nothing when no file changed after the entry, or the server cannot restore", async () => {
    for (const answer of [() => ({ dryRun: true, files: [], touched: [], userChanged: [] }), undefined]) {
      stub.reset();
      const { server, target } = await setUp({
        "pi/session/navigate": () => ({ session: "sess-1", cancelled: false, leafId: "e007", editorText: null }),
        ...(answer ? { [RESTORE_FILES]: answer } : {}),
      });
      await stub.commands.get(SESSION_TREE_COMMANDS.navigate)!(target);
      expect(stub.asked).toEqual([]);
      expect(stub.messages.map((m) => m.kind)).toEqual(["status"]);
      expect(server.restores()).toHaveLength(1);
    }
  });

  it("puts the command in the entries' context menu, not the palette", () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));
    const id = SESSION_TREE_COMMANDS.restoreFiles;
    expect(manifest.contributes.commands).toContainEqual(expect.objectContaining({ command: id, title: "Restore files to this point…" }));
    const menu = manifest.contributes.menus["view/item/context"].find((entry: { command: string }) => entry.command === id);
    expect(menu.when).toBe(`view == ${SESSION_TREE_VIEW} && viewItem =~ /^entry/`);
    expect(manifest.contributes.menus.commandPalette).toContainEqual({ command: id, when: "false" });
  });
});

describe("restoring from a chat message", () => {
  const entries = [
    { id: "e1", type: "message", message: { role: "user", content: [{ type: "text", text: "first" }] } },
    { id: "e2", type: "message", message: { role: "assistant", content: [{ type: "text", text: "Done." }] } },
    { id: "e3", type: "message", message: { role: "user", content: [{ type: "text", text: "second" }] } },
  ];

  it("restores to the entry of the message clicked, before its answer", async () => {
    const server = fakeServer({
      "pi/session/messages": () => ({ entries }),
      "pi/session/usage": () => null,
      "pi/models": () => ({ models: [] }),
      [RESTORE_FILES]: restored,
    });
    const tracker = new ActiveSessionTracker();
    const chat = new ChatController(server.client, tracker);
    chat.attach(() => undefined);
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    await settle();
    const second = chat.transcript.items.filter((item) => item.kind === "user")[1]!;
    const message = parseWebviewMessage({ type: "restoreFiles", itemId: second.id });
    expect(message).toEqual({ type: "restoreFiles", itemId: second.id });
    stub.answers.push(RESTORE_BUTTON);
    await chat.handle(message!);
    expect(server.restores()).toEqual([
      { session: "s1", file: "/s/s1.jsonl", entryId: "e3", dryRun: true },
      { session: "s1", file: "/s/s1.jsonl", entryId: "e3" },
    ]);
    expect(parseWebviewMessage({ type: "restoreFiles" })).toBeUndefined();
  });

  it("restores nothing when the message is no longer in the session's branch", async () => {
    let shown = entries;
    const server = fakeServer({ "pi/session/messages": () => ({ entries: shown }), "pi/session/usage": () => null, "pi/models": () => ({ models: [] }) });
    const tracker = new ActiveSessionTracker();
    const chat = new ChatController(server.client, tracker);
    chat.attach(() => undefined);
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    await settle();
    const first = chat.transcript.items.find((item) => item.kind === "user")!;
    shown = [{ ...entries[0]!, message: { role: "user", content: [{ type: "text", text: "edited elsewhere" }] } }];
    await chat.handle({ type: "restoreFiles", itemId: first.id });
    expect(server.restores()).toEqual([]);
    expect(chat.transcript.items.at(-1)).toMatchObject({ kind: "notice", level: "error" });
  });
});
