import { beforeEach, describe, expect, it, vi } from "vitest";
import type { PiClient } from "../src/client";
import { KEPT_RUN_CHANNELS, registerToolCommand, RUN_TOOL_COMMAND, runTitle } from "../src/toolCommand";
import { ToolStreams } from "../src/toolRun";
import { stub, window, type CancellationToken } from "./vscode-stub";

beforeEach(() => stub.reset());

/** A client whose pi/runTool sends events through `streams`, as the server would, then answers. */
function setup(run: (params: { stream: string; tool: string; args: unknown; cwd?: string }, token: CancellationToken, send: (e: object) => void) => Promise<unknown>) {
  const streams = new ToolStreams();
  const request = vi.fn(async (method: string, params: { stream: string; tool: string; args: unknown }, token: CancellationToken) => {
    expect(method).toBe("pi/runTool");
    return run(params, token, (event) => streams.dispatch({ stream: params.stream, ...event }));
  });
  const output = window.createOutputChannel("pi-lsp");
  registerToolCommand({ request } as unknown as PiClient, streams, output as never);
  return { request, output, streams };
}

describe("pi-lsp: Run tool…", () => {
  it("runs the picked tool with the typed arguments and shows its events in order in a channel of its own", async () => {
    stub.folders = ["/ws"];
    stub.picks = ["bash"];
    stub.inputs = ['{"command": "echo hi; echo there"}'];
    const { request } = setup(async (params, _token, send) => {
      send({ seq: 1, type: "start", tool: "bash", args: params.args });
      send({ seq: 3, type: "output", text: "there\n" });
      send({ seq: 2, type: "output", text: "hi\n" });
      send({ seq: 4, type: "end", isError: false, content: [] });
      return { stream: params.stream, isError: false, content: [] };
    });
    await stub.commands.get(RUN_TOOL_COMMAND)!();
    const [params] = request.mock.calls[0]!.slice(1) as [{ stream: string; tool: string; args: unknown; cwd: string }];
    expect(params).toMatchObject({ tool: "bash", args: { command: "echo hi; echo there" }, cwd: "/ws" });
    expect(params.stream).toMatch(/^vscode-/);
    const channel = stub.channels.find((c) => c.name.startsWith("pi-lsp run 1"))!;
    expect(channel.name).toBe("pi-lsp run 1 · bash: echo hi; echo there");
    expect(channel.text).toBe('▶ bash {"command":"echo hi; echo there"}\nhi\nthere\n■ done\n');
    expect(stub.inputValidations[0]!("{")).toMatch(/^not JSON/);
    expect(stub.inputValidations[0]!("{}")).toBeUndefined();
  });

  it("cancels the request from the progress notification's Cancel button", async () => {
    stub.picks = ["bash"];
    stub.inputs = ['{"command": "sleep 100"}'];
    setup(
      (params, token, send) =>
        new Promise((_resolve, reject) => {
          send({ seq: 1, type: "start", tool: "bash", args: params.args });
          token.onCancellationRequested(() => {
            send({ seq: 2, type: "end", isError: true, aborted: true, content: [{ type: "text", text: "Command aborted" }] });
            reject(new Error("Request cancelled"));
          });
          stub.progress[0]!.cancel();
        }),
    );
    await stub.commands.get(RUN_TOOL_COMMAND)!();
    const channel = stub.channels.find((c) => c.name.startsWith("pi-lsp run"))!;
    expect(channel.text).toBe('▶ bash {"command":"sleep 100"}\nCommand aborted\n■ aborted\n■ cancelled\n');
  });

  it("reports a refused request in the run's channel and the log, and does nothing when dismissed", async () => {
    stub.picks = ["read", undefined];
    stub.inputs = ['{"path": "nope.md"}'];
    const { output, request } = setup(async () => {
      throw new Error("Invalid params: path");
    });
    await stub.commands.get(RUN_TOOL_COMMAND)!();
    expect(stub.channels.find((c) => c.name.startsWith("pi-lsp run"))!.text).toBe("■ error: Invalid params: path\n");
    expect(output.lines).toEqual(["error pi/runTool read: Invalid params: path"]);
    await stub.commands.get(RUN_TOOL_COMMAND)!();
    expect(request).toHaveBeenCalledOnce();
  });

  it("names a run after its tool and subject, shortened", () => {
    expect(runTitle("grep", { pattern: "TODO" }, 2)).toBe("pi-lsp run 2 · grep: TODO");
    expect(runTitle("bash", { command: "x".repeat(50) }, 3)).toBe(`pi-lsp run 3 · bash: ${"x".repeat(39)}…`);
    expect(runTitle("ls", {}, 1)).toBe("pi-lsp run 1 · ls");
  });
});

describe("pi-lsp: Run tool… channels", () => {
  it("keeps the channels of the last few runs and disposes older ones (and all on dispose)", async () => {
    const streams = new ToolStreams();
    const request = vi.fn(async (_method: string, params: { stream: string }) => ({ stream: params.stream, isError: false, content: [] }));
    const output = window.createOutputChannel("pi-lsp");
    const command = registerToolCommand({ request } as unknown as PiClient, streams, output as never);
    for (let run = 1; run <= KEPT_RUN_CHANNELS + 3; run += 1) {
      stub.picks = ["ls"];
      stub.inputs = ["{}"];
      await stub.commands.get(RUN_TOOL_COMMAND)!();
    }
    const runs = stub.channels.filter((c) => c.name.startsWith("pi-lsp run"));
    expect(runs).toHaveLength(KEPT_RUN_CHANNELS + 3);
    expect(runs.filter((c) => !c.disposed).map((c) => c.name)).toEqual(
      runs.slice(3).map((c) => c.name),
    );
    expect(runs.slice(0, 3).every((c) => c.disposed)).toBe(true);
    command.dispose();
    expect(runs.every((c) => c.disposed)).toBe(true);
    expect(stub.commands.has(RUN_TOOL_COMMAND)).toBe(false);
  });
});
