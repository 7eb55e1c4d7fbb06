/**
 * A `pi/runTool` run's `pi/event` stream as text, in `seq` order (docs/protocol.md).
 *
 * `ToolRunLog` takes events as they arrive, holds those that come early, and returns the text
 * that can be shown now; `finish` closes the run with the request's outcome, naming any events
 * that never came. `ToolStreams` routes `pi/event` notifications to the run of their stream.
 * No editor API here: the command in toolCommand.ts shows the text.
 */

export const TOOLS = ["bash", "read", "ls", "find", "grep", "edit", "write"] as const;

/** What an `end` event and the `pi/runTool` result carry. */
export interface ToolResult {
  stream?: string | number;
  isError?: boolean;
  aborted?: boolean;
  content?: unknown[];
  details?: Record<string, unknown>;
}

interface ToolEvent extends ToolResult {
  stream?: string | number;
  seq?: number;
  type?: string;
  tool?: string;
  args?: unknown;
  text?: string;
}

/** The outcome of the request, as the command saw it. */
export type RunOutcome =
  | { kind: "result"; result: ToolResult }
  | { kind: "cancelled" }
  | { kind: "error"; message: string };

function contentText(content: unknown[] | undefined): string {
  const parts: string[] = [];
  for (const item of content ?? []) {
    if (typeof item !== "object" || item === null) continue;
    const part = item as { type?: string; text?: unknown; mimeType?: unknown };
    if (part.type === "text" && typeof part.text === "string") parts.push(part.text);
    else if (part.type === "image") parts.push(`[image ${typeof part.mimeType === "string" ? part.mimeType : ""}]`.replace(" ]", "]"));
  }
  return parts.join("\n");
}

function withNewline(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

function seqRange(first: number, last: number): string {
  return first === last ? `event ${first}` : `events ${first}–${last}`;
}

export function resultStatus(result: ToolResult): string {
  if (result.aborted) return "aborted";
  return result.isError ? "failed" : "done";
}

export class ToolRunLog {
  private next = 1;
  private readonly early = new Map<number, ToolEvent>();
  private sawOutput = false;
  private ended: ToolResult | undefined;
  private finished = false;
  /** Output text so far ends with a newline (or nothing was written). */
  private atLineStart = true;

  /** The text to append for this event: "" while it waits for earlier ones. */
  push(event: unknown): string {
    if (this.finished || typeof event !== "object" || event === null) return "";
    const e = event as ToolEvent;
    if (typeof e.seq !== "number" || !Number.isInteger(e.seq) || e.seq < this.next || this.early.has(e.seq)) return "";
    this.early.set(e.seq, e);
    return this.drain();
  }

  private drain(): string {
    let text = "";
    for (let event = this.early.get(this.next); event !== undefined; event = this.early.get(this.next)) {
      this.early.delete(this.next);
      this.next += 1;
      text += this.render(event);
    }
    return text;
  }

  private write(text: string): string {
    if (text !== "") this.atLineStart = text.endsWith("\n");
    return text;
  }

  private render(event: ToolEvent): string {
    switch (event.type) {
      case "start":
        return this.write(`▶ ${event.tool ?? "tool"} ${JSON.stringify(event.args ?? {})}\n`);
      case "output":
        if (typeof event.text !== "string" || event.text === "") return "";
        this.sawOutput = true;
        return this.write(event.text);
      case "end":
        this.ended = event;
        return this.write(`${this.atLineStart ? "" : "\n"}${this.sawOutput ? "" : withNewline(contentText(event.content))}■ ${resultStatus(event)}\n`);
      default:
        return "";
    }
  }

  /**
   * Close the run: what is still held is written in order, each hole named; then the outcome,
   * unless an `end` event already told it.
   */
  finish(outcome: RunOutcome): string {
    if (this.finished) return "";
    let text = "";
    const held = [...this.early.keys()].sort((a, b) => a - b);
    for (const seq of held) {
      if (seq > this.next) text += this.write(`${this.atLineStart ? "" : "\n"}[pi-lsp: ${seqRange(this.next, seq - 1)} missing]\n`);
      this.next = seq;
      text += this.drain();
    }
    this.finished = true;
    const lead = this.atLineStart ? "" : "\n";
    switch (outcome.kind) {
      case "result":
        if (this.ended === undefined) {
          // No `end` arrived: say so, and show the result the response carries.
          const seen = this.next === 1 ? "no events arrived" : `no end event after seq ${this.next - 1}`;
          const ending = `${lead}[pi-lsp: ${seen}]\n`;
          return text + this.write(`${ending}${this.sawOutput ? "" : withNewline(contentText(outcome.result.content))}■ ${resultStatus(outcome.result)}\n`);
        }
        return text;
      case "cancelled":
        return text + this.write(`${lead}■ cancelled\n`);
      case "error":
        return text + this.write(`${lead}■ error: ${outcome.message}\n`);
    }
  }

  /** Events still held for lack of an earlier one. */
  get waiting(): number {
    return this.early.size;
  }
}

/** Routes `pi/event` notifications by their `stream` to the run listening on it. */
export class ToolStreams {
  private readonly listeners = new Map<string, (event: unknown) => void>();
  private counter = 0;

  /** A stream id of this client's own, unique in this window. */
  newStreamId(now: number = Date.now()): string {
    this.counter += 1;
    return `vscode-${now.toString(36)}-${this.counter}`;
  }

  listen(stream: string, listener: (event: unknown) => void): { dispose(): void } {
    this.listeners.set(stream, listener);
    return { dispose: () => this.listeners.get(stream) === listener && this.listeners.delete(stream) };
  }

  /** True when the event belonged to a listening run. */
  dispatch(params: unknown): boolean {
    if (typeof params !== "object" || params === null) return false;
    const stream = (params as { stream?: unknown }).stream;
    const listener = typeof stream === "string" || typeof stream === "number" ? this.listeners.get(String(stream)) : undefined;
    listener?.(params);
    return listener !== undefined;
  }
}

/** Arguments typed into the input box: a JSON object, or the reason it is not one. */
export function parseToolArgs(text: string): { args: Record<string, unknown> } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `not JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { problem: "the arguments must be a JSON object" };
  return { args: value as Record<string, unknown> };
}

/** A starting value for the arguments box. */
export function exampleArgs(tool: string): string {
  switch (tool) {
    case "bash":
      return '{"command": ""}';
    case "read":
    case "ls":
      return '{"path": "."}';
    case "find":
    case "grep":
      return '{"pattern": ""}';
    case "edit":
      return '{"path": "", "edits": [{"oldText": "", "newText": ""}]}';
    case "write":
      return '{"path": "", "content": ""}';
    default:
      return "{}";
  }
}
