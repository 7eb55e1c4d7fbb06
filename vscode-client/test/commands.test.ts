import { EditReview } from "../src/editReview";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { PiClient } from "../src/client";
import { COMMANDS, promptCwd, refreshPrompts, registerCommands, SERVER_TRUST_COMMAND, trustMessage } from "../src/commands";
import { PROMPT_SCHEME, PromptDocuments } from "../src/promptDocument";
import { registerToolCommand, RUN_TOOL_COMMAND } from "../src/toolCommand";
import { ToolStreams } from "../src/toolRun";
import { ActiveSessionTracker } from "../src/activeSession";
import { registerChatView } from "../src/chat/view";
import { registerSessionTree } from "../src/sessionTree";
import { registerToolPanelCommand, ToolPanels } from "../src/toolPanels";
import { stub, Uri, window, workspace } from "./vscode-stub";

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));

function fakeClient(answers: Record<string, unknown>) {
  const request = vi.fn(async (method: string, params?: unknown) => {
    if (method in answers) return answers[method];
    throw new Error(`unexpected ${method} ${JSON.stringify(params)}`);
  });
  const executeCommand = vi.fn(async (command: string, args: unknown[]) => request(`command:${command}`, args));
  const restart = vi.fn(async () => undefined);
  return { client: { request, executeCommand, restart } as unknown as PiClient, request, executeCommand, restart };
}

function setup(answers: Record<string, unknown>) {
  const fake = fakeClient(answers);
  const prompts = new PromptDocuments();
  stub.contentProviders.set(PROMPT_SCHEME, prompts);
  registerCommands(fake.client, prompts, window.createOutputChannel("test") as never);
  registerToolCommand(fake.client, new ToolStreams(), window.createOutputChannel("test") as never);
  return { ...fake, prompts };
}

beforeEach(() => stub.reset());

describe("the manifest", () => {
  it("contributes exactly the commands the extension registers", () => {
    const { client } = setup({});
    // the other modules, wired as extension.ts wires them
    const tracker = new ActiveSessionTracker();
    const request = () => Promise.reject(new Error("not running"));
    const panels = new ToolPanels(request);
    registerChatView(client, tracker, Uri.file("/ext") as never, window.createOutputChannel("test") as never);
    registerToolPanelCommand(panels);
    registerSessionTree(request, tracker);
    new EditReview().register();
    const declared = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
    expect(declared).toEqual(expect.arrayContaining([...Object.values(COMMANDS), RUN_TOOL_COMMAND]));
    expect([...stub.commands.keys()].sort()).toEqual(declared);
  });

  it("does not claim the server's own command id (the language client registers that one)", () => {
    expect(Object.values(COMMANDS)).not.toContain(SERVER_TRUST_COMMAND);
  });

  it("activates on Markdown and on workspaces with context files", () => {
    expect(manifest.activationEvents).toEqual(
      expect.arrayContaining(["onLanguage:markdown", "workspaceContains:**/AGENTS.md", "workspaceContains:**/CLAUDE.md"]),
    );
    expect(manifest.engines.vscode).toBe("^1.100.0");
    expect(manifest.main).toBe("./dist/extension.js");
  });
});

describe("pi-lsp: Show resolved prompt", () => {
  it("asks for the active file's folder and opens the rendered prompt", async () => {
    stub.folders = ["/ws"];
    stub.activeFile = "/ws/pkg/AGENTS.md";
    const { request } = setup({ "pi/systemPrompt": { text: "PROMPT", tokens: 1500, tokensByKind: {} } });
    await stub.commands.get(COMMANDS.showResolvedPrompt)!();
    expect(request).toHaveBeenCalledWith("pi/systemPrompt", { cwd: "/ws/pkg" });
    expect(stub.shown).toHaveLength(1);
    const uri = stub.shown[0]!;
    expect(uri.scheme).toBe(PROMPT_SCHEME);
    expect(uri.path).toBe("/System prompt · pkg.md");
    const document = await workspace.openTextDocument(uri);
    expect(document.getText()).toMatch(/1,500 tokens \(1\.2% of 128,000\)[\s\S]*PROMPT$/);
    expect(stub.messages).toContainEqual({ kind: "status", text: "pi-lsp: system prompt for pkg: 1,500 tokens (1.2% of 128,000)" });
  });

  it("uses the workspace root without an active file, and warns without any folder", async () => {
    stub.folders = ["/ws"];
    const { request } = setup({ "pi/systemPrompt": { text: "", tokens: 0 } });
    await stub.commands.get(COMMANDS.showResolvedPrompt)!();
    expect(request).toHaveBeenCalledWith("pi/systemPrompt", { cwd: "/ws" });
    expect(promptCwd(undefined, [])).toBeUndefined();
  });

  it("reports a server error instead of opening a document", async () => {
    stub.folders = ["/ws"];
    setup({});
    await stub.commands.get(COMMANDS.showResolvedPrompt)!();
    expect(stub.shown).toEqual([]);
    expect(stub.messages[0]).toMatchObject({ kind: "error" });
  });
});

describe("a live prompt", () => {
  it("is fetched again when pi/systemPromptChanged names its cwd, and its header figures update", async () => {
    stub.folders = ["/ws"];
    const answers: Record<string, unknown> = { "pi/systemPrompt": { text: "PROMPT", tokens: 1500 } };
    const { request, prompts, client } = setup(answers);
    await stub.commands.get(COMMANDS.showResolvedPrompt)!();
    const uri = stub.shown[0]!;
    const changed: string[] = [];
    prompts.onDidChange((u) => changed.push(u.toString()));

    answers["pi/systemPrompt"] = { text: "PROMPT, longer", tokens: 3200 };
    const output = window.createOutputChannel("test");
    await refreshPrompts(client, prompts, { cwds: ["/elsewhere"], removed: [], reason: null }, output as never);
    expect(request).toHaveBeenCalledTimes(1);
    await refreshPrompts(client, prompts, { cwds: ["/ws"], removed: [], reason: ["/ws/AGENTS.md"] }, output as never);
    expect(request).toHaveBeenLastCalledWith("pi/systemPrompt", { cwd: "/ws" });
    expect(changed).toEqual([uri.toString()]);
    const text = (await workspace.openTextDocument(uri)).getText();
    expect(text).toMatch(/3,200 tokens \(2\.5% of 128,000\)[\s\S]*PROMPT, longer$/);
  });

  it("keeps the newest of two overlapping refreshes, whatever order they are answered in", async () => {
    stub.folders = ["/ws"];
    const { prompts, client, request } = setup({ "pi/systemPrompt": { text: "FIRST", tokens: 1 } });
    await stub.commands.get(COMMANDS.showResolvedPrompt)!();
    const pending: ((value: unknown) => void)[] = [];
    request.mockImplementation(() => new Promise((resolve) => pending.push(resolve)));
    const output = window.createOutputChannel("test") as never;
    const older = refreshPrompts(client, prompts, { cwds: ["/ws"] }, output);
    const newer = refreshPrompts(client, prompts, { cwds: ["/ws"] }, output);
    pending[1]!({ text: "NEWER", tokens: 2 });
    await newer;
    pending[0]!({ text: "OLDER", tokens: 3 });
    await older;
    expect((await workspace.openTextDocument(stub.shown[0]!)).getText()).toMatch(/NEWER$/);
  });

  it("logs a failed refresh and keeps the old text", async () => {
    stub.folders = ["/ws"];
    const answers: Record<string, unknown> = { "pi/systemPrompt": { text: "OLD", tokens: 1 } };
    const { prompts, client } = setup(answers);
    await stub.commands.get(COMMANDS.showResolvedPrompt)!();
    delete answers["pi/systemPrompt"];
    const output = window.createOutputChannel("test");
    await refreshPrompts(client, prompts, { cwds: ["/ws"] }, output as never);
    expect(output.lines[0]).toMatch(/^warn refreshing the prompt of \/ws: unexpected pi\/systemPrompt/);
    expect((await workspace.openTextDocument(stub.shown[0]!)).getText()).toMatch(/OLD$/);
  });
});

describe("pi-lsp: Trust this project", () => {
  it("sends the server's trust command for the active file's workspace folder", async () => {
    stub.folders = ["/a", "/b"];
    stub.activeFile = "/b/docs/AGENTS.md";
    const { executeCommand } = setup({ [`command:${SERVER_TRUST_COMMAND}`]: { cwd: "/b", trusted: true } });
    await stub.commands.get(COMMANDS.trustThisProject)!();
    expect(executeCommand).toHaveBeenCalledWith(SERVER_TRUST_COMMAND, ["/b"]);
    expect(stub.messages).toEqual([{ kind: "info", text: "pi-lsp: /b is trusted; its project resources load." }]);
  });

  it("says why a project is still not trusted", () => {
    expect(trustMessage({ cwd: "/p", trusted: false, reason: "trust.json cannot be read" }, "/p")).toEqual({
      ok: false,
      text: "pi-lsp: /p is still not trusted: trust.json cannot be read",
    });
  });
});

describe("pi-lsp: Restart server", () => {
  it("restarts the client", async () => {
    const { restart } = setup({});
    await stub.commands.get(COMMANDS.restartServer)!();
    expect(restart).toHaveBeenCalledOnce();
  });
});
