import { beforeEach, describe, expect, it, vi } from "vitest";
import { ActiveSessionTracker } from "../src/activeSession";
import { ChatController, type ChatClient } from "../src/chat/controller";
import type { HostMessage, ToolItem } from "../src/chat/protocol";
import { chatHtml, CHAT_COMMANDS, CHAT_VIEW, registerChatView } from "../src/chat/view";
import { summary } from "./transcriptText";
import { CancellationToken, stub, Uri } from "./vscode-stub";

beforeEach(() => stub.reset());

type Handler = (params: Record<string, unknown>, token?: CancellationToken) => unknown;

/** A language client whose requests are answered by `handlers` (a missing one fails). */
function fakeClient(handlers: Record<string, Handler>) {
  const calls: { method: string; params: Record<string, unknown>; token?: CancellationToken }[] = [];
  const client: ChatClient = {
    async request<R>(method: string, params: object = {}, token?: unknown): Promise<R> {
      const call = { method, params: params as Record<string, unknown>, token: token as CancellationToken | undefined };
      calls.push(call);
      const handler = handlers[method];
      if (!handler) throw new Error(`unhandled ${method}`);
      return (await handler(call.params, call.token)) as R;
    },
  };
  return { client, calls };
}

const USAGE = {
  cwd: "/ws",
  session: null,
  model: { provider: "anthropic", id: "claude-x" },
  contextWindow: 128000,
  reserveTokens: 16384,
  threshold: 111616,
  total: 41200,
  estimated: true,
  categories: [
    { kind: "systemPrompt", label: "System prompt", tokens: 3000 },
    { kind: "contextFiles", label: "Context files", tokens: 6000 },
    { kind: "skills", label: "Skills", tokens: 1200 },
    { kind: "tools", label: "Tools", tokens: 2000 },
    { kind: "messages", label: "Messages", tokens: 29000 },
    { kind: "summaries", label: "Summaries", tokens: 0 },
  ],
};

const MODELS = {
  configPath: "/agent/models.json",
  models: [
    { provider: "anthropic", id: "claude-x", name: "Claude X", hasKey: true },
    { provider: "openai", id: "gpt-y", name: "GPT Y", hasKey: false },
  ],
  builtinProviders: [],
  selected: null,
};

/** One answer with a thinking part, a bash call with live output and a cut result, then text. */
function recordedTurn(session: string, turn: number): Record<string, unknown>[] {
  const events: Record<string, unknown>[] = [
    { type: "agent_start" },
    { type: "turn_start" },
    { type: "message_start", message: { role: "user", content: [{ type: "text", text: "list the files" }] } },
    { type: "message_end", message: { role: "user", content: [{ type: "text", text: "list the files" }] } },
    { type: "message_start", message: { role: "assistant", content: [] } },
    { type: "thinking_delta", contentIndex: 0, text: "The user wants " },
    { type: "thinking_delta", contentIndex: 0, text: "a listing." },
    { type: "text_delta", contentIndex: 1, text: "Let me " },
    { type: "text_delta", contentIndex: 1, text: "look." },
    {
      type: "message_end",
      message: {
        role: "assistant",
        stopReason: "toolUse",
        content: [
          { type: "thinking", thinking: "The user wants a listing." },
          { type: "text", text: "Let me look." },
          { type: "toolCall", id: "call-1", name: "bash", arguments: { command: "ls -la" } },
        ],
      },
    },
    { type: "tool_execution_start", toolCallId: "call-1", toolName: "bash", args: { command: "ls -la" } },
    { type: "tool_output", toolCallId: "call-1", toolName: "bash", text: "a.txt\n" },
    { type: "tool_output", toolCallId: "call-1", toolName: "bash", text: "b.txt\n" },
    {
      type: "tool_execution_end",
      toolCallId: "call-1",
      toolName: "bash",
      isError: false,
      result: {
        content: [{ type: "text", text: "b.txt\n\n[Showing lines 2-2 of 2. Full output: /tmp/x]" }],
        details: { truncation: { truncated: true, truncatedBy: "lines" }, fullOutputPath: "/tmp/x" },
      },
    },
    { type: "message_start", message: { role: "toolResult", toolCallId: "call-1", content: [] } },
    { type: "message_end", message: { role: "toolResult", toolCallId: "call-1", content: [] } },
    { type: "turn_end", toolResultCount: 1 },
    { type: "message_start", message: { role: "assistant", content: [] } },
    { type: "text_delta", contentIndex: 0, text: "Two files: **a.txt** and " },
    { type: "text_delta", contentIndex: 0, text: "**b.txt**." },
    { type: "message_end", message: { role: "assistant", stopReason: "stop", content: [{ type: "text", text: "Two files: **a.txt** and **b.txt**." }] } },
    { type: "turn_end", toolResultCount: 0 },
    { type: "agent_end", willRetry: false, messageCount: 5 },
    { type: "agent_settled" },
  ];
  return events.map((event, index) => ({ session, turn, seq: index + 1, ...event }));
}


function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe("the chat transcript", () => {
  it("follows a recorded turn in order: thinking, text, the tool card with live output, the answer", () => {
    const { client } = fakeClient({});
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: "/sessions/s1.jsonl", cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    posted.length = 0;
    for (const event of recordedTurn("s1", 1)) expect(chat.dispatch(event)).toBe(true);

    expect(summary(chat.transcript.items)).toEqual([
      "user: list the files",
      "assistant: thinking=The user wants a listing. | text=Let me look.",
      'tool bash [ls -la] done truncated: "a.txt\\nb.txt\\n"',
      "assistant: text=Two files: **a.txt** and **b.txt**.",
    ]);
    // Streamed pieces go out as deltas of one message, tool output as appended text.
    const deltas = posted.filter((m) => m.type === "textDelta");
    expect(deltas.map((m) => m.type === "textDelta" && [m.blockType, m.block, m.text])).toEqual([
      ["thinking", 0, "The user wants "],
      ["thinking", 0, "a listing."],
      ["text", 1, "Let me "],
      ["text", 1, "look."],
      ["text", 0, "Two files: **a.txt** and "],
      ["text", 0, "**b.txt**."],
    ]);
    const output = posted.filter((m) => m.type === "toolOutput");
    expect(output).toEqual([
      { type: "toolOutput", id: "call-1", text: "a.txt\n" },
      { type: "toolOutput", id: "call-1", text: "b.txt\n" },
    ]);
    // The card appears with the assistant message (pending), runs, ends.
    const cards = posted.filter((m): m is Extract<HostMessage, { type: "upsert" }> => m.type === "upsert" && m.item.kind === "tool");
    expect(cards.map((m) => (m.item as ToolItem).status)).toEqual(["pending", "running", "done"]);
  });

  it("ignores events of other sessions and repeated events, and takes an event after a gap", () => {
    const { client } = fakeClient({});
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: null, cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    const start = { session: "s1", turn: 1, seq: 1, type: "message_start", message: { role: "assistant" } };
    expect(chat.dispatch(start)).toBe(true);
    expect(chat.dispatch({ session: "s1", turn: 1, seq: 2, type: "text_delta", contentIndex: 0, text: "one " })).toBe(true);
    chat.dispatch({ session: "s1", turn: 1, seq: 2, type: "text_delta", contentIndex: 0, text: "one " });
    expect(chat.dispatch({ session: "other", turn: 1, seq: 3, type: "text_delta", contentIndex: 0, text: "alien " })).toBe(false);
    expect(chat.dispatch({ stream: "tool-1", seq: 1, type: "output", text: "runTool" })).toBe(false);
    chat.dispatch({ session: "s1", turn: 1, seq: 5, type: "text_delta", contentIndex: 0, text: "two" });
    expect(summary(chat.transcript.items)).toEqual(["assistant: text=one two"]);
  });

  it("gives a tool card its result when nothing was printed, an edit its diff, and marks cut results", () => {
    const { client } = fakeClient({});
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: null, cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    const events = [
      { type: "tool_execution_start", toolCallId: "r1", toolName: "read", args: { path: "src/a.ts", offset: 10, limit: 5 } },
      {
        type: "tool_execution_end",
        toolCallId: "r1",
        toolName: "read",
        isError: false,
        result: { content: [{ type: "text", text: "line 10\n\n[90 more lines in file. Use offset=15 to continue.]" }] },
      },
      { type: "tool_execution_start", toolCallId: "e1", toolName: "edit", args: { path: "src/a.ts", edits: [] } },
      {
        type: "tool_execution_end",
        toolCallId: "e1",
        toolName: "edit",
        isError: false,
        result: { content: [{ type: "text", text: "Successfully replaced 1 block(s) in src/a.ts." }], details: { diff: "-10 old\n+10 new" } },
      },
      { type: "tool_execution_start", toolCallId: "g1", toolName: "grep", args: { pattern: "TODO", path: "src" } },
      {
        type: "tool_execution_end",
        toolCallId: "g1",
        toolName: "grep",
        isError: false,
        result: { content: [{ type: "text", text: "a.ts:1: x\n\n[100 matches limit reached. Use limit=200 for more, or refine pattern]" }], details: { matchLimitReached: 100 } },
      },
      { type: "tool_execution_start", toolCallId: "b1", toolName: "bash", args: { command: "false" } },
      { type: "tool_execution_end", toolCallId: "b1", toolName: "bash", isError: true, result: { content: [{ type: "text", text: "(no output)\n\nCommand exited with code 1" }] } },
    ];
    events.forEach((event, index) => chat.dispatch({ session: "s1", turn: 1, seq: index + 1, ...event }));
    expect(summary(chat.transcript.items)).toEqual([
      'tool read [src/a.ts:10-14] done: "line 10\\n\\n[90 more lines in file. Use offset=15 to continue.]"',
      'tool edit [src/a.ts] done: "Successfully replaced 1 block(s) in src/a.ts.\\n-10 old\\n+10 new"',
      'tool grep [TODO in src] done truncated: "a.ts:1: x\\n\\n[100 matches limit reached. Use limit=200 for more, or refine pattern]"',
      'tool bash [false] error: "(no output)\\n\\nCommand exited with code 1"',
    ]);
  });

  it("shows retries, compactions and model errors as notices", () => {
    const { client } = fakeClient({});
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: null, cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    const events = [
      { type: "message_start", message: { role: "assistant" } },
      { type: "message_end", message: { role: "assistant", stopReason: "error", errorMessage: "429 rate limited", content: [] } },
      { type: "auto_retry_start", attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: "429 rate limited" },
      { type: "auto_retry_end", success: false, attempt: 3, finalError: "529 overloaded" },
      { type: "compaction_start", reason: "threshold" },
      { type: "compaction_end", reason: "threshold", result: { summary: "## Goal\nlist files", tokensBefore: 120500 }, aborted: false, willRetry: false },
    ];
    events.forEach((event, index) => chat.dispatch({ session: "s1", turn: 2, seq: index + 1, ...event }));
    expect(summary(chat.transcript.items)).toEqual([
      "assistant: ",
      "notice error: 429 rate limited",
      "notice error: Retries gave up: 529 overloaded",
      "notice info: Context compacted (121k tokens before)",
    ]);
    const compacted = chat.transcript.items.at(-1)!;
    expect(compacted.kind === "notice" && compacted.detail).toBe("## Goal\nlist files");
  });
});

describe("the chat controller", () => {
  it("sends the first prompt as a new session, follows its events, then makes it the active session", async () => {
    let send: (event: Record<string, unknown>) => void = () => undefined;
    const { client, calls } = fakeClient({
      "pi/chat": async (params) => {
        expect(params).toEqual({ text: "list the files" });
        for (const event of recordedTurn("new-1", 1)) send(event);
        return { session: "new-1", file: "/sessions/new-1.jsonl", cwd: "/ws", model: { provider: "anthropic", id: "claude-x" }, turn: 1, stopReason: "stop", text: "" };
      },
      "pi/session/usage": () => USAGE,
      "pi/models": () => MODELS,
    });
    const tracker = new ActiveSessionTracker();
    const changes: string[] = [];
    tracker.onDidChange((session, change) => changes.push(`${change.kind}:${session?.session ?? "-"}`));
    const chat = new ChatController(client, tracker);
    send = (event) => chat.dispatch(event);
    const states: boolean[] = [];
    chat.attach((message) => message.type === "state" && states.push(message.state.running));

    await chat.send("list the files");
    expect(tracker.current).toEqual({ session: "new-1", file: "/sessions/new-1.jsonl", cwd: "/ws" });
    expect(changes).toEqual(["switched:new-1", "updated:new-1"]);
    // The typed prompt shows once (the server's user message confirms it), then the answer.
    expect(summary(chat.transcript.items)[0]).toBe("user: list the files");
    expect(summary(chat.transcript.items).filter((line) => line.startsWith("user:"))).toHaveLength(1);
    expect(chat.transcript.items).toHaveLength(4);
    expect(states).toContain(true);
    expect(states.at(-1)).toBe(false);
    expect(chat.state.title).toBe("list the files");
    // After the turn the meter asks for the session's usage.
    await tick(350);
    const usage = calls.filter((call) => call.method === "pi/session/usage").at(-1)!;
    expect(usage.params).toEqual({ session: "new-1", file: "/sessions/new-1.jsonl" });
  });

  it("stops: the stop button cancels the pi/chat request and the view says it stopped", async () => {
    let token: CancellationToken | undefined;
    const { client } = fakeClient({
      "pi/chat": (_params, t) =>
        new Promise((_resolve, reject) => {
          token = t;
          chat.dispatch({ session: "s1", turn: 3, seq: 1, type: "message_start", message: { role: "assistant" } });
          chat.dispatch({ session: "s1", turn: 3, seq: 2, type: "text_delta", contentIndex: 0, text: "Working on" });
          t!.onCancellationRequested(() => {
            chat.dispatch({
              session: "s1",
              turn: 3,
              seq: 3,
              type: "message_end",
              message: { role: "assistant", stopReason: "aborted", content: [{ type: "text", text: "Working on" }] },
            });
            reject(Object.assign(new Error("Request cancelled"), { code: -32800 }));
          });
        }),
      "pi/session/usage": () => USAGE,
      "pi/models": () => MODELS,
    });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    const chat: ChatController = new ChatController(client, tracker);
    const sending = chat.send("do a long thing");
    await tick();
    expect(chat.running).toBe(true);
    expect(token!.isCancellationRequested).toBe(false);
    await chat.handle({ type: "stop" });
    await sending;
    expect(token!.isCancellationRequested).toBe(true);
    expect(chat.running).toBe(false);
    expect(summary(chat.transcript.items)).toEqual(["user: do a long thing", "assistant: text=Working on", "notice info: Stopped"]);
  });

  it("shows the server's error message when pi/chat fails", async () => {
    const { client } = fakeClient({
      "pi/chat": () => {
        throw new Error("pi/chat: no model with an API key; add one to models.json");
      },
      "pi/session/usage": () => USAGE,
    });
    const chat = new ChatController(client, new ActiveSessionTracker());
    await chat.send("hello");
    expect(summary(chat.transcript.items)).toEqual(["user: hello", "notice error: pi/chat: no model with an API key; add one to models.json"]);
    expect(chat.running).toBe(false);
  });

  it("queues a prompt sent while an answer runs as a follow-up", async () => {
    let finish: (value: unknown) => void = () => undefined;
    const { client, calls } = fakeClient({
      "pi/chat": (params) => (params.streamingBehavior ? { queued: "followUp" } : new Promise((resolve) => (finish = resolve))),
      "pi/session/usage": () => USAGE,
    });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: null, cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    const first = chat.send("first");
    await chat.send("and then this");
    expect(calls.filter((c) => c.method === "pi/chat").map((c) => c.params)).toEqual([
      { text: "first", session: "s1" },
      { text: "and then this", session: "s1", streamingBehavior: "followUp" },
    ]);
    expect(summary(chat.transcript.items).at(-1)).toBe("notice info: Queued: and then this");
    finish({ session: "s1", file: null, cwd: "/ws" });
    await first;
  });

  it("opens a saved session from the list and rebuilds its transcript from pi/session/messages", async () => {
    const { client, calls } = fakeClient({
      "pi/session/list": () => ({
        sessions: [
          { file: "/s/a.jsonl", id: "a", cwd: "/ws", name: null, modified: new Date().toISOString(), messageCount: 4, firstMessage: "fix the build" },
          { file: "/s/b.jsonl", id: "b", cwd: "/ws", name: "Refactor", modified: "2020-01-01T00:00:00Z", messageCount: 2, firstMessage: "refactor x" },
        ],
      }),
      "pi/session/messages": (params) => {
        expect(params).toEqual({ session: "a", file: "/s/a.jsonl" });
        return {
          session: null,
          file: "/s/a.jsonl",
          cwd: "/ws",
          leafId: "e6",
          entries: [
            { id: "e0", type: "model_change", provider: "anthropic", modelId: "claude-x" },
            { id: "e1", type: "message", message: { role: "user", content: "fix the build" } },
            {
              id: "e2",
              type: "message",
              message: { role: "assistant", content: [{ type: "text", text: "Reading it." }, { type: "toolCall", id: "t1", name: "read", arguments: { path: "Makefile" } }] },
            },
            {
              id: "e3",
              type: "message",
              message: { role: "toolResult", toolCallId: "t1", toolName: "read", isError: false, content: [{ type: "text", text: "all:\n\tcc x.c\n\n[Showing lines 1-2 of 122 (50KB limit). Use offset=3 to continue.]" }] },
            },
            { id: "e4", type: "compaction", summary: "Fixed the Makefile.", tokensBefore: 90000, firstKeptEntryId: "e5" },
            { id: "e5", type: "message", message: { role: "bashExecution", command: "make", output: "ok\n", exitCode: 0, cancelled: false, truncated: false } },
            { id: "e6", type: "message", message: { role: "assistant", content: [{ type: "text", text: "Done." }] } },
          ],
        };
      },
      "pi/session/usage": () => USAGE,
    });
    const tracker = new ActiveSessionTracker();
    const chat = new ChatController(client, tracker);
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    stub.picks = ["fix the build"];
    await chat.openSession();
    expect(tracker.current).toEqual({ session: "a", file: "/s/a.jsonl", cwd: "/ws" });
    await tick();
    expect(summary(chat.transcript.items)).toEqual([
      "user: fix the build",
      "assistant: text=Reading it.",
      'tool read [Makefile] done truncated: "all:\\n\\tcc x.c\\n\\n[Showing lines 1-2 of 122 (50KB limit). Use offset=3 to continue.]"',
      "notice info: Context compacted (90k tokens before)",
      'tool bash [make] done: "ok\\n"',
      "assistant: text=Done.",
    ]);
    const lastReset = posted.filter((m) => m.type === "reset").at(-1);
    expect(lastReset?.type === "reset" && lastReset.items.length).toBe(6);
    expect(chat.state.title).toBe("fix the build");
    expect(calls.map((c) => c.method)).toContain("pi/session/list");
    // Events of the session shown before are ignored; the opened session's are taken.
    expect(chat.dispatch({ session: "s-old", turn: 9, seq: 1, type: "text_delta", contentIndex: 0, text: "x" })).toBe(false);
    expect(chat.dispatch({ session: "a", turn: 2, seq: 1, type: "message_start", message: { role: "assistant" } })).toBe(true);
  });

  it("rebuilds after the session tree moved the leaf and puts the re-opened message in the prompt box", async () => {
    let entries: unknown[] = [{ id: "e1", type: "message", message: { role: "user", content: "first" } }];
    const { client } = fakeClient({
      "pi/session/messages": () => ({ entries }),
      "pi/session/usage": () => USAGE,
    });
    const tracker = new ActiveSessionTracker();
    const chat = new ChatController(client, tracker);
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    await tick();
    expect(summary(chat.transcript.items)).toEqual(["user: first"]);
    entries = [];
    tracker.leafMoved("first, but better");
    await tick();
    expect(chat.transcript.items).toEqual([]);
    expect(posted).toContainEqual({ type: "setPrompt", text: "first, but better" });
  });

  it("starts a new chat: the transcript empties and the tracker has no session", async () => {
    const { client } = fakeClient({ "pi/session/messages": () => ({ entries: [] }), "pi/session/usage": () => USAGE });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: null, cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    chat.dispatch({ session: "s1", turn: 1, seq: 1, type: "message_start", message: { role: "user", content: "hi" } });
    await chat.handle({ type: "newSession" });
    expect(tracker.current).toBeUndefined();
    expect(chat.transcript.items).toEqual([]);
    expect(chat.state.title).toBe("New chat");
  });

  it("fills the model picker from pi/models and switches the session's model with pi/model/select", async () => {
    const { client, calls } = fakeClient({
      "pi/models": () => MODELS,
      "pi/model/select": () => ({}),
      "pi/session/usage": () => ({ ...USAGE, model: { provider: "openai", id: "gpt-y" } }),
    });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    await chat.refreshModels();
    expect(chat.state.models).toEqual([
      { value: "anthropic/claude-x", label: "Claude X · anthropic" },
      { value: "openai/gpt-y", label: "GPT Y · openai (no key)" },
    ]);
    await chat.handle({ type: "selectModel", value: "openai/gpt-y" });
    expect(calls.find((c) => c.method === "pi/model/select")!.params).toEqual({ provider: "openai", model: "gpt-y", session: "s1", file: "/s/s1.jsonl" });
    expect(chat.state.model).toBe("openai/gpt-y");
  });

  it("shows a broken models.json once, and says nothing while the server is not running", async () => {
    let failure: Error = new Error("the pi-lsp server is not running");
    const { client } = fakeClient({
      "pi/models": () => {
        throw failure;
      },
    });
    const chat = new ChatController(client, new ActiveSessionTracker());
    await chat.refreshModels();
    expect(chat.transcript.items).toEqual([]);
    failure = Object.assign(new Error("/agent/models.json:3:5: Expected ',' or '}'"), { code: -32803 });
    await chat.refreshModels();
    await chat.refreshModels();
    expect(summary(chat.transcript.items)).toEqual(["notice error: The models could not be read: /agent/models.json:3:5: Expected ',' or '}'"]);
  });

  it("gives the meter the categories, window and threshold, asking again after the prompt changed", async () => {
    let total = 41200;
    const { client, calls } = fakeClient({ "pi/session/usage": () => ({ ...USAGE, total }) });
    const chat = new ChatController(client, new ActiveSessionTracker());
    const usages: HostMessage[] = [];
    chat.attach((message) => message.type === "usage" && usages.push(message));
    await tick(10);
    expect(calls.filter((c) => c.method === "pi/session/usage")[0]!.params).toEqual({});
    const last = usages.at(-1)!;
    expect(last.type === "usage" && last.usage).toEqual({
      contextWindow: 128000,
      threshold: 111616,
      total: 41200,
      estimated: true,
      categories: USAGE.categories,
    });
    total = 50000;
    chat.refreshUsage(5);
    chat.refreshUsage(5);
    await tick(30);
    expect(calls.filter((c) => c.method === "pi/session/usage")).toHaveLength(2);
    const again = usages.at(-1)!;
    expect(again.type === "usage" && again.usage?.total).toBe(50000);
  });
});

describe("the chat view", () => {
  /** A stand-in for the editor's webview view. */
  function fakeView() {
    const received: ((data: unknown) => void)[] = [];
    const visibility: (() => void)[] = [];
    const posted: HostMessage[] = [];
    const view = {
      visible: true,
      webview: {
        options: {} as { enableScripts?: boolean; localResourceRoots?: Uri[] },
        html: "",
        cspSource: "https://webview.test",
        asWebviewUri: (uri: Uri) => ({ toString: () => `https://webview.test${uri.path}` }),
        postMessage: async (message: HostMessage) => {
          posted.push(message);
          return true;
        },
        onDidReceiveMessage: (listener: (data: unknown) => void) => {
          received.push(listener);
          return { dispose: () => undefined };
        },
      },
      onDidChangeVisibility: (listener: () => void) => {
        visibility.push(listener);
        return { dispose: () => undefined };
      },
      onDidDispose: () => ({ dispose: () => undefined }),
    };
    return {
      view,
      posted,
      fromPage: (data: unknown) => received.forEach((listener) => listener(data)),
      setVisible: (visible: boolean) => {
        view.visible = visible;
        visibility.forEach((listener) => listener());
      },
    };
  }

  function setup() {
    const handlers: Record<string, Handler> = {
      "pi/session/usage": () => USAGE,
      "pi/models": () => MODELS,
      "pi/session/messages": () => ({ entries: [] }),
    };
    const { client, calls } = fakeClient(handlers);
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    const chat = registerChatView(client, tracker, Uri.file("/ext") as never);
    const registered = stub.webviewProviders.get(CHAT_VIEW)!;
    const provider = registered.provider as { resolveWebviewView(view: unknown): void };
    return { chat, calls, provider, registered, tracker };
  }

  it("serves a page with a nonce CSP that loads only the built script and style from dist/", () => {
    const { provider, registered } = setup();
    const { view } = fakeView();
    provider.resolveWebviewView(view);
    expect(registered.options).toEqual({ webviewOptions: { retainContextWhenHidden: false } });
    expect(view.webview.options.enableScripts).toBe(true);
    expect(view.webview.options.localResourceRoots!.map((uri) => uri.path)).toEqual(["/ext/dist"]);
    const html = view.webview.html;
    const nonce = /script-src 'nonce-([A-Za-z0-9]+)'/.exec(html)![1]!;
    expect(nonce.length).toBeGreaterThanOrEqual(16);
    expect(html).toContain(
      `content="default-src 'none'; script-src 'nonce-${nonce}'; style-src https://webview.test 'nonce-${nonce}'; img-src https://webview.test data:; font-src https://webview.test"`,
    );
    expect(html).toContain(`<script nonce="${nonce}" src="https://webview.test/ext/dist/webview.js"></script>`);
    expect(html).toContain('href="https://webview.test/ext/dist/chat.css"');
    expect(html).not.toMatch(/\son[a-z]+=/i);
    // Each page gets a fresh nonce.
    const again = fakeView();
    provider.resolveWebviewView(again.view);
    expect(again.view.webview.html).not.toContain(nonce);
    expect(chatHtml({ cspSource: "x", nonce: "n", scriptUri: 'a"><script>', styleUri: "s" })).toContain('src="a&quot;>&lt;script>"');
  });

  it("rebuilds the transcript into the page when it is shown again, and posts nothing while hidden", async () => {
    const { chat, provider } = setup();
    const page = fakeView();
    provider.resolveWebviewView(page.view);
    page.fromPage({ type: "ready" });
    await tick();
    expect(page.posted.map((m) => m.type).slice(0, 3)).toEqual(["reset", "state", "usage"]);
    chat.dispatch({ session: "s1", turn: 1, seq: 1, type: "message_start", message: { role: "assistant" } });
    chat.dispatch({ session: "s1", turn: 1, seq: 2, type: "text_delta", contentIndex: 0, text: "Hello " });
    expect(page.posted.at(-1)).toMatchObject({ type: "textDelta", text: "Hello " });

    page.setVisible(false);
    const before = page.posted.length;
    chat.dispatch({ session: "s1", turn: 1, seq: 3, type: "text_delta", contentIndex: 0, text: "world" });
    expect(page.posted.length).toBe(before);

    page.setVisible(true);
    page.fromPage({ type: "ready" });
    const reset = page.posted.slice(before).find((m) => m.type === "reset");
    expect(reset?.type === "reset" && reset.items).toEqual([{ kind: "assistant", id: expect.any(String), blocks: [{ type: "text", text: "Hello world" }], streaming: true }]);
  });

  it("validates what the page posts and routes tool cards and links to the editor", async () => {
    const { provider } = setup();
    const page = fakeView();
    provider.resolveWebviewView(page.view);
    page.fromPage({ type: "ready" });
    stub.commands.set("pi-lsp.openToolOutput", () => undefined);
    page.fromPage({ type: "openOutput", toolCallId: "call-7" });
    page.fromPage({ type: "openOutput", toolCallId: 7 });
    page.fromPage({ type: "openLink", href: "javascript:alert(1)" });
    page.fromPage({ type: "openLink", href: "command:workbench.action.terminal.new" });
    page.fromPage({ type: "openLink", href: "https://example.com/docs" });
    page.fromPage({ type: "runCommand", command: "workbench.action.closeWindow" });
    page.fromPage("send");
    await tick();
    expect(stub.executed).toEqual([{ command: "pi-lsp.openToolOutput", args: [{ session: "s1", toolCallId: "call-7" }] }]);
    expect(stub.external).toHaveLength(1);
    expect(stub.external[0]).toContain("example.com/docs");
  });

  it("registers the chat commands; Stop cancels the running request", async () => {
    let token: CancellationToken | undefined;
    const { client } = fakeClient({
      "pi/chat": (_p, t) => new Promise((_resolve, reject) => {
        token = t;
        t!.onCancellationRequested(() => reject(Object.assign(new Error("cancelled"), { code: -32800 })));
      }),
      "pi/session/usage": () => USAGE,
    });
    const tracker = new ActiveSessionTracker();
    const chat = registerChatView(client, tracker, Uri.file("/ext") as never);
    for (const id of Object.values(CHAT_COMMANDS)) expect(stub.commands.has(id)).toBe(true);
    const sending = chat.provider.controller.send("go");
    await tick();
    // While the answer runs the palette offers Stop (a context key).
    expect(stub.executed).toContainEqual({ command: "setContext", args: ["pi-lsp.chat.running", true] });
    await stub.commands.get(CHAT_COMMANDS.stop)!();
    await sending;
    expect(token!.isCancellationRequested).toBe(true);
    expect(chat.provider.controller.running).toBe(false);
    expect(stub.executed.filter((e) => e.command === "setContext").at(-1)).toEqual({ command: "setContext", args: ["pi-lsp.chat.running", false] });
    for (const disposable of chat.disposables) disposable.dispose();
    expect(stub.commands.has(CHAT_COMMANDS.stop)).toBe(false);
  });
});

describe("the package manifest", () => {
  it("contributes the pi-lsp container, the chat webview view, its commands and the focus key", async () => {
    const fs = await import("node:fs");
    const path = await import("node:path");
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));
    const contributes = manifest.contributes;
    expect(contributes.viewsContainers.activitybar).toContainEqual({ id: "pi-lsp", title: "pi-lsp", icon: "media/pi-lsp.svg" });
    expect(fs.existsSync(path.join(__dirname, "..", "media", "pi-lsp.svg"))).toBe(true);
    expect(contributes.views["pi-lsp"]).toContainEqual({ type: "webview", id: "pi-lsp.chat", name: "Chat" });
    const commands = contributes.commands.map((c: { command: string }) => c.command);
    for (const id of Object.values(CHAT_COMMANDS)) expect(commands).toContain(id);
    expect(contributes.keybindings).toContainEqual({ command: "pi-lsp.chat.focus", key: "ctrl+alt+i", mac: "cmd+alt+i" });
  });
});

vi.setConfig({ testTimeout: 5000 });
