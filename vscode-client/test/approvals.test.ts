import { beforeEach, describe, expect, it } from "vitest";
import { ActiveSessionTracker } from "../src/activeSession";
import { ChatController, FOCUS_CHAT, type ChatClient } from "../src/chat/controller";
import { parseHostMessage, parseWebviewMessage, type ApprovalItem, type HostMessage } from "../src/chat/protocol";
import { summary } from "./transcriptText";
import { CancellationToken, stub } from "./vscode-stub";

beforeEach(() => stub.reset());

/** A client for the controller's own requests (models, meter): answered, never looked at here. */
const client: ChatClient = {
  async request<R>(method: string): Promise<R> {
    if (method === "pi/models") return { models: [], selected: null } as R;
    throw new Error(`unhandled ${method}`);
  },
};

function controller(): { chat: ChatController; posted: HostMessage[] } {
  const chat = new ChatController(client, new ActiveSessionTracker());
  const posted: HostMessage[] = [];
  chat.attach((message) => posted.push(message));
  posted.length = 0;
  return { chat, posted };
}

/** The cards the page was sent, as it checks them (each must pass `parseHostMessage`). */
function cards(posted: readonly HostMessage[]): ApprovalItem[] {
  return posted
    .map((m) => parseHostMessage(JSON.parse(JSON.stringify(m))))
    .flatMap((m) => (m?.type === "upsert" && m.item.kind === "approval" ? [m.item] : []));
}

const BASH = { session: "s1", toolCallId: "call_0", tool: "bash", command: "rm -rf build", cwd: "/ws" };
const EDIT = {
  session: "s1",
  toolCallId: "call_1",
  tool: "edit",
  path: "/ws/notes.txt",
  displayPath: "notes.txt",
  cwd: "/ws",
  newFile: false,
  diff: "--- notes.txt\n+++ notes.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n",
};

describe("pi/approve in the chat", () => {
  it("shows a bash call as an open card and answers allow once", async () => {
    const { chat, posted } = controller();
    const answer = chat.approve(BASH);
    const [card] = cards(posted);
    expect(card).toMatchObject({ kind: "approval", tool: "bash", subject: "rm -rf build", where: "/ws", status: "open", toolCallId: "call_0" });
    await chat.handle(parseWebviewMessage({ type: "approve", id: card!.id, decision: "allow" })!);
    expect(await answer).toEqual({ decision: "allow" });
    expect(cards(posted).at(-1)?.status).toBe("allowed");
    expect(summary(chat.transcript.items)).toEqual(["approval bash [rm -rf build] allowed"]);
  });

  it("carries an edit's diff and a denial's reason back to the server", async () => {
    const { chat, posted } = controller();
    const answer = chat.approve(EDIT);
    const [card] = cards(posted);
    expect(card).toMatchObject({ tool: "edit", subject: "notes.txt", where: "/ws/notes.txt", diff: EDIT.diff });
    await chat.handle(parseWebviewMessage({ type: "approve", id: card!.id, decision: "deny", reason: "  keep it lower case " })!);
    expect(await answer).toEqual({ decision: "deny", reason: "keep it lower case" });
    expect(summary(chat.transcript.items)).toEqual(["approval edit [notes.txt] denied: keep it lower case"]);
  });

  it("answers allow for the session", async () => {
    const { chat, posted } = controller();
    const answer = chat.approve({ ...EDIT, tool: "write", newFile: true });
    const [card] = cards(posted);
    expect(card?.newFile).toBe(true);
    await chat.handle(parseWebviewMessage({ type: "approve", id: card!.id, decision: "allowSession" })!);
    expect(await answer).toEqual({ decision: "allowSession" });
    expect(cards(posted).at(-1)?.status).toBe("allowedSession");
  });

  it("closes the card without an answer when the server withdraws the question", async () => {
    const { chat, posted } = controller();
    const token = new CancellationToken();
    const answer = chat.approve(BASH, token);
    const [card] = cards(posted);
    token.cancel();
    await answer;
    expect(cards(posted).at(-1)).toMatchObject({ id: card!.id, status: "withdrawn" });
    // A late click changes nothing.
    const before = posted.length;
    await chat.handle(parseWebviewMessage({ type: "approve", id: card!.id, decision: "allow" })!);
    expect(posted.length).toBe(before);
  });

  it("denies a question it cannot show, and brings up a hidden chat for one it can", async () => {
    const chat = new ChatController(client, new ActiveSessionTracker());
    expect(await chat.approve({ tool: "rm", toolCallId: "x" })).toMatchObject({ decision: "deny" });
    expect(await chat.approve({ tool: "bash" })).toMatchObject({ decision: "deny" });
    void chat.approve(BASH);
    expect(stub.executed.map((e) => e.command)).toContain(FOCUS_CHAT);
    chat.dispose();
  });

  it("takes only well-formed answers from the page", () => {
    expect(parseWebviewMessage({ type: "approve", id: "approval-1", decision: "always" })).toBeUndefined();
    expect(parseWebviewMessage({ type: "approve", id: 3, decision: "allow" })).toBeUndefined();
    expect(parseWebviewMessage({ type: "approve", id: "approval-1", decision: "deny", reason: 5 })).toBeUndefined();
    expect(parseWebviewMessage({ type: "approve", id: "approval-1", decision: "deny", reason: "  " })).toEqual({
      type: "approve",
      id: "approval-1",
      decision: "deny",
    });
    expect(parseHostMessage({ type: "upsert", item: { kind: "approval", id: "a", toolCallId: "c", tool: "bash", subject: "ls", where: "/", status: "maybe" } })).toBeUndefined();
  });
});
