import { describe, expect, it } from "vitest";
import { exampleArgs, parseToolArgs, ToolRunLog, ToolStreams, TOOLS } from "../src/toolRun";

const start = { stream: "s", seq: 1, type: "start", tool: "bash", args: { command: "echo hi" } };
const out = (seq: number, text: string) => ({ stream: "s", seq, type: "output", text });
const end = (seq: number, extra: object = {}) => ({ stream: "s", seq, type: "end", isError: false, content: [{ type: "text", text: "hi" }], ...extra });
const result = { stream: "s", isError: false, content: [{ type: "text", text: "hi" }] };

describe("a tool run's events as text", () => {
  it("writes start, output and end in order, and nothing more once the result comes", () => {
    const log = new ToolRunLog();
    expect(log.push(start)).toBe('▶ bash {"command":"echo hi"}\n');
    expect(log.push(out(2, "hi\n"))).toBe("hi\n");
    expect(log.push(out(3, "there"))).toBe("there");
    expect(log.push(end(4))).toBe("\n■ done\n");
    expect(log.finish({ kind: "result", result })).toBe("");
  });

  it("holds events that come early and writes them once the gap fills", () => {
    const log = new ToolRunLog();
    expect(log.push(out(3, "b\n"))).toBe("");
    expect(log.push(out(2, "a\n"))).toBe("");
    expect(log.waiting).toBe(2);
    expect(log.push(start)).toBe('▶ bash {"command":"echo hi"}\na\nb\n');
    expect(log.waiting).toBe(0);
  });

  it("ignores repeated, stale and malformed events", () => {
    const log = new ToolRunLog();
    log.push(start);
    expect(log.push(start)).toBe("");
    expect(log.push(out(3, "x"))).toBe("");
    expect(log.push(out(3, "y"))).toBe("");
    expect(log.push({ seq: "2" })).toBe("");
    expect(log.push(null)).toBe("");
    expect(log.push(out(2, "w"))).toBe("wx");
  });

  it("names the events that never came when the run finishes", () => {
    const log = new ToolRunLog();
    log.push(start);
    expect(log.push(out(4, "late\n"))).toBe("");
    expect(log.push(end(6, { isError: true }))).toBe("");
    expect(log.finish({ kind: "result", result: { ...result, isError: true } })).toBe(
      "[pi-lsp: events 2–3 missing]\nlate\n[pi-lsp: event 5 missing]\n■ failed\n",
    );
  });

  it("shows the result's content when there was no output, and an abort as such", () => {
    const log = new ToolRunLog();
    log.push({ ...start, tool: "read", args: { path: "a.md" } });
    expect(log.push(end(2, { aborted: true, isError: true, content: [{ type: "text", text: "line" }, { type: "image", mimeType: "image/png" }] }))).toBe(
      "line\n[image image/png]\n■ aborted\n",
    );
  });

  it("falls back to the response without an end event, and reports cancellation and errors", () => {
    const noEnd = new ToolRunLog();
    noEnd.push(start);
    noEnd.push(out(2, "partial"));
    expect(noEnd.finish({ kind: "result", result })).toBe("\n[pi-lsp: no end event after seq 2]\n■ done\n");
    const cancelled = new ToolRunLog();
    cancelled.push(start);
    expect(cancelled.finish({ kind: "cancelled" })).toBe("■ cancelled\n");
    expect(cancelled.push(out(2, "after"))).toBe("");
    expect(new ToolRunLog().finish({ kind: "error", message: "Invalid params" })).toBe("■ error: Invalid params\n");
    expect(new ToolRunLog().finish({ kind: "result", result })).toBe("[pi-lsp: no events arrived]\nhi\n■ done\n");
  });
});

describe("tool streams", () => {
  it("routes events to the run of their stream, string or number", () => {
    const streams = new ToolStreams();
    const seen: unknown[] = [];
    const id = streams.newStreamId(0);
    expect(id).toBe("vscode-0-1");
    expect(streams.newStreamId(0)).toBe("vscode-0-2");
    const listening = streams.listen(id, (event) => seen.push(event));
    streams.listen("7", (event) => seen.push(["seven", event]));
    expect(streams.dispatch({ stream: id, seq: 1 })).toBe(true);
    expect(streams.dispatch({ stream: 7, seq: 1 })).toBe(true);
    expect(streams.dispatch({ stream: "other", seq: 1 })).toBe(false);
    expect(streams.dispatch("junk")).toBe(false);
    listening.dispose();
    expect(streams.dispatch({ stream: id, seq: 2 })).toBe(false);
    expect(seen).toEqual([{ stream: id, seq: 1 }, ["seven", { stream: 7, seq: 1 }]]);
  });
});

describe("tool arguments", () => {
  it("takes a JSON object and says what is wrong with anything else", () => {
    expect(parseToolArgs('{"command": "ls"}')).toEqual({ args: { command: "ls" } });
    expect(parseToolArgs("[1]")).toEqual({ problem: "the arguments must be a JSON object" });
    expect(parseToolArgs("{")).toMatchObject({ problem: expect.stringMatching(/^not JSON: /) });
  });

  it("offers a valid example for every tool", () => {
    for (const tool of TOOLS) expect(parseToolArgs(exampleArgs(tool))).toHaveProperty("args");
  });
});
