import { beforeEach, describe, expect, it } from "vitest";
import { ActiveSessionTracker } from "../src/activeSession";
import { ChatController, type ChatClient } from "../src/chat/controller";
import { parseHostMessage, parseWebviewMessage, type ApprovalItem, type HostMessage } from "../src/chat/protocol";
import { ACCEPT_UNSAVED, EditReview, PROPOSAL_SCHEME, REVIEW_COMMANDS } from "../src/editReview";
import { REVERT_ANYWAY } from "../src/madeChanges";
import { stub, Uri, workspace } from "./vscode-stub";

beforeEach(() => stub.reset());

const client: ChatClient = {
  async request<R>(method: string): Promise<R> {
    if (method === "pi/models") return { models: [], selected: null } as R;
    throw new Error(`unhandled ${method}`);
  },
};

function controller(): { chat: ChatController; posted: HostMessage[] } {
  const review = new EditReview();
  review.register();
  const chat = new ChatController(client, new ActiveSessionTracker(), undefined, review);
  const posted: HostMessage[] = [];
  chat.attach((message) => posted.push(message));
  posted.length = 0;
  return { chat, posted };
}

function cards(posted: readonly HostMessage[]): ApprovalItem[] {
  return posted
    .map((m) => parseHostMessage(JSON.parse(JSON.stringify(m))))
    .flatMap((m) => (m?.type === "upsert" && m.item.kind === "approval" ? [m.item] : []));
}

const EDIT = {
  session: "s1",
  toolCallId: "call_1",
  tool: "edit",
  path: "/ws/notes.txt",
  displayPath: "notes.txt",
  cwd: "/ws",
  newFile: false,
  diff: "--- notes.txt\n+++ notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
  proposed: "one\nTWO\nthree\n",
};

/** The diff editor opened last: its two sides and title. */
function lastDiff(): { left: Uri; right: Uri; title: string } {
  const diff = stub.executed.filter((e) => e.command === "vscode.diff").at(-1);
  if (diff === undefined) throw new Error("no diff editor opened");
  const [left, right, title] = diff.args as [Uri, Uri, string];
  return { left, right, title };
}

async function settled(): Promise<void> {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
}

describe("edit review in the diff editor", () => {
  it("opens the proposal beside the file and Accept applies it as an undoable edit, saved", async () => {
    stub.files.set("/ws/notes.txt", "one\ntwo\nthree\n");
    const buffer = stub.openDocument("/ws/notes.txt", "one\ntwo\nthree\n");
    const { chat, posted } = controller();
    const answer = chat.approve(EDIT);
    await settled();
    const [card] = cards(posted);
    expect(card).toMatchObject({ tool: "edit", reviewable: true, status: "open" });
    const { left, right, title } = lastDiff();
    expect(left.toString()).toBe(Uri.file("/ws/notes.txt").toString());
    expect(right.scheme).toBe(PROPOSAL_SCHEME);
    expect((await workspace.openTextDocument(right)).getText()).toBe("one\nTWO\nthree\n");
    expect(title).toBe("notes.txt (proposed edit)");

    await chat.handle(parseWebviewMessage({ type: "approve", id: card!.id, decision: "applied" })!);
    expect(await answer).toEqual({ decision: "applied" });
    expect(stub.edits).toHaveLength(1); // one workspace edit: one Undo step
    expect(buffer.text).toBe("one\nTWO\nthree\n");
    expect(buffer.undo).toEqual(["one\ntwo\nthree\n"]);
    expect(buffer.dirty).toBe(false);
    expect(stub.files.get("/ws/notes.txt")).toBe("one\nTWO\nthree\n");
    expect(cards(posted).at(-1)?.status).toBe("applied");
    expect(stub.diffTabs).toEqual([]); // the answered review's diff is closed
  });

  it("takes Accept and Reject from the diff editor's title bar", async () => {
    stub.files.set("/ws/notes.txt", "one\ntwo\nthree\n");
    const { chat, posted } = controller();
    const accepted = chat.approve(EDIT);
    await settled();
    await stub.commands.get(REVIEW_COMMANDS.accept)!(lastDiff().right);
    expect(await accepted).toEqual({ decision: "applied" });
    expect(stub.files.get("/ws/notes.txt")).toBe("one\nTWO\nthree\n"); // a closed file is opened, changed and saved

    const rejected = chat.approve({ ...EDIT, toolCallId: "call_2", proposed: "one\nTWO\nTHREE\n" });
    await settled();
    await stub.commands.get(REVIEW_COMMANDS.reject)!(lastDiff().right);
    expect(await rejected).toEqual({ decision: "deny" });
    expect(stub.files.get("/ws/notes.txt")).toBe("one\nTWO\nthree\n");
    expect(stub.edits).toHaveLength(1);
    expect(cards(posted).at(-1)?.status).toBe("denied");
    expect(stub.diffTabs).toEqual([]);
  });

  it("says so before replacing unsaved changes the agent did not see, and keeps the question open if told no", async () => {
    stub.files.set("/ws/notes.txt", "one\ntwo\nthree\n");
    const buffer = stub.openDocument("/ws/notes.txt", "one\ntwo\nthree\nmine, unsaved\n");
    const { chat, posted } = controller();
    const answer = chat.approve(EDIT);
    await settled();
    const [card] = cards(posted);

    stub.answers.push(undefined); // the warning is dismissed
    await chat.handle(parseWebviewMessage({ type: "approve", id: card!.id, decision: "applied" })!);
    expect(stub.asked.at(-1)).toMatchObject({ text: "notes.txt has unsaved changes the agent did not see.", options: { modal: true }, items: [ACCEPT_UNSAVED] });
    expect(stub.edits).toEqual([]);
    expect(buffer.text).toBe("one\ntwo\nthree\nmine, unsaved\n");
    expect(cards(posted).at(-1)?.status).toBe("open"); // sent again: its buttons work again

    stub.answers.push(ACCEPT_UNSAVED);
    await chat.handle(parseWebviewMessage({ type: "approve", id: card!.id, decision: "applied" })!);
    expect(await answer).toEqual({ decision: "applied" });
    expect(buffer.text).toBe("one\nTWO\nthree\n");
    expect(buffer.undo).toEqual(["one\ntwo\nthree\nmine, unsaved\n"]); // Undo brings the user's text back
    expect(stub.files.get("/ws/notes.txt")).toBe("one\nTWO\nthree\n"); // buffer and disk agree
  });

  it("creates a new file from an empty left side", async () => {
    const { chat } = controller();
    const answer = chat.approve({ ...EDIT, tool: "write", path: "/ws/new/a.txt", displayPath: "new/a.txt", newFile: true, proposed: "hello\n" });
    await settled();
    const { left, title } = lastDiff();
    expect(left.scheme).toBe(PROPOSAL_SCHEME);
    expect((await workspace.openTextDocument(left)).getText()).toBe("");
    expect(title).toBe("new/a.txt (proposed new file)");
    await stub.commands.get(REVIEW_COMMANDS.accept)!(lastDiff().right);
    expect(await answer).toEqual({ decision: "applied" });
    expect(stub.edits[0]!.operations.map((o) => o.op)).toEqual(["create", "insert"]);
    expect(stub.files.get("/ws/new/a.txt")).toBe("hello\n");
  });

  it("denies with the reason when the editor refuses the edit", async () => {
    stub.files.set("/ws/notes.txt", "one\ntwo\nthree\n");
    stub.applyEditFails = true;
    const { chat } = controller();
    const answer = chat.approve(EDIT);
    await settled();
    await stub.commands.get(REVIEW_COMMANDS.accept)!(lastDiff().right);
    expect(await answer).toEqual({ decision: "deny", reason: "the editor could not apply the change (the editor did not apply or save the change to notes.txt)" });
    expect(stub.messages.at(-1)).toMatchObject({ kind: "error" });
    expect(stub.files.get("/ws/notes.txt")).toBe("one\ntwo\nthree\n");
  });

  it("keeps the plain question when the server sent no proposal (too long) or for bash", async () => {
    const { chat, posted } = controller();
    void chat.approve({ ...EDIT, proposed: undefined });
    void chat.approve({ session: "s1", toolCallId: "call_0", tool: "bash", command: "ls", cwd: "/ws" });
    await settled();
    expect(cards(posted).map((c) => c.reviewable)).toEqual([undefined, undefined]);
    expect(stub.executed.filter((e) => e.command === "vscode.diff")).toEqual([]);
  });
});

describe("a change made without asking: Review diff and Revert on its tool card", () => {
  /** A server that answers pi/session/fileChange and records restoreFiles (answered by `restore`). */
  function server(restore: (params: Record<string, unknown>) => unknown, change: Record<string, unknown> = {}) {
    const asked: { method: string; params: Record<string, unknown> }[] = [];
    const fake: ChatClient = {
      async request<R>(method: string, params?: object): Promise<R> {
        asked.push({ method, params: params as Record<string, unknown> });
        if (method === "pi/models") return { models: [], selected: null } as R;
        if (method === "pi/session/fileChange") {
          return { tool: "edit", path: "/ws/a.txt", relativePath: "a.txt", existed: true, before: "one\n", notKept: null, changedSince: false, reverted: false, ...change } as R;
        }
        if (method === "pi/session/restoreFiles") return restore(params as Record<string, unknown>) as R;
        throw new Error(`unhandled ${method}`);
      },
    };
    const review = new EditReview();
    review.register();
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: null, cwd: "/ws" });
    const chat = new ChatController(fake, tracker, undefined, review);
    chat.attach(() => undefined);
    return { chat, asked };
  }

  const restored = (action: string, userChanged = false) => ({ files: [{ path: "/ws/a.txt", relativePath: "a.txt", action, userChanged }], touched: [], userChanged: [] });

  it("Review diff opens the text before the call against the file now", async () => {
    const { chat, asked } = server(() => restored("restore"));
    await chat.handle(parseWebviewMessage({ type: "reviewChange", toolCallId: "e1" })!);
    expect(asked.find((a) => a.method === "pi/session/fileChange")?.params).toEqual({ session: "s1", toolCallId: "e1" });
    const { left, right, title } = lastDiff();
    expect((await workspace.openTextDocument(left)).getText()).toBe("one\n");
    expect(right.toString()).toBe(Uri.file("/ws/a.txt").toString());
    expect(title).toBe("a.txt (before the agent's edit ↔ now)");
  });

  it("Revert puts back that one change and says so", async () => {
    const { chat, asked } = server(() => restored("restore"));
    await chat.handle(parseWebviewMessage({ type: "revertChange", toolCallId: "e1" })!);
    expect(asked.filter((a) => a.method === "pi/session/restoreFiles").map((a) => a.params)).toEqual([{ session: "s1", toolCallId: "e1" }]);
    expect(stub.messages.at(-1)).toEqual({ kind: "info", text: "pi-lsp: reverted the agent's change to a.txt." });
  });

  it("asks before overwriting a file changed since, and forces only when told", async () => {
    const { chat, asked } = server((params) => (params.force ? restored("restore", true) : restored("keep", true)));
    stub.answers.push(undefined);
    await chat.handle(parseWebviewMessage({ type: "revertChange", toolCallId: "e1" })!);
    expect(stub.asked.at(-1)).toMatchObject({ text: "a.txt was changed since the agent's edit.", items: [REVERT_ANYWAY] });
    expect(asked.filter((a) => a.method === "pi/session/restoreFiles")).toHaveLength(1);
    stub.answers.push(REVERT_ANYWAY);
    await chat.handle(parseWebviewMessage({ type: "revertChange", toolCallId: "e1" })!);
    expect(asked.filter((a) => a.method === "pi/session/restoreFiles").at(-1)?.params).toEqual({ session: "s1", toolCallId: "e1", force: true });
  });

  it("does not revert under unsaved changes in the editor", async () => {
    stub.files.set("/ws/a.txt", "ONE\n");
    stub.openDocument("/ws/a.txt", "ONE\nmine\n");
    const { chat, asked } = server(() => restored("restore"));
    await chat.handle(parseWebviewMessage({ type: "revertChange", toolCallId: "e1" })!);
    expect(asked.filter((a) => a.method === "pi/session/restoreFiles")).toEqual([]);
    expect(stub.messages.at(-1)?.kind).toBe("error");
  });
});
