import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { ActiveSessionTracker } from "../src/activeSession";
import {
  MAX_RUNS,
  OPEN_TOOL_OUTPUT_COMMAND,
  parseOpenArgument,
  REFRESH_MS,
  registerToolPanelCommand,
  TOOL_SCHEME,
  ToolPanels,
  type Schedule,
} from "../src/toolPanels";
import { MODEL_HEADER, OUTPUT_HEAD_CHARS, OUTPUT_HEADER, OUTPUT_TAIL_CHARS, runTitle } from "../src/toolRunView";
import { registerTextDocumentContentProvider, type Uri } from "../src/vscodeapi";
import { stub, ViewColumn } from "./vscode-stub";

beforeEach(() => stub.reset());

/** A real `pi/chat` turn recorded from `pi-lsp serve` (bash printing 2,502 lines, cut to 2,000). */
const recorded: Record<string, unknown>[] = JSON.parse(fs.readFileSync(path.join(__dirname, "fixtures", "chat-bash-events.json"), "utf8"));
const SESSION = recorded[0]!.session as string;
const CALL = "call_0";

/** A timer the test fires by hand. */
function manualTimers(): { schedule: Schedule; due: () => number; fire: () => void; requested: number[] } {
  let callbacks: (() => void)[] = [];
  const requested: number[] = [];
  return {
    schedule: (callback, ms) => {
      requested.push(ms);
      callbacks.push(callback);
      return () => (callbacks = callbacks.filter((c) => c !== callback));
    },
    due: () => callbacks.length,
    fire: () => {
      const now = callbacks;
      callbacks = [];
      for (const callback of now) callback();
    },
    requested,
  };
}

/** A document the stub showed, typed as the extension sees it. */
function shown(index: number): Uri {
  return stub.shown[index] as unknown as Uri;
}

function panelText(panels: ToolPanels): string {
  const run = panels.run(SESSION, CALL)!;
  return panels.provideTextDocumentContent(panels.uriFor(run));
}

describe("a tool output panel fed by a recorded chat turn", () => {
  it("grows in order as output comes, and shows what the model received only after the end", async () => {
    const timers = manualTimers();
    const panels = new ToolPanels(undefined, timers.schedule);
    const seen: string[] = [];
    const start = recorded.findIndex((event) => event.type === "tool_execution_start");
    // Opened as soon as the run starts, as the chat's tool card does.
    for (const event of recorded.slice(0, start + 1)) panels.dispatch(event);
    registerToolPanelCommand(panels);
    registerTextDocumentContentProvider(TOOL_SCHEME, panels);
    await stub.commands.get(OPEN_TOOL_OUTPUT_COMMAND)!({ session: SESSION, toolCallId: CALL });
    seen.push(panelText(panels));
    expect(seen[0]).toContain("(waiting for output…)");
    expect(seen[0]).toContain("status: running…");

    for (const event of recorded.slice(start + 1)) {
      const taken = panels.dispatch(event);
      expect(taken).toBe(["tool_output", "tool_execution_end"].includes(event.type as string));
      if (event.type === "tool_output" || event.type === "tool_execution_end") seen.push(panelText(panels));
    }
    const outputs = recorded.filter((event) => event.type === "tool_output").map((event) => event.text as string);
    expect(outputs.length).toBeGreaterThanOrEqual(3);
    // Each step holds the previous one's output plus the new piece, never reordered.
    for (let step = 1; step <= outputs.length; step++) {
      const printed = outputs.slice(0, step).join("");
      expect(seen[step]!.split(`${OUTPUT_HEADER}\n`)[1]).toBe(printed);
      expect(seen[step]).not.toContain(MODEL_HEADER);
    }
    const final = seen[seen.length - 1]!;
    const [top, rest] = final.split(`${OUTPUT_HEADER}\n`);
    const [live, model] = rest!.split(`\n${MODEL_HEADER}\n`);
    expect(live).toBe(outputs.join(""));
    expect(live).toContain("\n1\n2\n3\n");
    const end = recorded.find((event) => event.type === "tool_execution_end")!;
    const resultText = ((end.result as { content: { text: string }[] }).content[0]!.text);
    expect(model).toBe(`${resultText}\n`);
    expect(model).toMatch(/^502\n/);
    expect(model).toContain("[Showing lines 503-2502 of 2502. Full output: ");
    expect(top).toContain("status: done");
    expect(top).toMatch(/TRUNCATED: the model received 2,000 of 2,502 lines \(9\.3 KB of 11\.1 KB\), cut by the lines limit; full output saved to \/\S+\.log\./);
    expect(top).toContain("pi-lsp · bash: echo start; sleep 0.2; seq 1 2500; sleep 0.2; echo done");
  });

  it("refreshes an open panel at most once per interval while output floods in, and at once at the end", async () => {
    const timers = manualTimers();
    const panels = new ToolPanels(undefined, timers.schedule);
    const fired: string[] = [];
    panels.onDidChange((uri) => fired.push(uri.toString()));
    const base = { session: "s", turn: 1, toolCallId: "t1", toolName: "bash" };
    panels.dispatch({ ...base, seq: 1, type: "tool_execution_start", args: { command: "yes" } });
    registerToolPanelCommand(panels);
    await stub.commands.get(OPEN_TOOL_OUTPUT_COMMAND)!({ session: "s", toolCallId: "t1" });
    for (let seq = 2; seq < 502; seq++) panels.dispatch({ ...base, seq, type: "tool_output", text: "y\n" });
    expect(fired).toHaveLength(0);
    expect(timers.due()).toBe(1);
    expect(timers.requested).toEqual([REFRESH_MS]);
    timers.fire();
    expect(fired).toHaveLength(1);
    panels.dispatch({ ...base, seq: 502, type: "tool_output", text: "y\n" });
    expect(timers.due()).toBe(1);
    panels.dispatch({ ...base, seq: 503, type: "tool_execution_end", result: { content: [{ type: "text", text: "y\n".repeat(501) }] }, isError: false });
    expect(fired).toHaveLength(2);
    expect(timers.due()).toBe(0); // the pending refresh was folded into the end's
    expect(fired[0]).toBe(fired[1]);
    expect(panels.provideTextDocumentContent(shown(0))).toContain("The model received the output unchanged.");
  });

  it("does not refresh panels nobody opened, and stops refreshing a closed one", async () => {
    const timers = manualTimers();
    const panels = new ToolPanels(undefined, timers.schedule);
    const fired: Uri[] = [];
    panels.onDidChange((uri) => fired.push(uri));
    const base = { session: "s", turn: 1, toolCallId: "t1", toolName: "bash" };
    panels.dispatch({ ...base, seq: 1, type: "tool_output", text: "a" });
    expect(timers.due()).toBe(0);
    await panels.show("s", "t1");
    panels.dispatch({ ...base, seq: 2, type: "tool_output", text: "b" });
    expect(timers.due()).toBe(1);
    panels.closed(shown(0));
    expect(timers.due()).toBe(0);
    panels.dispatch({ ...base, seq: 3, type: "tool_execution_end", result: { content: [] }, isError: true });
    expect(fired).toHaveLength(0);
    expect(panels.provideTextDocumentContent(shown(0))).toContain("status: failed");
  });

  it("ignores repeated events and events of other kinds", () => {
    const panels = new ToolPanels(undefined, manualTimers().schedule);
    const base = { session: "s", turn: 1, toolCallId: "t1", toolName: "bash" };
    expect(panels.dispatch({ ...base, seq: 1, type: "tool_output", text: "one\n" })).toBe(true);
    expect(panels.dispatch({ ...base, seq: 1, type: "tool_output", text: "one\n" })).toBe(true);
    expect(panels.dispatch({ ...base, seq: 2, type: "text_delta", text: "hi" })).toBe(false);
    expect(panels.dispatch({ stream: "vscode-1", seq: 3, type: "output", text: "x" })).toBe(false);
    expect(panels.dispatch(null)).toBe(false);
    expect(panels.dispatch({ ...base, seq: 3, type: "tool_output", text: "two\n" })).toBe(true);
    // A new turn (or a restarted server) counts from 1 again.
    expect(panels.dispatch({ ...base, turn: 2, seq: 1, type: "tool_output", text: "three\n" })).toBe(true);
    expect(panels.run("s", "t1")!.output()).toBe("one\ntwo\nthree\n");
  });
});

describe("opening a panel", () => {
  it("opens the run's read-only document beside the active editor, keeping the focus", async () => {
    const panels = new ToolPanels(undefined, manualTimers().schedule);
    registerTextDocumentContentProvider(TOOL_SCHEME, panels);
    registerToolPanelCommand(panels);
    panels.dispatch({ session: "s", turn: 1, seq: 1, type: "tool_execution_start", toolCallId: "t1", toolName: "read", args: { path: "src/deep/dir/file.ts" } });
    const opened = await stub.commands.get(OPEN_TOOL_OUTPUT_COMMAND)!({ session: "s", toolCallId: "t1" });
    expect(opened).toBe(true);
    expect(stub.shown).toHaveLength(1);
    expect(stub.shown[0]!.scheme).toBe(TOOL_SCHEME);
    // The tab shows the tool and its path (slashes would split the URI path).
    expect(stub.shown[0]!.path).toBe("/read: src∕deep∕dir∕file.ts.log");
    expect(stub.shownOptions[0]).toEqual({ preview: false, preserveFocus: true, viewColumn: ViewColumn.Beside });
  });

  it("warns about a bad argument or a run it cannot find, and opens nothing", async () => {
    const panels = new ToolPanels(async () => ({ entries: [] }) as never, manualTimers().schedule);
    registerToolPanelCommand(panels);
    expect(await stub.commands.get(OPEN_TOOL_OUTPUT_COMMAND)!("t1")).toBe(false);
    expect(await stub.commands.get(OPEN_TOOL_OUTPUT_COMMAND)!({ session: "s", toolCallId: "nope" })).toBe(false);
    expect(stub.shown).toHaveLength(0);
    expect(stub.messages.map((m) => m.text)).toEqual([
      "pi-lsp: open tool output needs {session, toolCallId}.",
      "pi-lsp: no output is known for tool call nope.",
    ]);
    expect(parseOpenArgument({ session: "", toolCallId: "x" })).toBeUndefined();
  });

  it("rebuilds a run it did not see live from the session's messages", async () => {
    const asked: unknown[] = [];
    const entries = [
      { id: "a1", type: "message", message: { role: "assistant", content: [{ type: "toolCall", id: "t9", name: "bash", arguments: { command: "ls" } }] } },
      { id: "r1", type: "message", message: { role: "toolResult", toolCallId: "t9", toolName: "bash", content: [{ type: "text", text: "a.txt\n" }], isError: false } },
    ];
    const panels = new ToolPanels(async <R>(method: string, params: object) => {
      asked.push([method, params]);
      return { session: "s", entries } as R;
    }, manualTimers().schedule);
    expect(await panels.show("s", "t9")).toBe(true);
    expect(asked).toEqual([["pi/session/messages", { session: "s" }]]);
    const text = panels.provideTextDocumentContent(shown(0));
    expect(text).toContain("pi-lsp · bash: ls");
    expect(text).toContain("Rebuilt from the session file");
    expect(text.split(`${MODEL_HEADER}\n`)[1]).toBe("a.txt\n");
  });
});

describe("memory bounds", () => {
  it("keeps the start and the end of a huge output and says how much was dropped", () => {
    const panels = new ToolPanels(undefined, manualTimers().schedule);
    const base = { session: "s", turn: 1, toolCallId: "t1", toolName: "bash" };
    const piece = "0123456789".repeat(1000); // 10,000 characters
    const pieces = Math.ceil((OUTPUT_HEAD_CHARS + OUTPUT_TAIL_CHARS) / piece.length) + 30;
    panels.dispatch({ ...base, seq: 1, type: "tool_output", text: "FIRST\n" });
    for (let seq = 2; seq <= pieces; seq++) panels.dispatch({ ...base, seq, type: "tool_output", text: piece });
    panels.dispatch({ ...base, seq: pieces + 1, type: "tool_output", text: "\nLAST\n" });
    const run = panels.run("s", "t1")!;
    const printed = 6 + (pieces - 1) * piece.length + 6;
    expect(run.printedChars).toBe(printed);
    expect(run.keptChars).toBe(OUTPUT_HEAD_CHARS + OUTPUT_TAIL_CHARS);
    const output = run.output();
    expect(output.startsWith("FIRST\n0123")).toBe(true);
    expect(output.endsWith("789\nLAST\n")).toBe(true);
    const dropped = printed - OUTPUT_HEAD_CHARS - OUTPUT_TAIL_CHARS;
    expect(output).toContain(`[pi-lsp: ${dropped.toLocaleString("en-US")} characters of output dropped here;`);
  });

  it("keeps the most recent runs, and an open panel's run even when it is old", async () => {
    const panels = new ToolPanels(undefined, manualTimers().schedule);
    const start = (id: number) =>
      panels.dispatch({ session: "s", turn: 1, seq: id, type: "tool_execution_start", toolCallId: `t${id}`, toolName: "ls", args: { path: "." } });
    start(1);
    start(2);
    await panels.show("s", "t1");
    for (let id = 3; id <= MAX_RUNS + 10; id++) start(id);
    expect(panels.size).toBe(MAX_RUNS);
    expect(panels.run("s", "t1")).toBeDefined();
    expect(panels.run("s", "t2")).toBeUndefined();
    expect(panels.run("s", "t11")).toBeUndefined();
    expect(panels.run("s", "t12")).toBeDefined();
    expect(panels.run("s", `t${MAX_RUNS + 10}`)).toBeDefined();
  });

  it("forgets the runs of a session the user switched away from, unless their panel is open", async () => {
    const panels = new ToolPanels(undefined, manualTimers().schedule);
    const tracker = new ActiveSessionTracker();
    panels.follow(tracker);
    tracker.switchTo({ session: "a", file: null, cwd: "/w" });
    for (const [session, id] of [["a", "1"], ["a", "2"], ["b", "3"]] as const) {
      panels.dispatch({ session, turn: 1, seq: Number(id), type: "tool_output", toolCallId: id, toolName: "bash", text: "x" });
    }
    await panels.show("a", "2");
    tracker.switchTo({ session: "b", file: null, cwd: "/w" });
    expect(panels.run("a", "1")).toBeUndefined();
    expect(panels.run("a", "2")).toBeDefined();
    expect(panels.run("b", "3")).toBeDefined();
    tracker.updated();
    expect(panels.size).toBe(2);
  });
});

describe("panel titles", () => {
  it("name the tool and what it works on, shortened", () => {
    expect(runTitle("bash", { command: "npm test" })).toBe("bash: npm test");
    expect(runTitle("grep", { pattern: "TODO", path: "src" })).toBe("grep: TODO");
    expect(runTitle("bash", { command: `echo ${"x".repeat(80)}` })).toHaveLength("bash: ".length + 48);
    expect(runTitle("ls", {})).toBe("ls");
    expect(runTitle("custom", "not an object")).toBe("custom");
  });
});
