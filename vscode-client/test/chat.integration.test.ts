/**
 * The chat controller against the real server and a local model: a prompt with a bash call
 * streams into the transcript as the webview will show it, the session becomes the active one,
 * the meter gets `pi/session/usage`, the session list and `pi/session/messages` rebuild the same
 * transcript, Stop aborts a running answer, and the thinking picker switches a session's level.
 *
 * The model is a small HTTP server here answering in OpenAI's streaming format. Runs when
 * `PI_LSP_PYTHON` names an interpreter with pi-lsp installed (tests/e2e/test_vscode_client.py
 * sets it); skipped otherwise.
 */
import * as fs from "node:fs";
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import type { ProtocolConnection } from "vscode-languageserver-protocol/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActiveSessionTracker } from "../src/activeSession";
import { answerConfiguration, currentSettings } from "../src/config";
import { ChatController, type ChatClient } from "../src/chat/controller";
import type { HostMessage } from "../src/chat/protocol";
import { startServer, type ServerUnderTest } from "./serverProcess";
import { summary } from "./transcriptText";
import { stub } from "./vscode-stub";

const python = process.env.PI_LSP_PYTHON;
const WAIT_MS = 20_000;

type Reply = (response: http.ServerResponse) => void;

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  const body = { id: "chatcmpl-t", object: "chat.completion.chunk", created: 1700000000, model: "m1", choices: [{ index: 0, delta, finish_reason: finish }] };
  return `data: ${JSON.stringify(body)}\n\n`;
}

function usage(): string {
  return `data: ${JSON.stringify({ id: "chatcmpl-t", object: "chat.completion.chunk", created: 1700000000, model: "m1", choices: [], usage: { prompt_tokens: 900, completion_tokens: 20, total_tokens: 920 } })}\n\n`;
}

function stream(response: http.ServerResponse, parts: string[]): void {
  response.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
  for (const part of parts) response.write(part);
  response.end();
}

const textReply = (text: string): Reply => (response) =>
  stream(response, [chunk({ role: "assistant", content: "" }), ...text.match(/.{1,5}/gs)!.map((piece) => chunk({ content: piece })), chunk({}, "stop"), usage(), "data: [DONE]\n\n"]);

const bashReply = (text: string, command: string): Reply => (response) =>
  stream(response, [
    chunk({ role: "assistant", content: text }),
    chunk({ tool_calls: [{ index: 0, id: "call_bash_1", type: "function", function: { name: "bash", arguments: "" } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify({ command }) } }] }),
    chunk({}, "tool_calls"),
    usage(),
    "data: [DONE]\n\n",
  ]);

/** Starts an answer and never finishes it (until the client goes away). */
const hangingReply: Reply = (response) => {
  response.writeHead(200, { "Content-Type": "text/event-stream" });
  response.write(chunk({ role: "assistant", content: "" }));
  response.write(chunk({ content: "Thinking about it" }));
};


describe.skipIf(!python)("the chat view's controller against pi-lsp serve", () => {
  let tmp: string;
  let server: ServerUnderTest;
  let model: http.Server;
  let connection: ProtocolConnection;
  const replies: Reply[] = [];
  /** The request bodies the model was sent, in order. */
  const bodies: Record<string, unknown>[] = [];
  const eventListeners: ((params: unknown) => void)[] = [];
  let client: ChatClient;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-lsp-chat-"));
    for (const dir of ["home", "agent", "ws"]) fs.mkdirSync(path.join(tmp, dir), { recursive: true });
    fs.writeFileSync(path.join(tmp, "ws", "AGENTS.md"), "# Rules\n\n- Answer briefly.\n");

    model = http.createServer((request, response) => {
      const body: Buffer[] = [];
      request.on("data", (piece: Buffer) => body.push(piece));
      request.on("end", () => {
        bodies.push(JSON.parse(Buffer.concat(body).toString("utf8") || "{}") as Record<string, unknown>);
        const reply = replies.shift();
        if (reply) reply(response);
        else response.writeHead(500).end("no reply queued");
      });
    });
    await new Promise<void>((resolve) => model.listen(0, "127.0.0.1", resolve));
    const port = (model.address() as AddressInfo).port;
    const models = {
      providers: {
        local: { baseUrl: `http://127.0.0.1:${port}/v1`, api: "openai-completions", apiKey: "sk-test-chat", models: [{ id: "m1", contextWindow: 64000 }, { id: "m2", contextWindow: 64000, reasoning: true }] },
      },
    };
    fs.writeFileSync(path.join(tmp, "agent", "models.json"), JSON.stringify(models));

    stub.reset();
    stub.setConfiguration({ "pi-lsp.agentDir": path.join(tmp, "agent"), "pi-lsp.debounceMs": 5, "pi-lsp.server.pythonPath": python });
    server = await startServer({
      python: python!,
      tmp,
      root: path.join(tmp, "ws"),
      env: { TMPDIR: tmp },
      capabilities: { workspace: { configuration: true } },
      initializationOptions: currentSettings().settings,
      handle(connection) {
        connection.onRequest("workspace/configuration", (params: { items: { section?: string }[] }) =>
          answerConfiguration(params.items, [], () => currentSettings(), () => undefined),
        );
        connection.onNotification("pi/event", (params: unknown) => eventListeners.forEach((listener) => listener(params)));
      },
    });
    connection = server.connection;
    client = {
      request: <R>(method: string, params: object = {}, token?: unknown) =>
        (token ? connection.sendRequest(method, params, token as never) : connection.sendRequest(method, params)) as Promise<R>,
    };
  }, WAIT_MS);

  afterAll(async () => {
    await server?.stop();
    model?.closeAllConnections();
    model?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  function controller() {
    const tracker = new ActiveSessionTracker();
    const chat = new ChatController(client, tracker);
    eventListeners.splice(0, eventListeners.length, (params) => chat.dispatch(params));
    const posted: HostMessage[] = [];
    chat.attach((message) => posted.push(message));
    return { chat, tracker, posted };
  }

  it(
    "streams an answer with a bash call into the transcript, then rebuilds the same from the saved session",
    async () => {
      replies.push(bashReply("Let me count.", "printf 'one\\ntwo\\n'"), textReply("There are **two** lines."));
      const { chat, tracker, posted } = controller();
      await chat.send("count the lines");

      const live = summary(chat.transcript.items);
      expect(live).toEqual([
        "user: count the lines",
        "assistant: text=Let me count.",
        "tool bash [printf 'one\\ntwo\\n'] done: \"one\\ntwo\\n\"",
        "assistant: text=There are **two** lines.",
      ]);
      // The answer came in pieces, and the bash output live.
      const deltas = posted.filter((m) => m.type === "textDelta").map((m) => (m.type === "textDelta" ? m.text : ""));
      expect(deltas.join("")).toContain("There are **two** lines.");
      expect(deltas.length).toBeGreaterThan(1);
      expect(posted.some((m) => m.type === "toolOutput" || (m.type === "upsert" && m.item.kind === "tool" && m.item.output !== ""))).toBe(true);

      const active = tracker.current!;
      expect(active.session).toMatch(/\S/);
      expect(active.file).toMatch(/\.jsonl$/);
      expect(chat.state.model).toBe("local/m1");
      expect(chat.running).toBe(false);

      // The meter: the session's usage with the model's window.
      await chat.fetchUsage();
      const meter = posted.filter((m) => m.type === "usage").at(-1);
      expect(meter?.type === "usage" && meter.usage).toMatchObject({ contextWindow: 64000 });
      const usage = meter?.type === "usage" ? meter.usage! : undefined;
      expect(usage!.categories.map((c) => c.kind)).toEqual(["systemPrompt", "contextFiles", "skills", "tools", "messages", "summaries"]);
      expect(usage!.categories.find((c) => c.kind === "messages")!.tokens).toBeGreaterThan(0);
      expect(usage!.total).toBe(usage!.categories.reduce((sum, c) => sum + c.tokens, 0));

      // Another window: the session is picked from the list and rebuilt from its file.
      const other = controller();
      stub.picks = ["count the lines"];
      await other.chat.openSession();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(other.tracker.current?.file).toBe(active.file);
      expect(summary(other.chat.transcript.items)).toEqual(live);
    },
    WAIT_MS,
  );

  it(
    "switches the session's thinking level: recorded in the session, used for the next answer, shown when reopened",
    async () => {
      replies.push(textReply("First."), textReply("Second."));
      const { chat, tracker } = controller();
      await chat.refreshModels();
      await chat.send("think about it");
      expect(chat.state).toMatchObject({ model: "local/m1", reasoning: false, thinking: "off" });

      await chat.handle({ type: "selectModel", value: "local/m2" });
      expect(chat.state).toMatchObject({ model: "local/m2", reasoning: true });
      await chat.handle({ type: "selectThinking", value: "high" });
      expect(summary(chat.transcript.items).filter((line) => line.startsWith("notice"))).toEqual([]);
      expect(chat.state.thinking).toBe("high");

      const active = tracker.current!;
      const saved = await client.request<{ entries: { type: string; thinkingLevel?: string }[] }>("pi/session/messages", { session: active.session });
      expect(saved.entries.filter((entry) => entry.type === "thinking_level_change").at(-1)?.thinkingLevel).toBe("high");

      const asked = bodies.length;
      await chat.send("and again");
      expect(bodies.slice(asked).map((body) => [body.model, body.reasoning_effort])).toEqual([["m2", "high"]]);
      expect(chat.state.thinking).toBe("high");

      // Another window opens the session from the list: its picker shows the level.
      const other = controller();
      await other.chat.refreshModels();
      stub.picks = ["think about it"];
      await other.chat.openSession();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(other.tracker.current?.file).toBe(active.file);
      expect(other.chat.state.thinking).toBe("high");
    },
    WAIT_MS,
  );

  it(
    "stops a running answer: the request is cancelled and the server aborts the model's stream",
    async () => {
      replies.push(hangingReply);
      const { chat } = controller();
      const sending = chat.send("take your time");
      const deadline = Date.now() + 10_000;
      while (!summary(chat.transcript.items).some((line) => line.includes("Thinking about it"))) {
        expect(Date.now()).toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      chat.stop();
      await sending;
      expect(chat.running).toBe(false);
      const lines = summary(chat.transcript.items);
      expect(lines[0]).toBe("user: take your time");
      expect(lines.filter((line) => line === "notice info: Stopped")).toHaveLength(1);
    },
    WAIT_MS,
  );
});
