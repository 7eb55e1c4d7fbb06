/**
 * "pi-lsp: Run tool…": pick a tool, type its arguments (JSON), send `pi/runTool` with a stream id
 * of our own, and show the stream's `pi/event` output, in order, in an output channel named
 * after the run. The progress notification's Cancel button cancels the request, which makes the
 * server abort the tool (bash: kill its process group).
 */
import type { PiClient } from "./client";
import { exampleArgs, parseToolArgs, TOOLS, ToolRunLog, ToolStreams, type RunOutcome, type ToolResult } from "./toolRun";
import {
  activeFileUri,
  createPlainOutputChannel,
  getWorkspaceFolder,
  registerCommand,
  showInputBox,
  showQuickPick,
  withCancellableProgress,
  workspaceFolders,
  type Disposable,
  type OutputChannel,
} from "./vscodeapi";

export const RUN_TOOL_COMMAND = "pi-lsp.runTool";
/** How many runs keep their output channel; an older run's channel is disposed. */
export const KEPT_RUN_CHANNELS = 5;

/** A short name for the run's channel: the tool and what it works on. */
export function runTitle(tool: string, args: Record<string, unknown>, count: number): string {
  const subject = [args.command, args.path, args.pattern].find((value) => typeof value === "string" && value !== "") as string | undefined;
  const short = subject === undefined ? "" : `: ${subject.length > 40 ? `${subject.slice(0, 39)}…` : subject}`;
  return `pi-lsp run ${count} · ${tool}${short}`.replace(/\s+/g, " ");
}

export function registerToolCommand(client: PiClient, streams: ToolStreams, output: OutputChannel): Disposable {
  let runs = 0;
  /** The channels of the last runs, oldest first. */
  const channels: ReturnType<typeof createPlainOutputChannel>[] = [];

  const runTool = async () => {
    const tool = await showQuickPick(TOOLS, "pi-lsp: the tool to run");
    if (tool === undefined) return;
    const typed = await showInputBox({
      prompt: `Arguments of ${tool} (a JSON object)`,
      value: exampleArgs(tool),
      validateInput: (value) => {
        const parsed = parseToolArgs(value);
        return "problem" in parsed ? parsed.problem : undefined;
      },
    });
    if (typed === undefined) return;
    const parsed = parseToolArgs(typed);
    if ("problem" in parsed) return;

    runs += 1;
    const title = runTitle(tool, parsed.args, runs);
    const channel = createPlainOutputChannel(title);
    channels.push(channel);
    while (channels.length > KEPT_RUN_CHANNELS) channels.shift()!.dispose();
    channel.show(true);
    const log = new ToolRunLog();
    const stream = streams.newStreamId();
    const listening = streams.listen(stream, (event) => channel.append(log.push(event)));
    const active = activeFileUri();
    const cwd = (active ? getWorkspaceFolder(active)?.uri.fsPath : undefined) ?? workspaceFolders()[0]?.uri.fsPath;
    const params = { tool, args: parsed.args, stream, ...(cwd !== undefined ? { cwd } : {}) };

    let outcome: RunOutcome;
    try {
      outcome = await withCancellableProgress(`pi-lsp: ${title}`, async (token) => {
        try {
          return { kind: "result", result: await client.request<ToolResult>("pi/runTool", params, token) } as const;
        } catch (error) {
          if (token.isCancellationRequested) return { kind: "cancelled" } as const;
          return { kind: "error", message: error instanceof Error ? error.message : String(error) } as const;
        }
      });
    } finally {
      listening.dispose();
    }
    channel.append(log.finish(outcome));
    if (outcome.kind === "error") output.error(`pi/runTool ${tool}: ${outcome.message}`);
  };

  const command = registerCommand(RUN_TOOL_COMMAND, runTool);
  return {
    dispose: () => {
      command.dispose();
      for (const channel of channels.splice(0)) channel.dispose();
    },
  };
}
