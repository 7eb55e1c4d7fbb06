/**
 * One chat tool run as text: the output as the tool printed it (from `tool_output` events) and,
 * once `tool_execution_end` arrives, what the model received (the result's text content, which
 * is Pi's truncated view with its markers). No editor API here: toolPanels.ts serves the text as
 * a read-only document.
 *
 * Memory: a run keeps at most OUTPUT_HEAD_CHARS from the start of its output and
 * OUTPUT_TAIL_CHARS from the end (the middle is dropped and counted), and at most
 * MODEL_VIEW_CHARS of the result text.
 */

/** Characters of output kept from the start of a run. */
export const OUTPUT_HEAD_CHARS = 64 * 1024;
/** Characters of output kept from the end of a run (Pi's bash truncation keeps the end too). */
export const OUTPUT_TAIL_CHARS = 448 * 1024;
/** Characters of the model's view kept (Pi cuts tool results to 50 KB, so this rarely bites). */
export const MODEL_VIEW_CHARS = 256 * 1024;
/** Characters of the arguments shown in the header. */
const ARGS_CHARS = 400;

export const OUTPUT_HEADER = "════════ Output as the tool printed it (live) ════════";
export const MODEL_HEADER = "════════ What the model received (the tool result's text) ════════";

export type RunStatus = "running" | "done" | "failed";

/** The parts of `details.truncation` (Pi's TruncationResult) shown here. */
interface Truncation {
  truncated?: boolean;
  truncatedBy?: string | null;
  totalLines?: number;
  totalBytes?: number;
  outputLines?: number;
  outputBytes?: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text of a tool result's content blocks; images become a one-line placeholder. */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "image") parts.push(`[image${typeof block.mimeType === "string" ? ` ${block.mimeType}` : ""}]`);
  }
  return parts.join("\n");
}

function shorten(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= width ? flat : `${flat.slice(0, width - 1)}…`;
}

/** What a run works on, in a few words: the bash command, the path, the pattern. */
export function argsSubject(args: unknown): string {
  if (!isObject(args)) return "";
  for (const key of ["command", "pattern", "path"]) {
    const value = args[key];
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return "";
}

/** A tab title: tool name and short args (`bash: npm test`, `read: src/a.ts`). */
export function runTitle(toolName: string, args: unknown, width = 48): string {
  const subject = argsSubject(args);
  return subject === "" ? toolName : `${toolName}: ${shorten(subject, width)}`;
}

function figure(count: number): string {
  return count.toLocaleString("en-US");
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function withNewline(text: string): string {
  return text === "" || text.endsWith("\n") ? text : `${text}\n`;
}

export class ToolRunView {
  readonly session: string;
  readonly toolCallId: string;
  toolName: string;
  args: unknown;
  turn: number | undefined;
  status: RunStatus = "running";
  /** The run was rebuilt from the session file: its live output was never seen here. */
  fromHistory = false;

  private head = "";
  private tail: string[] = [];
  private tailChars = 0;
  private droppedChars = 0;
  private outputChars = 0;
  private modelText: string | undefined;
  private modelDropped = 0;
  private truncation: Truncation | undefined;
  private fullOutputPath: string | undefined;

  constructor(session: string, toolCallId: string, toolName: string, args?: unknown, turn?: number) {
    this.session = session;
    this.toolCallId = toolCallId;
    this.toolName = toolName;
    this.args = args;
    this.turn = turn;
  }

  get title(): string {
    return runTitle(this.toolName, this.args);
  }

  /** Characters of output the run printed (kept or not). */
  get printedChars(): number {
    return this.outputChars;
  }

  /** Characters of output held in memory. */
  get keptChars(): number {
    return this.head.length + this.tailChars;
  }

  get ended(): boolean {
    return this.status !== "running";
  }

  appendOutput(text: string): void {
    if (text === "" || this.ended) return;
    this.outputChars += text.length;
    if (this.head.length < OUTPUT_HEAD_CHARS) {
      const room = OUTPUT_HEAD_CHARS - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
      if (text === "") return;
    }
    this.tail.push(text);
    this.tailChars += text.length;
    while (this.tailChars > OUTPUT_TAIL_CHARS) {
      const first = this.tail[0]!;
      const excess = this.tailChars - OUTPUT_TAIL_CHARS;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailChars -= first.length;
        this.droppedChars += first.length;
      } else {
        this.tail[0] = first.slice(excess);
        this.tailChars -= excess;
        this.droppedChars += excess;
      }
    }
  }

  /** `tool_execution_end`: the result (`{content, details}`) and whether it is an error. */
  end(result: unknown, isError: boolean): void {
    if (this.ended) return;
    const content = isObject(result) ? result.content : undefined;
    const details = isObject(result) ? result.details : undefined;
    const text = resultText(content);
    this.modelText = text.length > MODEL_VIEW_CHARS ? text.slice(0, MODEL_VIEW_CHARS) : text;
    this.modelDropped = text.length - this.modelText.length;
    if (isObject(details)) {
      // Only the figures: `truncation.content` repeats the kept text and is not held.
      const truncation = details.truncation;
      if (isObject(truncation)) {
        const pick = (key: string) => (typeof truncation[key] === "number" ? (truncation[key] as number) : undefined);
        this.truncation = {
          truncated: truncation.truncated === true,
          truncatedBy: typeof truncation.truncatedBy === "string" ? truncation.truncatedBy : null,
          totalLines: pick("totalLines"),
          totalBytes: pick("totalBytes"),
          outputLines: pick("outputLines"),
          outputBytes: pick("outputBytes"),
        };
      }
      if (typeof details.fullOutputPath === "string") this.fullOutputPath = details.fullOutputPath;
    }
    this.status = isError ? "failed" : "done";
  }

  /** The output kept, with a note where the middle was dropped. */
  output(): string {
    if (this.droppedChars === 0) return this.head + this.tail.join("");
    const note = `\n[pi-lsp: ${figure(this.droppedChars)} characters of output dropped here; this panel keeps the first ${figure(OUTPUT_HEAD_CHARS)} and the last ${figure(OUTPUT_TAIL_CHARS)}]\n`;
    return this.head + note + this.tail.join("");
  }

  /** One line comparing the model's view with the printed output. */
  comparison(): string {
    if (!this.ended) return "The model's view appears below when the tool ends.";
    const cut = this.truncation;
    if (cut?.truncated) {
      const lines =
        cut.outputLines !== undefined && cut.totalLines !== undefined ? `${figure(cut.outputLines)} of ${figure(cut.totalLines)} lines` : "part of the output";
      const bytes =
        cut.outputBytes !== undefined && cut.totalBytes !== undefined ? ` (${formatBytes(cut.outputBytes)} of ${formatBytes(cut.totalBytes)})` : "";
      const by = cut.truncatedBy ? `, cut by the ${cut.truncatedBy} limit` : "";
      const where = this.fullOutputPath ? `; full output saved to ${this.fullOutputPath}` : "";
      return `TRUNCATED: the model received ${lines}${bytes}${by}${where}.`;
    }
    if (this.fromHistory) return "Rebuilt from the session file: the live output of this run was not seen in this window.";
    if (this.outputChars === 0) return "This tool printed no live output; the model received its result below.";
    if ((this.modelText ?? "").trim() === this.output().trim()) return "The model received the output unchanged.";
    return "The model received the text below, which differs from the printed output.";
  }

  render(): string {
    const status = this.status === "running" ? "running…" : this.status;
    const lines = [`pi-lsp · ${runTitle(this.toolName, this.args, ARGS_CHARS)}`];
    const where = [`session ${this.session}`, ...(this.turn !== undefined ? [`turn ${this.turn}`] : []), `tool call ${this.toolCallId}`];
    lines.push(where.join(" · "));
    // The arguments, unless the title already said all of them.
    const saidAll = isObject(this.args) && Object.keys(this.args).length === 1 && argsSubject(this.args) !== "";
    if (this.args !== undefined && !saidAll) lines.push(`args: ${shorten(JSON.stringify(this.args) ?? "", ARGS_CHARS)}`);
    lines.push(`status: ${status}`);
    lines.push(this.comparison());
    lines.push("", OUTPUT_HEADER);
    let text = `${lines.join("\n")}\n`;
    const output = this.output();
    if (output !== "") text += withNewline(output);
    else if (this.fromHistory) text += "(not recorded: this run happened before this window listened)\n";
    else text += this.ended ? "(no live output)\n" : "(waiting for output…)\n";
    if (this.modelText !== undefined) {
      text += `\n${MODEL_HEADER}\n`;
      text += withNewline(this.modelText === "" ? "(empty result)" : this.modelText);
      if (this.modelDropped > 0) text += `[pi-lsp: ${figure(this.modelDropped)} more characters not shown here]\n`;
    }
    return text;
  }
}
