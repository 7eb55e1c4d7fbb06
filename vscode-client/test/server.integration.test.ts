/**
 * The extension's side of the protocol against the real server: the settings it sends, its
 * answer to `workspace/configuration`, and the shapes of `pi/status`, `pi/systemPrompt` and
 * `pi-lsp.trustProject` as the status item, the prompt document and the trust command read them;
 * the judge's fallback reaches the editor as a `window/showMessage` (no model call is made: the
 * judge's model names a provider that does not exist).
 *
 * Runs when `PI_LSP_PYTHON` names an interpreter with pi-lsp installed (the pytest wrapper
 * tests/e2e/test_vscode_client.py sets it); skipped otherwise.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ProtocolConnection } from "vscode-languageserver-protocol/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { trustMessage, SERVER_TRUST_COMMAND, type TrustResult } from "../src/commands";
import { answerConfiguration, currentSettings } from "../src/config";
import { cwdsToRefresh, promptLinks, renderPrompt, type PromptResult } from "../src/promptDocument";
import { ToolRunLog, ToolStreams, type ToolResult } from "../src/toolRun";
import { statusView, type ServerStatus } from "../src/status";
import { startServer, type ServerUnderTest } from "./serverProcess";
import { stub } from "./vscode-stub";

const python = process.env.PI_LSP_PYTHON;
const WAIT_MS = 15_000;

describe.skipIf(!python)("against pi-lsp serve", () => {
  let tmp: string;
  let server: ServerUnderTest;
  let connection: ProtocolConnection;
  const configurationRequests: unknown[] = [];
  let promptChanged: Promise<unknown>;
  const streams = new ToolStreams();
  const changeListeners: ((params: unknown) => void)[] = [];
  const shown: { type: number; message: string }[] = [];

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-lsp-vscode-"));
    for (const dir of ["home", "agent", "ws/pkg"]) fs.mkdirSync(path.join(tmp, dir), { recursive: true });
    fs.writeFileSync(path.join(tmp, "ws", "AGENTS.md"), "# Tools\n\n- Use npm to install packages.\n");
    fs.writeFileSync(path.join(tmp, "ws", "pkg", "AGENTS.md"), "# Tools\n\n- Always use pnpm.\n");

    stub.reset();
    stub.setConfiguration({
      "pi-lsp.agentDir": path.join(tmp, "agent"),
      "pi-lsp.debounceMs": 5,
      "pi-lsp.modelWindow": 64000,
      "pi-lsp.judge": true,
      "pi-lsp.judgeModel": "nope/none",
      "pi-lsp.judgeIdleMs": 0, // on save only: no judge run starts by itself during these tests
      "pi-lsp.server.pythonPath": python,
    });
    promptChanged = new Promise((resolve) => changeListeners.push(resolve));
    server = await startServer({
      python: python!,
      tmp,
      root: path.join(tmp, "ws"),
      capabilities: { workspace: { configuration: true } },
      initializationOptions: currentSettings().settings,
      handle(connection) {
        connection.onRequest("workspace/configuration", (params: { items: { section?: string; scopeUri?: string }[] }) => {
          configurationRequests.push(params);
          return answerConfiguration(params.items, [], () => currentSettings(), () => undefined);
        });
        connection.onNotification("pi/systemPromptChanged", (params: unknown) => {
          for (const listener of changeListeners.splice(0)) listener(params);
        });
        connection.onNotification("pi/event", (params: unknown) => streams.dispatch(params));
        connection.onNotification("window/showMessage", (params: { type: number; message: string }) => shown.push(params));
      },
    });
    connection = server.connection;
  }, WAIT_MS);

  afterAll(async () => {
    await server?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("pulls the pi-lsp section and gets the mapped settings", async () => {
    await promptChanged;
    expect(configurationRequests).toEqual([{ items: [{ section: "pi-lsp" }] }]);
    const status = await connection.sendRequest<ServerStatus & { settings: Record<string, unknown> }>("pi/status", {});
    expect(status.settings).toMatchObject({
      agentDir: path.join(tmp, "agent"),
      modelWindow: 64000,
      debounceMs: 5,
      judge: true,
      judgeModel: "nope/none",
      judgeIdleMs: 0,
    });
  }, WAIT_MS);

  it("shows the judge's fallback once, as a warning, when its model cannot be used", async () => {
    await promptChanged;
    for (let run = 0; run < 2; run++) {
      const result = await connection.sendRequest<{ enabled: boolean; error: string | null }>("pi/judge", {});
      expect(result).toMatchObject({ enabled: true, error: expect.stringContaining('unknown provider "nope"') });
    }
    expect(shown).toEqual([
      { type: 2, message: expect.stringMatching(/^pi-lsp judge: no model to ask \(.*\); showing the word rules' findings only$/) },
    ]);
  }, WAIT_MS);

  it("feeds the status item", async () => {
    await promptChanged;
    const view = statusView("running", await connection.sendRequest<ServerStatus>("pi/status", {}));
    expect(view.text).toMatch(/^pi-lsp \S+$/);
    expect(view.detail).toMatch(/^last rebuild: full load, \d+ ms · \d+ working director(y|ies)$/);
  }, WAIT_MS);

  it("feeds the prompt document", async () => {
    const cwd = path.join(tmp, "ws", "pkg");
    const result = await connection.sendRequest<PromptResult>("pi/systemPrompt", { cwd });
    const rendered = renderPrompt(result, cwd, 64000);
    expect(rendered.title).toMatch(/^System prompt · pkg · ~?[\d,]+ tokens$/);
    expect(rendered.text).toContain("Always use pnpm.");
    expect(rendered.text).toContain("Use npm to install packages.");
    expect(rendered.text).toMatch(/by kind: .*context-file/);
    // The context files' lines link to their own lines in the files.
    const lines = rendered.text.split("\n");
    const links = promptLinks(rendered.spans, rendered.headerLines, lines);
    const pnpm = links.find((link) => lines[link.line]!.includes("Always use pnpm."));
    expect(pnpm).toMatchObject({ targetLine: 2 });
    expect(fs.realpathSync(pnpm!.path)).toBe(fs.realpathSync(path.join(cwd, "AGENTS.md")));
  }, WAIT_MS);

  it("announces a changed context file so that an open prompt below it refreshes", async () => {
    await promptChanged;
    const held = [fs.realpathSync(path.join(tmp, "ws", "pkg")), path.join(fs.realpathSync(path.join(tmp, "ws")), "docs")];
    const changed = new Promise((resolve) => changeListeners.push(resolve));
    fs.writeFileSync(path.join(tmp, "ws", "AGENTS.md"), "# Tools\n\n- Use yarn to install packages.\n");
    const params = await changed;
    expect(cwdsToRefresh(params, held)).toEqual(held);
  }, WAIT_MS);

  it("runs a tool on a stream of its own and assembles its events", async () => {
    const stream = streams.newStreamId();
    const log = new ToolRunLog();
    let text = "";
    const listening = streams.listen(stream, (event) => (text += log.push(event)));
    const result = await connection.sendRequest<ToolResult>("pi/runTool", {
      tool: "bash",
      args: { command: "echo one; echo two" },
      cwd: path.join(tmp, "ws"),
      stream,
    });
    listening.dispose();
    text += log.finish({ kind: "result", result });
    expect(result).toMatchObject({ stream, isError: false });
    expect(text).toBe('▶ bash {"command":"echo one; echo two"}\none\ntwo\n■ done\n');
  }, WAIT_MS);

  it("trusts the project through the server's command", async () => {
    const directory = path.join(tmp, "ws");
    const result = await connection.sendRequest<TrustResult>("workspace/executeCommand", {
      command: SERVER_TRUST_COMMAND,
      arguments: [directory],
    });
    expect(trustMessage(result, directory)).toEqual({
      ok: true,
      text: `pi-lsp: ${fs.realpathSync(directory)} is trusted; its project resources load.`,
    });
    expect(fs.existsSync(path.join(tmp, "agent", "trust.json"))).toBe(true);
    expect(server.stderr()).not.toMatch(/Traceback/);
  }, WAIT_MS);
});
