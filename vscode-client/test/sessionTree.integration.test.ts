/**
 * The Session view and its commands against the real server: the tree of a session file
 * (branched-session.jsonl), moving the leaf, and the compaction preview, cancelled.
 *
 * Runs when `PI_LSP_PYTHON` names an interpreter with pi-lsp installed (the pytest wrapper
 * tests/e2e/test_vscode_client.py sets it); skipped otherwise.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import type { ProtocolConnection } from "vscode-languageserver-protocol/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActiveSessionTracker, type ActiveSessionChange } from "../src/activeSession";
import { registerSessionTree, SESSION_TREE_COMMANDS, SESSION_TREE_VIEW, type Request, type SessionTreeProvider } from "../src/sessionTree";
import { buildSessionNodes, type SessionNode, type SessionTreeResult } from "../src/sessionTreeModel";
import { ToolPanels } from "../src/toolPanels";
import { MODEL_HEADER } from "../src/toolRunView";
import { startServer, type ServerUnderTest } from "./serverProcess";
import { stub } from "./vscode-stub";

const python = process.env.PI_LSP_PYTHON;
const WAIT_MS = 20_000;
const SESSION_ID = "7c1e0a52-3b7d-4c8e-9f21-5a6b7c8d9e0f";

function labels(nodes: SessionNode[]): unknown[] {
  return nodes.map((node) => [node.spec.label, node.spec.description ?? "", labels(node.children)]);
}

function find(nodes: SessionNode[], entryId: string): SessionNode | undefined {
  for (const node of nodes) {
    if (node.entry?.id === entryId) return node;
    const inside = find(node.children, entryId);
    if (inside) return inside;
  }
  return undefined;
}

async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.skipIf(!python)("the Session view against pi-lsp serve", () => {
  let tmp: string;
  let server: ServerUnderTest;
  let connection: ProtocolConnection;
  let sessionFile: string;

  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-lsp-tree-"));
    for (const dir of ["home", "agent", "ws"]) fs.mkdirSync(path.join(tmp, dir), { recursive: true });
    // Keep little of the branch so that the small fixture has something to compact.
    fs.writeFileSync(path.join(tmp, "agent", "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: 10 } }));
    // The session's model (never called: nothing here asks the model anything).
    const models = { providers: { local: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-completions", apiKey: "unused", models: [{ id: "test-model" }] } } };
    fs.writeFileSync(path.join(tmp, "agent", "models.json"), JSON.stringify(models));
    sessionFile = path.join(tmp, "ws", "session.jsonl");
    fs.copyFileSync(path.join(__dirname, "fixtures", "branched-session.jsonl"), sessionFile);

    stub.reset();
    server = await startServer({
      python: python!,
      tmp,
      root: path.join(tmp, "ws"),
      capabilities: {},
      initializationOptions: { agentDir: path.join(tmp, "agent"), debounceMs: 5 },
      handle(connection) {
        connection.onRequest("workspace/configuration", (params: { items: unknown[] }) => params.items.map(() => null));
      },
    });
    connection = server.connection;
  }, WAIT_MS);

  afterAll(async () => {
    await server?.stop();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("shows the held session's tree, moves the leaf, and previews a compaction without writing", async () => {
    const request: Request = (method, params) => connection.sendRequest(method, params);
    const before = fs.readFileSync(sessionFile, "utf8");
    // The server holds a session from the first request that names its file.
    const held = await connection.sendRequest<{ session: string; leafId: string }>("pi/session/navigate", { file: sessionFile, entryId: "e026" });
    expect(held).toMatchObject({ session: SESSION_ID, leafId: "e026" });

    const tracker = new ActiveSessionTracker();
    const changes: ActiveSessionChange[] = [];
    tracker.onDidChange((_session, change) => changes.push(change));
    registerSessionTree(request, tracker);
    const provider = stub.treeViews.get(SESSION_TREE_VIEW)!.treeDataProvider as SessionTreeProvider;
    tracker.switchTo({ session: SESSION_ID, file: sessionFile, cwd: "/home/dev/shop" });
    await until(() => provider.tree !== undefined);

    // The server's tree is the CLI's (checked-in) JSON: the same nodes.
    const cli: SessionTreeResult = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "branched-session.tree.json"), "utf8"));
    expect(labels(provider.getChildren())).toEqual(labels(buildSessionNodes(cli)));
    expect(stub.treeViews.get(SESSION_TREE_VIEW)!.description).toBe("26 entries · 1 compaction");

    // Re-open the user message "Rename addToCart…": the leaf goes to its parent.
    const target = find(provider.getChildren(), "e008")!;
    await stub.commands.get(SESSION_TREE_COMMANDS.navigate)!(target);
    expect(changes.at(-1)).toEqual({ kind: "leafMoved", editorText: "Rename addToCart to add_item everywhere." });
    await until(() => provider.tree?.leafId === "e007");
    const leaf = find(provider.getChildren(), "e007")!;
    expect(leaf.spec.description).toBe("← leaf");

    // Compact: the dry run's facts in the modal; cancelled, so nothing more is sent or written.
    stub.answers.push(undefined);
    await stub.commands.get(SESSION_TREE_COMMANDS.compact)!();
    expect(stub.messages.filter((message) => message.kind === "info" || message.kind === "error")).toEqual([]);
    expect(stub.asked).toHaveLength(1);
    const detail = (stub.asked[0]!.options as { detail: string }).detail;
    expect(detail).toMatch(/^The model summarises \d+ entr(y|ies)/);
    expect(detail).toMatch(/Context: [\d,]+ tokens → about [\d,]+ tokens after\./);
    expect(changes.map((change) => change.kind)).toEqual(["switched", "leafMoved"]);
    expect(fs.readFileSync(sessionFile, "utf8")).toBe(before);
    expect(server.stderr()).not.toMatch(/Traceback/);
  }, WAIT_MS);

  it("rebuilds a tool panel of a run it did not see from pi/session/messages", async () => {
    const panels = new ToolPanels((method, params) => connection.sendRequest(method, params));
    // The leaf is at e007 now: call_2 (grep) is on the active branch, call_3 (edit) no longer.
    expect(await panels.show(SESSION_ID, "call_2")).toBe(true);
    const text = panels.provideTextDocumentContent(stub.shown.at(-1) as never);
    expect(text).toContain("pi-lsp · grep: addToCart");
    expect(text).toContain("status: done");
    expect(text.split(`${MODEL_HEADER}\n`)[1]).toBe("cart.py:12: def addToCart(item):\n");
    expect(await panels.show(SESSION_ID, "call_3")).toBe(false);
  }, WAIT_MS);
});
