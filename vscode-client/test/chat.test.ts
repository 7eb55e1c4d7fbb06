import { beforeEach, describe, expect, it, vi } from "vitest";
import { ActiveSessionTracker } from "../src/activeSession";
import { ChatController, type ChatClient } from "../src/chat/controller";
import { parseHostMessage, parseWebviewMessage, type HostMessage, type ToolItem, type ViewState } from "../src/chat/protocol";
import { chatHtml, CHAT_COMMANDS, CHAT_VIEW, registerChatView } from "../src/chat/view";
import { summary } from "./transcriptText";
import { CancellationToken, stub, Uri, window as stubWindow } from "./vscode-stub";

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
  usageTokens: 39000,
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
    { provider: "anthropic", id: "claude-x", name: "Claude X", hasKey: true, reasoning: true },
    { provider: "openai", id: "gpt-y", name: "GPT Y", hasKey: false, reasoning: false },
  ],
  builtinProviders: [],
  selected: null,
};

/** The last `state` the page was sent. */
function lastState(posted: readonly HostMessage[]): ViewState | undefined {
  const last = posted.filter((m) => m.type === "state").at(-1);
  return last?.type === "state" ? last.state : undefined;
}

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
    let activeDuringTheAnswer: string | undefined;
    const { client, calls } = fakeClient({
      "pi/chat": async (params) => {
        expect(params).toEqual({ text: "list the files" });
        for (const event of recordedTurn("new-1", 1)) send(event);
        // while the answer still runs, the new session is already the active one
        await tick(5);
        activeDuringTheAnswer = tracker.current?.session;
        return { session: "new-1", file: "/sessions/new-1.jsonl", cwd: "/ws", model: { provider: "anthropic", id: "claude-x" }, turn: 1, stopReason: "stop", text: "" };
      },
      "pi/session/messages": () => ({ session: "new-1", file: "/sessions/new-1.jsonl", cwd: "/ws", leafId: null, entries: [] }),
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
    expect(activeDuringTheAnswer).toBe("new-1");
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

  it("offers every model Pi knows from the picker, each with where its key comes from", async () => {
    const every = {
      ...MODELS,
      models: [
        { provider: "anthropic", id: "claude-x", hasKey: true, keySource: "$ANTHROPIC_API_KEY", unreachable: null },
        { provider: "openrouter", id: "kimi", hasKey: false, keySource: null, unreachable: null },
        { provider: "amazon-bedrock", id: "nova", hasKey: false, keySource: null, unreachable: "it signs its requests with AWS credentials" },
      ],
    };
    const { client, calls } = fakeClient({
      "pi/models": (params) => (params?.all ? every : MODELS),
      "pi/model/select": () => {
        throw new Error('no API key for provider "openrouter": set $OPENROUTER_API_KEY');
      },
    });
    const chat = new ChatController(client, new ActiveSessionTracker());
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    const shown: { label: string; description?: string; detail?: string }[][] = [];
    const original = stubWindow.showQuickPick;
    stubWindow.showQuickPick = async (items: { label: string; description?: string; detail?: string }[]) => {
      shown.push(items);
      return items.find((item) => item.label === (shown.length === 1 ? "All models Pi knows…" : "openrouter/kimi"));
    };
    try {
      await chat.pickModel();
    } finally {
      stubWindow.showQuickPick = original;
    }
    expect(shown[0]!.map((item) => item.label).at(-1)).toBe("All models Pi knows…");
    expect(calls.filter((c) => c.method === "pi/models").at(-1)!.params).toEqual({ all: true });
    expect(shown[1]).toEqual([
      { label: "anthropic/claude-x", description: "key: $ANTHROPIC_API_KEY", detail: undefined, value: "anthropic/claude-x" },
      { label: "openrouter/kimi", description: "no key", detail: undefined, value: "openrouter/kimi" },
      { label: "amazon-bedrock/nova", description: "pi-lsp cannot reach it yet", detail: "it signs its requests with AWS credentials", value: "amazon-bedrock/nova" },
    ]);
    // choosing a model without a key tells which variable to set
    expect(JSON.stringify(posted)).toContain("set $OPENROUTER_API_KEY");
  });

  it("switches the session's thinking level with pi/model/select and shows the level the server answers", async () => {
    const { client, calls } = fakeClient({
      "pi/models": () => ({ ...MODELS, selected: { provider: "anthropic", id: "claude-x" } }),
      "pi/model/select": (params) => ({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws", model: { provider: "anthropic", id: "claude-x" }, thinkingLevel: params.thinkingLevel }),
      "pi/session/usage": () => USAGE,
    });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    const changes: string[] = [];
    tracker.onDidChange((session, change) => changes.push(`${change.kind}:${session?.session ?? "-"}`));
    const chat = new ChatController(client, tracker);
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    await chat.refreshModels();
    expect(lastState(posted)).toMatchObject({ model: "anthropic/claude-x", reasoning: true, thinking: "" });

    await chat.handle({ type: "selectThinking", value: "high" });
    expect(calls.filter((c) => c.method === "pi/model/select").map((c) => c.params)).toEqual([{ thinkingLevel: "high", session: "s1", file: "/s/s1.jsonl" }]);
    expect(lastState(posted)).toMatchObject({ thinking: "high", reasoning: true });
    // The Session view is told, so it shows the new "Thinking: high" entry.
    expect(changes).toEqual(["updated:s1"]);
    expect(chat.transcript.items).toEqual([]);
  });

  it("takes the level from each pi/chat result, from an opened session's last change, and starts a new chat at the default", async () => {
    let level = "medium";
    const { client } = fakeClient({
      "pi/chat": () => ({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws", model: { provider: "anthropic", id: "claude-x" }, thinkingLevel: level, turn: 2, stopReason: "stop", text: "" }),
      "pi/models": () => MODELS,
      "pi/session/usage": () => USAGE,
      "pi/session/list": () => ({
        sessions: [{ file: "/s/b.jsonl", id: "b", cwd: "/ws", name: "Refactor", modified: "2020-01-01T00:00:00Z", messageCount: 2, firstMessage: "refactor x" }],
      }),
      "pi/session/messages": () => ({
        entries: [
          { id: "e0", type: "model_change", provider: "anthropic", modelId: "claude-x" },
          { id: "e1", type: "thinking_level_change", thinkingLevel: "low" },
          { id: "e2", type: "message", message: { role: "user", content: "refactor x" } },
          { id: "e3", type: "thinking_level_change", thinkingLevel: "xhigh" },
          { id: "e4", type: "message", message: { role: "assistant", content: [{ type: "text", text: "Done." }] } },
        ],
      }),
    });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    await chat.refreshModels();
    await chat.send("go on");
    expect(lastState(posted)).toMatchObject({ model: "anthropic/claude-x", thinking: "medium", running: false });
    level = "minimal";
    await chat.send("and more");
    expect(lastState(posted)?.thinking).toBe("minimal");

    stub.picks = ["Refactor"];
    await chat.openSession();
    await tick();
    expect(tracker.current?.session).toBe("b");
    expect(lastState(posted)).toMatchObject({ title: "Refactor", thinking: "xhigh" });

    await chat.handle({ type: "newSession" });
    expect(lastState(posted)).toMatchObject({ title: "New chat", thinking: "" });
  });

  it("keeps the level picked in a new chat for its first prompt", async () => {
    const { client, calls } = fakeClient({
      "pi/chat": (params) => ({ session: "n1", file: "/s/n1.jsonl", cwd: "/ws", model: { provider: "anthropic", id: "claude-x" }, thinkingLevel: params.thinkingLevel, turn: 1, stopReason: "stop", text: "" }),
      "pi/models": () => MODELS,
      "pi/session/usage": () => USAGE,
    });
    const tracker = new ActiveSessionTracker();
    const chat = new ChatController(client, tracker);
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    await chat.refreshModels();
    await chat.handle({ type: "selectThinking", value: "low" });
    // No session yet: nothing to switch, the picker shows the level.
    expect(calls.filter((c) => c.method === "pi/model/select")).toEqual([]);
    expect(lastState(posted)?.thinking).toBe("low");
    await chat.send("hello");
    expect(calls.find((c) => c.method === "pi/chat")!.params).toEqual({ text: "hello", thinkingLevel: "low" });
    expect(tracker.current?.session).toBe("n1");
    expect(lastState(posted)?.thinking).toBe("low");
  });

  it("shows thinking off and disabled for a model without reasoning, and changes nothing there", async () => {
    const { client, calls } = fakeClient({
      "pi/models": () => ({ ...MODELS, selected: { provider: "openai", id: "gpt-y" } }),
      "pi/model/select": (params) => ({ session: "s1", model: { provider: params.provider, id: params.model }, thinkingLevel: params.model === "gpt-y" ? "off" : "high" }),
      "pi/session/usage": () => ({ ...USAGE, model: { provider: "openai", id: "gpt-y" } }),
    });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: null, cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    await chat.refreshModels();
    expect(lastState(posted)).toMatchObject({ model: "openai/gpt-y", reasoning: false, thinking: "off" });
    await chat.handle({ type: "selectThinking", value: "high" });
    expect(calls.filter((c) => c.method === "pi/model/select")).toEqual([]);
    expect(lastState(posted)).toMatchObject({ reasoning: false, thinking: "off" });
    expect(summary(chat.transcript.items)).toEqual(["notice info: This model does not reason: thinking stays off."]);
    // Switching to a model that reasons gives the picker back, at the level the session answers.
    await chat.handle({ type: "selectModel", value: "anthropic/claude-x" });
    expect(lastState(posted)).toMatchObject({ model: "anthropic/claude-x", reasoning: true, thinking: "high" });
  });

  it("leaves the level as it was when the server refuses (a busy session) and while an answer runs", async () => {
    let finish: (value: unknown) => void = () => undefined;
    const { client, calls } = fakeClient({
      "pi/models": () => ({ ...MODELS, selected: { provider: "anthropic", id: "claude-x" } }),
      "pi/model/select": () => {
        throw Object.assign(new Error("Wait for the current response to finish before changing the model."), { code: -32803 });
      },
      "pi/chat": () => new Promise((resolve) => (finish = resolve)),
      "pi/session/usage": () => USAGE,
      "pi/session/messages": () => ({ entries: [{ id: "t1", type: "thinking_level_change", thinkingLevel: "medium" }] }),
    });
    const tracker = new ActiveSessionTracker();
    const chat = new ChatController(client, tracker);
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    await chat.refreshModels();
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    await tick();
    expect(lastState(posted)?.thinking).toBe("medium");

    const states = posted.length;
    await chat.handle({ type: "selectThinking", value: "xhigh" });
    expect(summary(chat.transcript.items).at(-1)).toBe("notice error: The thinking level was not changed: Wait for the current response to finish before changing the model.");
    // The page is told the level that holds, so its picker goes back.
    expect(lastState(posted.slice(states))?.thinking).toBe("medium");

    const sending = chat.send("work");
    await tick();
    const asked = calls.filter((c) => c.method === "pi/model/select").length;
    await chat.handle({ type: "selectThinking", value: "low" });
    expect(calls.filter((c) => c.method === "pi/model/select")).toHaveLength(asked);
    expect(summary(chat.transcript.items).at(-1)).toBe("notice info: The thinking level can be changed when the answer has finished.");
    expect(lastState(posted)).toMatchObject({ running: true, thinking: "medium" });
    finish({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws", thinkingLevel: "medium" });
    await sending;
    expect(lastState(posted)).toMatchObject({ running: false, thinking: "medium" });
  });

  it("takes only the six levels from the page, and a state only with its level", () => {
    for (const value of ["off", "minimal", "low", "medium", "high", "xhigh"]) {
      expect(parseWebviewMessage({ type: "selectThinking", value })).toEqual({ type: "selectThinking", value });
    }
    for (const value of ["max", "HIGH", "", 3, undefined]) expect(parseWebviewMessage({ type: "selectThinking", value })).toBeUndefined();
    const state = { running: false, models: [], model: "", thinking: "high", reasoning: true, title: "New chat" };
    expect(parseHostMessage({ type: "state", state })).toEqual({ type: "state", state });
    expect(parseHostMessage({ type: "state", state: { ...state, thinking: "" } })).toBeDefined();
    expect(parseHostMessage({ type: "state", state: { ...state, thinking: "turbo" } })).toBeUndefined();
    expect(parseHostMessage({ type: "state", state: { ...state, reasoning: "yes" } })).toBeUndefined();
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
      usageTokens: 39000,
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
    // Links are opened by VS Code's webview host itself: the extension opens none (not twice).
    expect(stub.external).toEqual([]);
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
    expect(contributes.keybindings).toContainEqual({ command: "pi-lsp.chat.focus", key: "ctrl+shift+alt+i", mac: "cmd+shift+alt+i" });
  });
});

vi.setConfig({ testTimeout: 5000 });

describe("review fixes", () => {
  /** An assistant answer of one text piece, as events of `turn` from seq 1. */
  function answer(session: string, turn: number, text: string): Record<string, unknown>[] {
    return [
      { type: "message_start", message: { role: "assistant", content: [] } },
      { type: "text_delta", contentIndex: 0, text },
      { type: "message_end", message: { role: "assistant", stopReason: "stop", content: [{ type: "text", text }] } },
    ].map((event, index) => ({ session, turn, seq: index + 1, ...event }));
  }

  it("keeps showing answers after a server restart, which counts turns from 1 again (a new epoch)", () => {
    const { client } = fakeClient({});
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    for (const event of answer("s1", 3, "before")) chat.dispatch(event);
    chat.dispatch({ session: "s1", turn: 3, seq: 4, type: "auto_retry_start", attempt: 1, maxAttempts: 3, errorMessage: "overloaded" });
    // The server restarted: the same session id, turns from 1 again, without serverStarted.
    for (const event of answer("s1", 1, "after restart")) chat.dispatch(event);
    chat.dispatch({ session: "s1", turn: 1, seq: 4, type: "auto_retry_start", attempt: 1, maxAttempts: 3, errorMessage: "again" });
    // And once more, told by serverStarted: turn 1 again gets its own retry notice.
    chat.serverStarted();
    for (const event of answer("s1", 1, "second restart")) chat.dispatch(event);
    chat.dispatch({ session: "s1", turn: 1, seq: 4, type: "auto_retry_start", attempt: 2, maxAttempts: 3, errorMessage: "third" });
    // A repeated event of the current turn is still dropped.
    chat.dispatch({ session: "s1", turn: 1, seq: 2, type: "text_delta", contentIndex: 0, text: "dup" });
    expect(summary(chat.transcript.items)).toEqual([
      "assistant: text=before",
      "notice info: Retrying (attempt 1/3): overloaded",
      "assistant: text=after restart",
      "notice info: Retrying (attempt 1/3): again",
      "assistant: text=second restart",
      "notice info: Retrying (attempt 2/3): third",
    ]);
  });

  it("the view's serverStarted resets the watermark", () => {
    const handlers: Record<string, Handler> = { "pi/session/usage": () => USAGE, "pi/models": () => MODELS };
    const { client } = fakeClient(handlers);
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: null, cwd: "/ws" });
    const chat = registerChatView(client, tracker, Uri.file("/ext") as never);
    const controller = chat.provider.controller;
    for (const event of answer("s1", 1, "one")) chat.dispatch(event);
    chat.serverStarted();
    // Turn 1 again, seqs 1..3 again: not duplicates.
    for (const event of answer("s1", 1, "two")) chat.dispatch(event);
    expect(summary(controller.transcript.items)).toEqual(["assistant: text=one", "assistant: text=two"]);
    for (const disposable of chat.disposables) disposable.dispose();
  });

  it("after Stop on a new chat's first answer the adopted session is active and the next prompt continues it", async () => {
    let chats = 0;
    const { client, calls } = fakeClient({
      "pi/chat": (params, token) => {
        chats += 1;
        if (chats === 1) {
          return new Promise((_resolve, reject) => {
            for (const event of answer("new-1", 1, "partial")) chat.dispatch(event);
            token!.onCancellationRequested(() => reject(Object.assign(new Error("Request cancelled"), { code: -32800 })));
          });
        }
        expect(params).toMatchObject({ session: "new-1", file: "/s/new-1.jsonl" });
        // The second prompt is turn 2 of the same session, seqs from 1 again.
        for (const event of answer("new-1", 2, "the rest")) chat.dispatch(event);
        return { session: "new-1", file: "/s/new-1.jsonl", cwd: "/ws" };
      },
      "pi/session/messages": (params) => ({ session: params.session, file: "/s/new-1.jsonl", cwd: "/ws", entries: [] }),
      "pi/session/usage": () => USAGE,
    });
    const tracker = new ActiveSessionTracker();
    const chat: ChatController = new ChatController(client, tracker);
    const first = chat.send("start something");
    await tick();
    chat.stop();
    await first;
    expect(tracker.current).toEqual({ session: "new-1", file: "/s/new-1.jsonl", cwd: "/ws" });
    await chat.send("go on");
    expect(calls.filter((call) => call.method === "pi/chat")).toHaveLength(2);
    expect(summary(chat.transcript.items)).toEqual([
      "user: start something",
      "assistant: text=partial",
      "notice info: Stopped",
      "user: go on",
      "assistant: text=the rest",
    ]);
  });

  it("a new chat after another session's events shows its own turn 1 (the watermark is per session)", async () => {
    const { client } = fakeClient({
      "pi/chat": () => {
        for (const event of answer("new-2", 1, "fresh")) chat.dispatch(event);
        return { session: "new-2", file: "/s/new-2.jsonl", cwd: "/ws" };
      },
      "pi/session/usage": () => USAGE,
    });
    const tracker = new ActiveSessionTracker();
    const chat: ChatController = new ChatController(client, tracker);
    // Events of an earlier chat are still counted in the transcript (turn 5, seq 3).
    tracker.switchTo({ session: "old", file: null, cwd: "/ws" });
    for (const event of answer("old", 5, "old answer")) chat.dispatch(event);
    await chat.newSession();
    await chat.send("new question");
    expect(summary(chat.transcript.items)).toEqual(["user: new question", "assistant: text=fresh"]);
  });

  it("cuts tool output with slack: 500 KB in 5 KB chunks re-sends the whole card only a few times", () => {
    const { client } = fakeClient({});
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: null, cwd: "/ws" });
    const chat = new ChatController(client, tracker);
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    posted.length = 0;
    let seq = 1;
    chat.dispatch({ session: "s1", turn: 1, seq: seq++, type: "tool_execution_start", toolCallId: "t1", toolName: "bash", args: { command: "yes" } });
    const chunk = `${"y".repeat(99)}\n`.repeat(50); // 5,000 characters
    for (let index = 0; index < 100; index += 1) {
      chat.dispatch({ session: "s1", turn: 1, seq: seq++, type: "tool_output", toolCallId: "t1", toolName: "bash", text: chunk });
    }
    const whole = posted.filter((m) => m.type === "upsert");
    const deltas = posted.filter((m) => m.type === "toolOutput");
    // The start, then one cut per 50K past 200K: (500K - 200K) / 50K = 6.
    expect(whole.length).toBeLessThanOrEqual(8);
    expect(whole.length + deltas.length).toBe(101);
    const item = chat.transcript.get("t1") as ToolItem;
    expect(item.clipped).toBe(true);
    expect(item.output.length).toBeLessThanOrEqual(200_000);
    expect(item.output.length).toBeGreaterThanOrEqual(150_000 - 2000);
    expect(item.output.endsWith(chunk)).toBe(true);
  });

  it("asks before a new chat or another session stops the running answer, and says it stopped", async () => {
    let token: CancellationToken | undefined;
    const { client } = fakeClient({
      "pi/chat": (_params, t) =>
        new Promise((_resolve, reject) => {
          token = t;
          t!.onCancellationRequested(() => reject(Object.assign(new Error("Request cancelled"), { code: -32800 })));
        }),
      "pi/session/list": () => ({
        sessions: [{ file: "/s/s2.jsonl", id: "s2", cwd: "/ws", name: null, modified: new Date().toISOString(), messageCount: 2, firstMessage: "other" }],
      }),
      "pi/session/messages": () => ({ entries: [{ type: "message", id: "e1", message: { role: "user", content: "other" } }] }),
      "pi/session/usage": () => USAGE,
    });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: "/s/s1.jsonl", cwd: "/ws" });
    const chat: ChatController = new ChatController(client, tracker);
    const sending = chat.send("long job");
    await tick();
    // Dismissed: nothing changes.
    stub.answers = [undefined];
    await chat.newSession();
    expect(stub.asked.at(-1)).toMatchObject({ text: "Start a new chat?", options: { modal: true }, items: ["Stop and Switch"] });
    expect(chat.running).toBe(true);
    expect(token!.isCancellationRequested).toBe(false);
    expect(tracker.current?.session).toBe("s1");
    // Agreed: the answer stops, the other session shows with a notice saying so.
    stub.picks = ["other"];
    stub.answers = ["Stop and Switch"];
    await chat.openSession();
    await sending;
    await tick();
    expect(stub.asked.at(-1)).toMatchObject({ text: "Open another chat?" });
    expect(token!.isCancellationRequested).toBe(true);
    expect(chat.running).toBe(false);
    expect(tracker.current?.session).toBe("s2");
    expect(summary(chat.transcript.items)).toEqual(["user: other", "notice info: Stopped: the answer that was running in the previous chat."]);
  });

  it("a stale pi/session/messages answer does not replace the transcript of a run started after it", async () => {
    const history = { type: "message", id: "e1", message: { role: "user", content: "old history" } };
    let answerFirstRead: (value: unknown) => void = () => undefined;
    let finishChat: (value: unknown) => void = () => undefined;
    let reads = 0;
    const { client } = fakeClient({
      "pi/session/messages": () => {
        reads += 1;
        if (reads === 1) return new Promise((resolve) => (answerFirstRead = resolve));
        // Read again after the run: the history with the new exchange.
        return {
          entries: [
            history,
            { type: "message", id: "e2", message: { role: "user", content: "right away" } },
            { type: "message", id: "e3", message: { role: "assistant", stopReason: "stop", content: [{ type: "text", text: "live answer" }] } },
          ],
        };
      },
      "pi/chat": () => {
        for (const event of answer("s2", 4, "live answer")) chat.dispatch(event);
        return new Promise((resolve) => (finishChat = resolve));
      },
      "pi/session/usage": () => USAGE,
    });
    const tracker = new ActiveSessionTracker();
    const chat: ChatController = new ChatController(client, tracker);
    const resets: string[][] = [];
    chat.attach((message) => message.type === "reset" && resets.push(summary(message.items)));
    tracker.switchTo({ session: "s2", file: "/s/s2.jsonl", cwd: "/ws" }); // opened: reload asks
    await tick();
    const sending = chat.send("right away");
    await tick();
    // The session's first read answers while the run goes on: it is stale and dropped.
    answerFirstRead({ entries: [history] });
    await tick();
    expect(summary(chat.transcript.items)).toEqual(["user: right away", "assistant: text=live answer"]);
    expect(reads).toBe(1);
    // When the run ends the session is read again, history and the new exchange together.
    finishChat({ session: "s2", file: "/s/s2.jsonl", cwd: "/ws" });
    await sending;
    await tick();
    expect(reads).toBe(2);
    expect(summary(chat.transcript.items)).toEqual(["user: old history", "user: right away", "assistant: text=live answer"]);
    expect(resets).not.toContainEqual(["user: old history"]);
  });

  it("gives a follow-up back to the prompt box when it cannot be queued", async () => {
    let finish: (value: unknown) => void = () => undefined;
    const { client } = fakeClient({
      "pi/chat": (params) => {
        if (params.streamingBehavior) throw new Error("the session is busy");
        return new Promise((resolve) => (finish = resolve));
      },
      "pi/session/usage": () => USAGE,
    });
    const tracker = new ActiveSessionTracker();
    const chat = new ChatController(client, tracker);
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    const first = chat.send("first");
    await tick();
    // A new chat's first answer: no session yet to queue on.
    await chat.send("typed meanwhile");
    expect(posted).toContainEqual({ type: "setPrompt", text: "typed meanwhile" });
    // Once the session is known, a refused queue request gives the text back too.
    chat.dispatch({ session: "n1", turn: 1, seq: 1, type: "message_start", message: { role: "assistant" } });
    await chat.send("second try");
    expect(posted).toContainEqual({ type: "setPrompt", text: "second try" });
    finish({ session: "n1", file: null, cwd: "/ws" });
    await first;
  });

  it("logs a failed page message instead of leaving an unhandled rejection", async () => {
    const warnings: string[] = [];
    const { client } = fakeClient({ "pi/session/usage": () => USAGE, "pi/models": () => MODELS });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo({ session: "s1", file: null, cwd: "/ws" });
    const chat = registerChatView(client, tracker, Uri.file("/ext") as never, { warn: (text) => warnings.push(text) });
    const provider = stub.webviewProviders.get(CHAT_VIEW)!.provider as { resolveWebviewView(view: unknown): void };
    let listener: (data: unknown) => void = () => undefined;
    provider.resolveWebviewView({
      visible: true,
      webview: {
        options: {},
        html: "",
        cspSource: "x",
        asWebviewUri: (uri: Uri) => ({ toString: () => uri.path }),
        postMessage: async () => true,
        onDidReceiveMessage: (l: (data: unknown) => void) => ((listener = l), { dispose: () => undefined }),
      },
      onDidChangeVisibility: () => ({ dispose: () => undefined }),
      onDidDispose: () => ({ dispose: () => undefined }),
    });
    vi.spyOn(chat.provider.controller, "handle").mockRejectedValue(new Error("boom"));
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      listener({ type: "sessions" });
      await tick(10);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    expect(unhandled).toEqual([]);
    expect(warnings).toEqual(["chat view sessions: boom"]);
    for (const disposable of chat.disposables) disposable.dispose();
  });

  it("links: the page cannot ask the host to open one, and mail links lose their query", async () => {
    const { safeHref } = await import("../src/chat/protocol");
    expect(parseWebviewMessage({ type: "openLink", href: "https://example.com/docs" })).toBeUndefined();
    expect(safeHref("mailto:dev@example.org?attach=/etc/passwd&body=x")).toBe("mailto:dev@example.org");
    expect(safeHref("MAILTO:a@b.c#frag")).toBe("MAILTO:a@b.c");
    expect(safeHref("mailto:?body=x")).toBeUndefined();
    expect(safeHref("https://example.com/a?b=c")).toBe("https://example.com/a?b=c");
    expect(safeHref("javascript:alert(1)")).toBeUndefined();
    expect(safeHref("command:workbench.action.terminal.new")).toBeUndefined();
  });

  it("marks cards rebuilt from bashExecution entries as having no run to open", () => {
    const { client } = fakeClient({});
    const chat = new ChatController(client, new ActiveSessionTracker());
    chat.transcript.load([
      { type: "message", id: "b1", message: { role: "bashExecution", command: "ls", output: "a\n", exitCode: 0 } },
      { type: "message", id: "m1", message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } }] } },
      { type: "message", id: "m2", message: { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "x" }] } },
    ]);
    const tools = chat.transcript.items.filter((item): item is ToolItem => item.kind === "tool");
    expect(tools.map((tool) => [tool.id, tool.noRun === true])).toEqual([
      ["b1", true],
      ["c1", false],
    ]);
    expect(parseHostMessage({ type: "upsert", item: { ...tools[0] } })).toBeDefined();
    expect(parseHostMessage({ type: "upsert", item: { ...tools[0], noRun: "yes" } })).toBeUndefined();
  });
});
