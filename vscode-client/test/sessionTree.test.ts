import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { ActiveSessionTracker, type ActiveSessionChange } from "../src/activeSession";
import {
  COMPACT_BUTTON,
  compactPreviewText,
  registerSessionTree,
  SESSION_TREE_COMMANDS,
  SESSION_TREE_VIEW,
  SessionTreeProvider,
  type Request,
} from "../src/sessionTree";
import { buildSessionNodes, CHUNK_AFTER, escapeMarkdown, type SessionNode, type SessionTreeResult } from "../src/sessionTreeModel";
import { MarkdownString, stub, ThemeIcon, TreeItemCollapsibleState, type TreeItem } from "./vscode-stub";

beforeEach(() => stub.reset());

function fixture(name: string): SessionTreeResult {
  return JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", name), "utf8"));
}

/** `pi-lsp session tree --json` of a small session written for these tests: a fork, a branch summary, a label, a compaction. */
const branched = fixture("branched-session.tree.json");
/**
 * `pi-lsp session tree --json` of a v1 session of 1,003 entries with two compactions, the one
 * tests/sessions.py generates; needs `PI_LSP_PYTHON`, `PI_LSP_V1_SESSION` (its path) and
 * `PI_LSP_V1_SESSION_TITLE` (its compactions' first line), set by tests/e2e/test_vscode_client.py.
 */
const PI_FIXTURE = process.env.PI_LSP_V1_SESSION;
const CHECKPOINT_TITLE = process.env.PI_LSP_V1_SESSION_TITLE;
const python = PI_FIXTURE ? process.env.PI_LSP_PYTHON : undefined;
const large: SessionTreeResult = python
  ? JSON.parse(
      execFileSync(python, ["-m", "pi_lsp", "session", "tree", "--json", PI_FIXTURE!], {
        encoding: "utf8",
        maxBuffer: 64 << 20,
      }),
    )
  : { roots: [] } as unknown as SessionTreeResult;

function walk(nodes: SessionNode[], visit: (node: SessionNode, parents: SessionNode[]) => void, parents: SessionNode[] = []): void {
  for (const node of nodes) {
    visit(node, parents);
    walk(node.children, visit, [...parents, node]);
  }
}

function item(provider: SessionTreeProvider, node: SessionNode): TreeItem {
  return provider.getTreeItem(node) as unknown as TreeItem;
}

const SESSION = { session: "sess-1", file: "/s/a.jsonl", cwd: "/w" };

/** A request function that answers by method and records what it was asked. */
function fakeServer(answers: Record<string, (params: Record<string, unknown>) => unknown>) {
  const calls: { method: string; params: Record<string, unknown>; token: boolean }[] = [];
  const request: Request = async <R,>(method: string, params: object, token?: unknown) => {
    calls.push({ method, params: params as Record<string, unknown>, token: token !== undefined });
    const answer = answers[method];
    if (!answer) throw new Error(`unexpected ${method}`);
    return (await answer(params as Record<string, unknown>)) as R;
  };
  return { request, calls, methods: () => calls.map((call) => call.method) };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("tree nodes of a branched session", () => {
  const nodes = buildSessionNodes(branched);
  const provider = new SessionTreeProvider(async () => branched as never, new ActiveSessionTracker());

  it("groups entries into turns, tool results under their assistant message, forks as branches", () => {
    expect(nodes.map((node) => node.spec.label)).toEqual([
      "Model: local/test-model",
      "Thinking: off",
      "List the files in the shop project and tell me which one ho…",
      "Rename addToCart to add_item everywhere.",
      "Run the tests first.",
      "Branch summary: The user asked to run the tests; pytest reported 3 passed.",
    ]);
    const firstTurn = nodes[2]!;
    expect(firstTurn.children.map((node) => node.spec.label)).toEqual(["Looking around. → ls, grep", "The cart logic lives in cart.py."]);
    expect(firstTurn.children[0]!.children.map((node) => node.spec.label)).toEqual(['ls "cart.py checkout.py README.md"', 'grep "cart.py:12: def addToCart(item):"']);
    expect(firstTurn.spec.description).toBe("+4");
    expect(item(provider, firstTurn).collapsibleState).toBe(TreeItemCollapsibleState.Collapsed);
    const failed = nodes[3]!.children[0]!.children[0]!;
    expect((item(provider, failed).iconPath as ThemeIcon).id).toBe("error");
  });

  it("expands the active branch down to the leaf and keeps the abandoned one collapsed", () => {
    const [abandoned, active] = [nodes[4]!, nodes[5]!];
    expect(abandoned.spec.description).toBe("branch · 4 entries");
    expect(item(provider, abandoned).collapsibleState).toBe(TreeItemCollapsibleState.Collapsed);
    expect(active.spec.description).toBe("branch · 11 entries · active");
    expect(item(provider, active).collapsibleState).toBe(TreeItemCollapsibleState.Expanded);
    expect(active.children.map((node) => node.entry?.type)).toEqual(["branch_summary", "message", "compaction", "message"]);
    const lastTurn = active.children[3]!;
    expect(item(provider, lastTurn).collapsibleState).toBe(TreeItemCollapsibleState.Expanded);
    const leaf = lastTurn.children[0]!;
    expect(leaf.entry?.id).toBe(branched.leafId);
    expect(leaf.spec.description).toBe("← leaf");
    expect(leaf.spec.contextValue).toBe("entry.leaf");
    expect((item(provider, leaf).iconPath as ThemeIcon).id).toBe("debug-stackframe");
  });

  it("shows a label as the description and summaries, with their own icons, in an untrusted tooltip", () => {
    const active = nodes[5]!;
    const labelled = active.children[1]!;
    expect(labelled.spec.label).toBe("Search again and do the rename.");
    expect(labelled.spec.description).toBe("[rename] · +6");
    const summary = item(provider, active.children[0]!);
    expect((summary.iconPath as ThemeIcon).id).toBe("git-merge");
    const summaryTip = summary.tooltip as MarkdownString;
    expect(summaryTip.isTrusted).toBe(false);
    expect(summaryTip.supportHtml).toBe(false);
    expect(summaryTip.value).toContain("**Branch summary**");
    expect(summaryTip.value).toContain("The user asked to run the tests; pytest reported 3 passed\\.");
    expect(summaryTip.value).toContain("summarises the branch left at e015");
    const compaction = item(provider, active.children[2]!);
    expect((compaction.iconPath as ThemeIcon).id).toBe("fold");
    const compactionTip = (compaction.tooltip as MarkdownString).value;
    expect(compactionTip).toContain("**Compaction**");
    expect(compactionTip).toContain("5,400 tokens before · keeps from e017");
    expect(compactionTip).toContain("\\#\\# Goal");
  });

  it("escapes session text so it cannot become links, HTML or emphasis", () => {
    expect(escapeMarkdown("[x](command:evil) <b>*hi*</b>")).toBe("\\[x\\]\\(command\\:evil\\) \\<b\\>\\*hi\\*\\</b\\>");
  });
});

describe.skipIf(!python)("tree nodes of a 1,003-entry session", () => {
  const nodes = buildSessionNodes(large);

  it("shows every entry exactly once, under few top-level nodes", () => {
    const ids: string[] = [];
    walk(nodes, (node) => node.entry?.id && ids.push(node.entry.id));
    expect(ids).toHaveLength(large.entryCount!);
    expect(new Set(ids).size).toBe(large.entryCount!);
    expect(nodes.length).toBeLessThanOrEqual(CHUNK_AFTER);
    const groups = nodes.filter((node) => node.entry === undefined);
    expect(groups.length).toBeGreaterThan(0);
    expect(groups[0]!.spec.label).toMatch(/^Turns 1–\d+$/);
    expect(groups.every((group) => group.spec.collapsible === "collapsed")).toBe(true);
    const nodeIds: string[] = [];
    walk(nodes, (node) => nodeIds.push(node.spec.id));
    expect(new Set(nodeIds).size).toBe(nodeIds.length);
  });

  it("marks the leaf and expands only the way to it", () => {
    let leafPath: SessionNode[] | undefined;
    walk(nodes, (node, parents) => {
      if (node.entry?.id === large.leafId) leafPath = parents;
    });
    expect(leafPath).toBeDefined();
    expect(leafPath!.every((node) => node.spec.collapsible === "expanded")).toBe(true);
    let expanded = 0;
    walk(nodes, (node) => (expanded += node.spec.collapsible === "expanded" ? 1 : 0));
    expect(expanded).toBe(leafPath!.length);
  });

  it("puts compactions at the level of turns, with the fold icon", () => {
    const compactions: { node: SessionNode; depth: number }[] = [];
    walk(nodes, (node, parents) => node.entry?.type === "compaction" && compactions.push({ node, depth: parents.filter((p) => p.entry).length }));
    expect(compactions).toHaveLength(2);
    for (const { node, depth } of compactions) {
      expect(depth).toBe(0); // not inside a turn (at most inside a "Turns" group)
      expect(node.spec.icon).toBe("fold");
      expect(node.spec.label).toBe(`Compaction: ${CHECKPOINT_TITLE}`);
    }
    expect(compactions[0]!.node.spec.tooltip).toContain("175,004 tokens before");
    // A folded group says it holds a compaction.
    const holders = nodes.filter((node) => node.children.some((child) => child.entry?.type === "compaction"));
    expect(holders.map((node) => node.spec.description)).toEqual(expect.arrayContaining([expect.stringMatching(/^[\d,]+ entries · \d compactions?$/)]));
  });
});

describe("the Session view", () => {
  it("is empty without a session and follows the active session", async () => {
    const server = fakeServer({ "pi/session/tree": () => branched });
    const tracker = new ActiveSessionTracker();
    registerSessionTree(server.request, tracker);
    const view = stub.treeViews.get(SESSION_TREE_VIEW)!;
    expect(view.showCollapseAll).toBe(true);
    const provider = view.treeDataProvider as SessionTreeProvider;
    await settle();
    expect(provider.getChildren()).toEqual([]);
    expect(server.calls).toHaveLength(0);

    tracker.switchTo(SESSION);
    await settle();
    expect(server.calls.map((call) => [call.method, call.params])).toEqual([["pi/session/tree", { session: "sess-1" }]]);
    expect(provider.getChildren()).toHaveLength(6);
    expect(view.description).toBe("26 entries · 1 compaction");
    for (const change of ["updated", "leafMoved"] as const) {
      if (change === "updated") tracker.updated();
      else tracker.leafMoved("text");
      await settle();
    }
    expect(server.calls).toHaveLength(3);
    tracker.switchTo(undefined);
    await settle();
    expect(provider.getChildren()).toEqual([]);
  });

  it("shows a failed read as one error item, and a late answer never overwrites a newer one", async () => {
    let release: (value: unknown) => void = () => undefined;
    let calls = 0;
    const server = fakeServer({
      "pi/session/tree": () => {
        calls += 1;
        if (calls === 1) return new Promise((resolve) => (release = resolve));
        throw new Error("Session file not found");
      },
    });
    const tracker = new ActiveSessionTracker();
    tracker.switchTo(SESSION);
    const provider = new SessionTreeProvider(server.request, tracker);
    const first = provider.refresh();
    await provider.refresh();
    release(branched);
    await first;
    const children = provider.getChildren();
    expect(children).toHaveLength(1);
    expect(children[0]!.spec.label).toBe("Could not read the session: Session file not found");
  });
});

describe("navigating", () => {
  async function setUp(answers: Record<string, (params: Record<string, unknown>) => unknown>) {
    const server = fakeServer({ "pi/session/tree": () => branched, ...answers });
    const tracker = new ActiveSessionTracker();
    const changes: ActiveSessionChange[] = [];
    tracker.onDidChange((_session, change) => changes.push(change));
    tracker.switchTo(SESSION);
    registerSessionTree(server.request, tracker);
    await settle();
    const provider = stub.treeViews.get(SESSION_TREE_VIEW)!.treeDataProvider as SessionTreeProvider;
    const target = provider.getChildren()[3]!; // the user message "Rename addToCart…"
    return { server, tracker, changes, provider, target };
  }

  it("moves the leaf to an entry, then tells the tracker (with the editor text) and refreshes", async () => {
    const { server, changes, target } = await setUp({
      "pi/session/navigate": () => ({ session: "sess-1", cancelled: false, leafId: "e007", editorText: "Rename addToCart to add_item everywhere." }),
    });
    await stub.commands.get(SESSION_TREE_COMMANDS.navigate)!(target);
    await settle();
    const navigate = server.calls.find((call) => call.method === "pi/session/navigate")!;
    expect(navigate.params).toEqual({ session: "sess-1", entryId: "e008" });
    expect(changes.at(-1)).toEqual({ kind: "leafMoved", editorText: "Rename addToCart to add_item everywhere." });
    // Then the files are offered back (a dry run; this server has no checkpoints: nothing asked).
    expect(server.methods().slice(-3)).toEqual(["pi/session/navigate", "pi/session/tree", "pi/session/restoreFiles"]);
    expect(stub.asked).toEqual([]);
  });

  it("reports a refused move and leaves the tracker alone", async () => {
    const { changes, target } = await setUp({
      "pi/session/navigate": () => {
        throw new Error("session is busy");
      },
    });
    await stub.commands.get(SESSION_TREE_COMMANDS.navigate)!(target);
    expect(changes.map((change) => change.kind)).toEqual(["switched"]);
    expect(stub.messages.at(-1)).toEqual({ kind: "error", text: "pi-lsp: could not move to e008: session is busy" });
  });

  it("summarises the branch left behind under a cancellable progress", async () => {
    const { server, changes, target } = await setUp({
      "pi/session/navigate": () => ({ session: "sess-1", cancelled: false, leafId: "e007", editorText: null, summaryEntry: { id: "s1" } }),
    });
    await stub.commands.get(SESSION_TREE_COMMANDS.navigateWithSummary)!(target);
    const navigate = server.calls.find((call) => call.method === "pi/session/navigate")!;
    expect(navigate.params).toEqual({ session: "sess-1", entryId: "e008", summarize: true });
    expect(navigate.token).toBe(true);
    expect(stub.progress.map((p) => p.title)).toEqual(["pi-lsp: summarising the branch you leave…"]);
    expect(changes.at(-1)).toEqual({ kind: "leafMoved", editorText: undefined });
  });

  it("leaves the leaf where it was when the summary is cancelled", async () => {
    const { changes, target } = await setUp({
      "pi/session/navigate": async () => {
        stub.progress[0]!.cancel();
        throw Object.assign(new Error("cancelled"), { code: -32800 });
      },
    });
    await stub.commands.get(SESSION_TREE_COMMANDS.navigateWithSummary)!(target);
    expect(changes.map((change) => change.kind)).toEqual(["switched"]);
    expect(stub.messages.at(-1)!.text).toBe("pi-lsp: summary cancelled; the leaf did not move.");
  });
});

describe("compacting", () => {
  const preview = {
    dryRun: true,
    cutEntryId: "e020",
    firstKeptEntryId: "e021",
    isSplitTurn: false,
    summarizedCount: 20,
    keptCount: 6,
    tokensBefore: 41234,
    estimatedTokensAfter: 5120,
    readFiles: ["cart.py"],
    modifiedFiles: ["cart.py", "checkout.py"],
  };

  async function setUp(answers: Record<string, (params: Record<string, unknown>) => unknown>) {
    const server = fakeServer({ "pi/session/tree": () => branched, ...answers });
    const tracker = new ActiveSessionTracker();
    const changes: ActiveSessionChange[] = [];
    tracker.onDidChange((_session, change) => changes.push(change));
    tracker.switchTo(SESSION);
    registerSessionTree(server.request, tracker);
    await settle();
    return { server, changes };
  }

  it("previews with a dry run, asks in a modal, compacts on confirm and tells the tracker", async () => {
    const { server, changes } = await setUp({
      "pi/session/compact": (params) => (params.dryRun ? preview : { session: "sess-1", tokensBefore: 41234, estimatedTokensAfter: 5300 }),
    });
    stub.answers.push(COMPACT_BUTTON);
    await stub.commands.get(SESSION_TREE_COMMANDS.compact)!();
    const compacts = server.calls.filter((call) => call.method === "pi/session/compact");
    expect(compacts.map((call) => call.params)).toEqual([{ session: "sess-1", dryRun: true }, { session: "sess-1" }]);
    expect(compacts[1]!.token).toBe(true);
    const [asked] = stub.asked;
    expect(asked!.text).toBe("Compact this session now?");
    expect(asked!.items).toEqual([COMPACT_BUTTON]);
    const options = asked!.options as { modal: boolean; detail: string };
    expect(options.modal).toBe(true);
    expect(options.detail).toContain("The model summarises 20 entries (up to e020); 6 entries are kept as they are (from e021).");
    expect(options.detail).toContain("41,234 tokens → about 5,120 tokens after");
    expect(options.detail).toContain("Files modified: cart.py, checkout.py.");
    expect(changes.at(-1)).toEqual({ kind: "updated" });
    expect(stub.messages.at(-1)!.text).toBe("pi-lsp: session compacted: 41,234 → about 5,300 tokens.");
  });

  it("sends nothing more when the modal is cancelled", async () => {
    const { server, changes } = await setUp({ "pi/session/compact": () => preview });
    stub.answers.push(undefined);
    await stub.commands.get(SESSION_TREE_COMMANDS.compact)!();
    expect(server.calls.filter((call) => call.method === "pi/session/compact").map((call) => call.params)).toEqual([{ session: "sess-1", dryRun: true }]);
    expect(changes.map((change) => change.kind)).toEqual(["switched"]);
  });

  it("says why when there is nothing to compact, without a modal", async () => {
    const { server } = await setUp({
      "pi/session/compact": () => {
        throw new Error("Nothing to compact (session too small)");
      },
    });
    await stub.commands.get(SESSION_TREE_COMMANDS.compact)!();
    expect(stub.asked).toHaveLength(0);
    expect(server.methods().filter((method) => method === "pi/session/compact")).toHaveLength(1);
    expect(stub.messages.at(-1)).toEqual({ kind: "info", text: "pi-lsp: Nothing to compact (session too small)" });
  });

  it("needs a session", async () => {
    const server = fakeServer({});
    registerSessionTree(server.request, new ActiveSessionTracker());
    await stub.commands.get(SESSION_TREE_COMMANDS.compact)!();
    expect(server.calls).toHaveLength(0);
    expect(stub.messages.at(-1)!.kind).toBe("warning");
  });

  it("mentions a split turn and long file lists in the preview", () => {
    const files = Array.from({ length: 11 }, (_, i) => `f${i}.ts`);
    const { detail } = compactPreviewText({ ...preview, isSplitTurn: true, readFiles: files, modifiedFiles: [], summarizedCount: 1, keptCount: 1 });
    expect(detail).toContain("1 entry (up to e020); 1 entry is kept");
    expect(detail).toContain("The cut falls inside a turn");
    expect(detail).toContain("Files read: f0.ts, f1.ts, f2.ts, f3.ts, f4.ts, f5.ts, f6.ts, f7.ts (+3 more).");
    expect(detail).toContain("Files modified: none.");
  });
});

describe("package.json", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));

  it("declares the Session view in the pi-lsp container, with a welcome that links to the chat", () => {
    expect(manifest.contributes.viewsContainers.activitybar).toContainEqual(expect.objectContaining({ id: "pi-lsp", title: "pi-lsp", icon: "media/pi-lsp.svg" }));
    expect(manifest.contributes.views["pi-lsp"]).toContainEqual(expect.objectContaining({ id: SESSION_TREE_VIEW, name: "Session" }));
    const welcome = manifest.contributes.viewsWelcome.find((entry: { view: string }) => entry.view === SESSION_TREE_VIEW);
    expect(welcome.contents).toContain("(command:pi-lsp.chat.focus)");
  });

  it("declares the commands and puts them in the view's menus", () => {
    const declared = manifest.contributes.commands.map((command: { command: string }) => command.command);
    for (const id of [...Object.values(SESSION_TREE_COMMANDS), "pi-lsp.openToolOutput"]) expect(declared).toContain(id);
    const title = manifest.contributes.menus["view/title"].filter((menu: { when: string }) => menu.when === `view == ${SESSION_TREE_VIEW}`);
    expect(title.map((menu: { command: string }) => menu.command).sort()).toEqual([SESSION_TREE_COMMANDS.compact, SESSION_TREE_COMMANDS.refresh].sort());
    const context = manifest.contributes.menus["view/item/context"].filter((menu: { when: string }) => menu.when.includes(`view == ${SESSION_TREE_VIEW}`));
    expect(context.map((menu: { command: string }) => menu.command)).toEqual(
      expect.arrayContaining([SESSION_TREE_COMMANDS.navigate, SESSION_TREE_COMMANDS.navigateWithSummary]),
    );
    for (const menu of context) expect(menu.when).toContain("viewItem =~ /^entry/");
  });
});
