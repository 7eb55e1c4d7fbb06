import { beforeEach, describe, expect, it } from "vitest";
import { ActiveSessionTracker } from "../src/activeSession";
import { applyCompletion, chatAttachmentParams, mentionedFiles, splitAttached, tokenAt, type CompletionItem } from "../src/chat/attachments";
import { ChatController, type ChatClient } from "../src/chat/controller";
import { parseHostMessage, parseWebviewMessage, type HostMessage } from "../src/chat/protocol";
import { CHAT_COMMANDS, registerChatView } from "../src/chat/view";
import { stub, Uri } from "./vscode-stub";

beforeEach(() => stub.reset());

type Handler = (params: Record<string, unknown>) => unknown;

function fakeClient(handlers: Record<string, Handler>) {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  const client: ChatClient = {
    async request<R>(method: string, params: object = {}): Promise<R> {
      calls.push({ method, params: params as Record<string, unknown> });
      const handler = handlers[method];
      if (!handler) throw new Error(`unhandled ${method}`);
      return (await handler(params as Record<string, unknown>)) as R;
    },
  };
  return { client, calls };
}

const BASE: Record<string, Handler> = {
  "pi/session/usage": () => ({ contextWindow: 0, threshold: 0, total: 0, estimated: true, usageTokens: 0, categories: [] }),
  "pi/models": () => ({ models: [], selected: null }),
  "pi/session/messages": () => ({ entries: [] }),
};

function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const PNG = "iVBORw0KGgo=";

describe("the @ and / tokens of the prompt box", () => {
  it("finds an @ mention anywhere and a / command only at the start", () => {
    expect(tokenAt("explain @src/ma", 15)).toEqual({ trigger: "@", start: 8, query: "src/ma" });
    expect(tokenAt("look at @\"my dir/no", 19)).toEqual({ trigger: "@", start: 8, query: "my dir/no" });
    expect(tokenAt("/rev", 4)).toEqual({ trigger: "/", start: 0, query: "rev" });
    expect(tokenAt("/skill:de", 9)).toEqual({ trigger: "/", start: 0, query: "skill:de" });
    expect(tokenAt("see a/b", 7)).toBeUndefined();
    expect(tokenAt("mail me@x", 9)).toBeUndefined();
    expect(tokenAt("@a.py done", 10)).toBeUndefined();
  });

  it("replaces the token with the pick: a space after a file or command, none after a folder", () => {
    const file: CompletionItem = { label: "src/app/main.py", insert: "src/app/main.py", kind: "file" };
    const folder: CompletionItem = { label: "src/app/", insert: "src/app/", kind: "folder" };
    const spaced: CompletionItem = { label: "my docs/a.md", insert: "my docs/a.md", kind: "file" };
    const command: CompletionItem = { label: "/review", insert: "/review", kind: "template" };
    expect(applyCompletion("fix @mai now", 8, tokenAt("fix @mai now", 8)!, file)).toEqual({ text: "fix @src/app/main.py now", cursor: 21 });
    expect(applyCompletion("in @ap", 6, tokenAt("in @ap", 6)!, folder)).toEqual({ text: "in @src/app/", cursor: 12 });
    expect(applyCompletion("@my", 3, tokenAt("@my", 3)!, spaced)).toEqual({ text: '@"my docs/a.md" ', cursor: 16 });
    expect(applyCompletion("/re", 3, tokenAt("/re", 3)!, command)).toEqual({ text: "/review ", cursor: 8 });
  });

  it("sends a picked file only while the prompt still mentions it, as a whole word", () => {
    const picked = ["src/a.py", "b.md", "my docs/c.md"];
    expect(mentionedFiles('use @src/a.py and @"my docs/c.md"', picked)).toEqual(["src/a.py", "my docs/c.md"]);
    expect(mentionedFiles("use @src/a.pyc", picked)).toEqual([]);
  });

  it("reads a sent prompt back: the file blocks in front become labels", () => {
    const text = '<file name="/ws/src/a.py">\nx = 1\n</file>\n<file name="/ws/b.py" lines="3-4">\ny\n</file>\nexplain';
    expect(splitAttached(text)).toEqual({ labels: ["a.py", "b.py:3-4"], text: "explain" });
    expect(splitAttached('<file name="/ws/a.py">no end')).toEqual({ labels: [], text: '<file name="/ws/a.py">no end' });
  });

  it("checks what the page posts: a bad attachment makes the whole message void", () => {
    const image = { kind: "image", mimeType: "image/png", data: PNG, name: "shot.png" };
    expect(parseWebviewMessage({ type: "send", text: "hi", attachments: [image] })).toEqual({ type: "send", text: "hi", attachments: [image] });
    expect(parseWebviewMessage({ type: "send", text: "hi", attachments: [{ ...image, mimeType: "image/svg+xml" }] })).toBeUndefined();
    expect(parseWebviewMessage({ type: "send", text: "hi", attachments: [{ kind: "selection", path: "/a", startLine: 0, endLine: 1, text: "" }] })).toBeUndefined();
    expect(parseWebviewMessage({ type: "complete", requestId: 3, trigger: "#", query: "" })).toBeUndefined();
    expect(parseHostMessage({ type: "completions", requestId: 1, items: [{ label: "a", insert: "a", kind: "script" }] })).toBeUndefined();
  });
});

describe("the chat controller's completions and attachments", () => {
  function setup(extra: Record<string, Handler> = {}) {
    const { client, calls } = fakeClient({ ...BASE, ...extra });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    return { chat, calls, posted };
  }

  it("asks the server for files after @ and for templates and skills after /, in the session's cwd", async () => {
    const { chat, calls, posted } = setup({
      "pi/complete/files": () => ({ cwd: "/ws", items: [{ path: "src/", kind: "folder" }, { path: "src/main.py", kind: "file" }], indexed: 2, truncated: false }),
      "pi/complete/commands": () => ({ items: [{ name: "skill:deploy", insert: "/skill:deploy", description: "Ship it", kind: "skill" }] }),
    });
    await chat.handle({ type: "complete", requestId: 7, trigger: "@", query: "src" });
    await chat.handle({ type: "complete", requestId: 8, trigger: "/", query: "skill:" });
    expect(calls.filter((c) => c.method.startsWith("pi/complete")).map((c) => [c.method, c.params])).toEqual([
      ["pi/complete/files", { query: "src", limit: 50, cwd: "/ws" }],
      ["pi/complete/commands", { prefix: "skill:", cwd: "/ws" }],
    ]);
    expect(posted.filter((m) => m.type === "completions")).toEqual([
      { type: "completions", requestId: 7, items: [{ label: "src/", insert: "src/", kind: "folder" }, { label: "src/main.py", insert: "src/main.py", kind: "file" }] },
      { type: "completions", requestId: 8, items: [{ label: "/skill:deploy", insert: "/skill:deploy", kind: "skill", detail: "Ship it" }] },
    ]);
  });

  it("sends files, selections and images as pi/chat attachments and shows them on the prompt", async () => {
    const { chat, calls } = setup({ "pi/chat": () => ({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" }) });
    await chat.handle({
      type: "send",
      text: "explain @src/a.py",
      attachments: [
        { kind: "selection", path: "/ws/b.py", startLine: 3, endLine: 4, text: "y = 2" },
        { kind: "image", mimeType: "image/png", data: PNG, name: "shot.png" },
        { kind: "file", path: "src/a.py" },
      ],
    });
    const sent = calls.find((c) => c.method === "pi/chat")!.params;
    expect(sent).toEqual({
      text: "explain @src/a.py",
      session: "s1",
      file: "/s/s1.jsonl",
      files: ["src/a.py"],
      selections: [{ path: "/ws/b.py", startLine: 3, endLine: 4, text: "y = 2" }],
      images: [{ mimeType: "image/png", data: PNG }],
    });
    const user = chat.transcript.items.find((item) => item.kind === "user");
    expect(user).toMatchObject({ text: "explain @src/a.py", attachments: ["b.py:3-4", "shot.png", "a.py"] });
  });

  it("gives a refused prompt back with its attachments, the server's reason shown", async () => {
    const refusal = Object.assign(new Error("pi/chat: local/text-only does not accept images; remove the images or choose a model that accepts them"), { code: -32803 });
    const { chat, posted } = setup({
      "pi/chat": () => {
        throw refusal;
      },
    });
    const image = { kind: "image" as const, mimeType: "image/png", data: PNG, name: "shot.png" };
    posted.length = 0;
    await chat.send("what is this?", [image]);
    const notice = chat.transcript.items.find((item) => item.kind === "notice");
    expect(notice).toMatchObject({ level: "error", text: refusal.message });
    expect(posted.filter((m) => m.type === "setPrompt" || m.type === "attach")).toEqual([
      { type: "setPrompt", text: "what is this?" },
      { type: "attach", attachment: image },
    ]);
  });

  it("shows a reloaded prompt's files as labels, not as the file text the model read", () => {
    const { chat } = setup();
    chat.transcript.load([
      {
        type: "message",
        id: "e1",
        message: {
          role: "user",
          content: [
            { type: "text", text: '<file name="/ws/src/a.py">\ndef a(): ...\n</file>\nwhat does a do?' },
            { type: "image", mimeType: "image/png", data: PNG },
          ],
        },
      },
    ]);
    expect(chat.transcript.items[0]).toMatchObject({ kind: "user", text: "what does a do?", attachments: ["a.py", "pasted image"] });
  });
});

describe("Add selection to chat and the active file", () => {
  function setup() {
    const { client } = fakeClient(BASE);
    const tracker = new ActiveSessionTracker();
    const chat = registerChatView(client, tracker, Uri.file("/ext") as never);
    return { chat, controller: chat.provider.controller };
  }

  it("attaches the selected lines with their file, also when the page is shown only then", async () => {
    const { controller } = setup();
    stub.commands.set("pi-lsp.chat.focus", () => undefined);
    stub.activeFile = "/ws/src/a.py";
    stub.activeSelection = { startLine: 2, endLine: 5, text: "line two\nthree\nfour\nfive" };
    await stub.commands.get(CHAT_COMMANDS.addSelection)!();
    // The page was not there yet: it gets the selection when it is ready.
    const posted: HostMessage[] = [];
    controller.attach((message) => posted.push(message));
    await tick();
    expect(posted.filter((m) => m.type === "attach")).toEqual([
      { type: "attach", attachment: { kind: "selection", path: "/ws/src/a.py", startLine: 2, endLine: 5, text: "line two\nthree\nfour\nfive" } },
    ]);
    expect(chatAttachmentParams([{ kind: "selection", path: "/ws/src/a.py", startLine: 2, endLine: 5, text: "x" }])).toEqual({
      selections: [{ path: "/ws/src/a.py", startLine: 2, endLine: 5, text: "x" }],
    });
  });

  it("attaches the active file with one click, and says so when there is none", async () => {
    const { controller } = setup();
    const posted: HostMessage[] = [];
    controller.attach((message) => posted.push(message));
    await controller.handle({ type: "attachActiveFile" });
    expect(controller.transcript.items.at(-1)).toMatchObject({ kind: "notice", text: "No file is open in the editor to attach." });
    stub.activeFile = "/ws/README.md";
    await controller.handle({ type: "attachActiveFile" });
    expect(posted.filter((m) => m.type === "attach")).toEqual([{ type: "attach", attachment: { kind: "file", path: "/ws/README.md" } }]);
    stub.activeSelection = undefined;
    stub.commands.set("pi-lsp.chat.focus", () => undefined);
    await stub.commands.get(CHAT_COMMANDS.addSelection)!();
    expect(controller.transcript.items.at(-1)).toMatchObject({ kind: "notice", text: "Select some lines in an editor first." });
  });
});
