/**
 * The chat transcript as the extension host keeps it: built from a session's chat events
 * (docs/protocol.md "Chat events") as they arrive, or from `pi/session/messages` entries when a
 * session is opened or its leaf moves. The webview is only a picture of it: when the view is
 * shown again it gets `reset` with `items`; while it is visible every change becomes one small
 * `HostMessage` (a delta for streamed text and tool output, else the changed item).
 * No editor API here.
 */
import type { ApprovalItem, AssistantItem, HostMessage, NoticeItem, ToolItem, ToolStatus, TranscriptItem } from "./protocol";
import { formatTokens } from "./protocol";
import { splitAttached } from "./attachments";

/** How much of one tool's output is kept (its tail); the full output is in the output panel. */
export const TOOL_OUTPUT_LIMIT = 200_000;
/** What is kept when output passes the limit: the slack means a cut (which re-sends and
 * re-renders the whole card) happens once per 50K characters, not on every chunk. */
export const TOOL_OUTPUT_KEEP = 150_000;

/**
 * `output + text`; past `limit` characters only the last `keep` are kept (cut at a line start
 * when one is near), and `clipped` says that a cut was made now.
 */
export function appendClipped(
  output: string,
  text: string,
  limit: number = TOOL_OUTPUT_LIMIT,
  keep: number = Math.min(limit, TOOL_OUTPUT_KEEP),
): { output: string; clipped: boolean } {
  const joined = output + text;
  if (joined.length <= limit) return { output: joined, clipped: false };
  let tail = joined.slice(joined.length - keep);
  const newline = tail.indexOf("\n");
  if (newline >= 0 && newline < 2000) tail = tail.slice(newline + 1);
  return { output: tail, clipped: true };
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** The text parts of a message's content (a string, or text blocks). */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const part of content) {
    if (!isObject(part)) continue;
    if (part.type === "text" && typeof part.text === "string") parts.push(part.text);
    else if (part.type === "image") parts.push(`[image${typeof part.mimeType === "string" ? ` ${part.mimeType}` : ""}]`);
  }
  return parts.join("\n");
}

/** A user message as the transcript shows it: the files put in front of its text (and its
 * images) as attachment labels, then the text the user wrote. */
export function userContent(content: unknown): { text: string; attachments?: string[] } {
  const parts = Array.isArray(content) ? content.filter(isObject) : [];
  const text = typeof content === "string" ? content : parts.filter((p) => p.type === "text" && typeof p.text === "string").map((p) => p.text as string).join("\n");
  const split = splitAttached(text);
  const images = parts.filter((p) => p.type === "image").map((p) => (typeof p.mimeType === "string" ? p.mimeType : "image"));
  // An image file's own block already names it; a pasted image has none.
  const pasted = images.slice(split.labels.filter((label) => /\.(png|jpe?g|gif|webp|bmp)$/i.test(label)).length);
  const attachments = [...split.labels, ...pasted.map(() => "pasted image")];
  return { text: split.text, ...(attachments.length ? { attachments } : {}) };
}

function oneLine(text: string, max = 160): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What a tool call does, in one line: the bash command, the path, the pattern. */
export function toolSummary(name: string, args: unknown): string {
  if (!isObject(args)) return "";
  const path = str(args.path);
  switch (name) {
    case "bash":
      return oneLine(str(args.command) ?? "");
    case "read": {
      const offset = typeof args.offset === "number" ? args.offset : undefined;
      const limit = typeof args.limit === "number" ? args.limit : undefined;
      const range = offset !== undefined ? `:${offset}${limit !== undefined ? `-${offset + limit - 1}` : ""}` : "";
      return oneLine(`${path ?? ""}${range}`);
    }
    case "write":
    case "edit":
    case "ls":
      return oneLine(path ?? ".");
    case "grep":
    case "find": {
      const pattern = str(args.pattern) ?? "";
      return oneLine(path ? `${pattern} in ${path}` : pattern);
    }
    default: {
      const json = JSON.stringify(args);
      return json === "{}" ? "" : oneLine(json);
    }
  }
}

/** Pi's notes in a result the model read cut: `[Showing lines 1-2000 of 5000 …]`, a line's
 * `... [truncated]`, grep/find/ls limits, the 50KB byte limit. (A read stopped by its own `limit`,
 * "[N more lines in file …]", is what the model asked for: not a cut.) */
const TRUNCATION_MARKERS = /\[Showing lines \d+-\d+ of \d+|\[truncated\]|(?:matches|results|entries) limit reached|\d+(?:\.\d+)?\s?[KMG]?B limit reached/;
const LIMIT_FLAGS = ["matchLimitReached", "resultLimitReached", "entryLimitReached", "linesTruncated"];

/** True when the tool result shows the model read a cut version of the output. */
export function resultTruncated(result: unknown): boolean {
  if (!isObject(result)) return false;
  const details = result.details;
  if (isObject(details)) {
    if (isObject(details.truncation) && details.truncation.truncated === true) return true;
    if (LIMIT_FLAGS.some((flag) => details[flag] !== undefined && details[flag] !== false)) return true;
  }
  return TRUNCATION_MARKERS.test(contentText(result.content));
}

/** A chat event as it arrives (docs/protocol.md "Chat events"). */
export interface ChatEvent extends Json {
  session: string;
  turn: number;
  seq: number;
  type: string;
}

export function isChatEvent(value: unknown): value is ChatEvent {
  return (
    isObject(value) &&
    typeof value.session === "string" &&
    typeof value.turn === "number" &&
    typeof value.seq === "number" &&
    typeof value.type === "string"
  );
}

export class Transcript {
  private list: TranscriptItem[] = [];
  private readonly byId = new Map<string, TranscriptItem>();
  /** The assistant message being streamed, and its content index → block index map. */
  private streaming: { item: AssistantItem; blocks: Map<number, number> } | undefined;
  /** A user message added when it was sent, until its `message_start` confirms it. */
  private pendingUser: string | undefined;
  private lastTurn = 0;
  private lastSeq = 0;
  /** Counts the runs of turn numbers seen: a lower turn (the server restarted and counts from 1
   * again), a cleared transcript or another session starts a new one. Never reset, so notice ids
   * made from it stay unique. */
  private epoch = 0;
  private counter = 0;

  get items(): readonly TranscriptItem[] {
    return this.list;
  }

  get(id: string): TranscriptItem | undefined {
    return this.byId.get(id);
  }

  clear(): void {
    this.list = [];
    this.byId.clear();
    this.streaming = undefined;
    this.pendingUser = undefined;
    this.resetWatermark();
  }

  /** Forget the last turn and seq seen: the next event starts a new epoch (another session is
   * shown, or the server restarted and counts turns from 1 again). */
  resetWatermark(): void {
    this.lastTurn = 0;
    this.lastSeq = 0;
    this.epoch += 1;
  }

  private newId(prefix: string): string {
    this.counter += 1;
    return `${prefix}-${this.counter}`;
  }

  private put(item: TranscriptItem): HostMessage {
    if (!this.byId.has(item.id)) this.list.push(item);
    this.byId.set(item.id, item);
    // A copy: the message says how the item is now, whatever happens to it later.
    return { type: "upsert", item: structuredClone(item) };
  }

  /** Show `item` (added at the end, or updated where it is); undefined when it was added
   * before the transcript was last cleared or reloaded (nothing to update). */
  putApproval(item: ApprovalItem, added = false): HostMessage | undefined {
    if (!added && this.byId.get(item.id) !== item) return undefined;
    return this.put(item);
  }

  /** A copy of the items, for a `reset`. */
  snapshot(): TranscriptItem[] {
    return structuredClone(this.list);
  }

  /** The prompt just sent, shown before the server confirms it. */
  addUser(text: string, attachments: string[] = []): HostMessage {
    const id = this.newId("user");
    this.pendingUser = id;
    return this.put({ kind: "user", id, text, ...(attachments.length ? { attachments } : {}) });
  }

  addNotice(level: NoticeItem["level"], text: string, detail?: string, id?: string): HostMessage {
    const existing = id !== undefined ? this.byId.get(id) : undefined;
    if (existing?.kind === "notice") {
      existing.level = level;
      existing.text = text;
      existing.detail = detail;
      return this.put(existing);
    }
    return this.put({ kind: "notice", id: id ?? this.newId("notice"), level, text, ...(detail !== undefined ? { detail } : {}) });
  }

  /** The sent prompt did not reach the agent (the request failed before it ran). */
  dropPending(): void {
    this.pendingUser = undefined;
  }

  /** Messages for one chat event of the session shown; duplicates and stale turns are ignored. */
  apply(event: ChatEvent): HostMessage[] {
    if (event.turn === this.lastTurn && event.seq <= this.lastSeq) return [];
    // A lower turn is not stale: the server counts turns from 1 again in each process while the
    // session ids stay the same, so it starts a new epoch.
    if (event.turn < this.lastTurn) this.epoch += 1;
    this.lastTurn = event.turn;
    this.lastSeq = event.seq;
    const turnKey = `${event.session}-${this.epoch}-${event.turn}`;
    switch (event.type) {
      case "message_start":
        return this.messageStart(event.message);
      case "text_delta":
      case "thinking_delta":
        return this.delta(event.type === "text_delta" ? "text" : "thinking", event.contentIndex, event.text);
      case "message_end":
        return this.messageEnd(event.message);
      case "tool_execution_start":
        return this.toolStart(str(event.toolCallId), str(event.toolName), event.args);
      case "tool_output":
        return this.toolOutput(str(event.toolCallId), str(event.toolName), str(event.text) ?? "");
      case "tool_execution_end":
        return this.toolEnd(str(event.toolCallId), str(event.toolName), event.result, event.isError === true);
      case "auto_retry_start": {
        const attempt = `${String(event.attempt ?? "?")}/${String(event.maxAttempts ?? "?")}`;
        const delay = typeof event.delayMs === "number" ? ` in ${Math.round(event.delayMs / 100) / 10}s` : "";
        return [this.addNotice("info", `Retrying (attempt ${attempt}${delay}): ${str(event.errorMessage) ?? "the request failed"}`, undefined, `retry-${turnKey}`)];
      }
      case "auto_retry_end":
        return event.success === true
          ? [this.addNotice("info", `Retry ${String(event.attempt ?? "")} succeeded`.replace("  ", " "), undefined, `retry-${turnKey}`)]
          : [this.addNotice("error", `Retries gave up: ${str(event.finalError) ?? "the request failed"}`, undefined, `retry-${turnKey}`)];
      case "compaction_start":
        return [this.addNotice("info", `Compacting the context${event.reason === "overflow" ? " (the context overflowed)" : ""}…`, undefined, `compaction-${turnKey}`)];
      case "compaction_end":
        return [this.compactionEnd(event, `compaction-${turnKey}`)];
      default:
        return [];
    }
  }

  private compactionEnd(event: ChatEvent, id: string): HostMessage {
    const error = str(event.errorMessage);
    if (error !== undefined) return this.addNotice("error", `Compaction failed: ${error}`, undefined, id);
    if (event.aborted === true) return this.addNotice("info", "Compaction stopped", undefined, id);
    const result = isObject(event.result) ? event.result : {};
    const before = typeof result.tokensBefore === "number" ? ` (${formatTokens(result.tokensBefore)} tokens before)` : "";
    return this.addNotice("info", `Context compacted${before}`, str(result.summary), id);
  }

  private messageStart(message: unknown): HostMessage[] {
    if (!isObject(message)) return [];
    if (message.role === "user") {
      if (this.pendingUser !== undefined) {
        this.pendingUser = undefined;
        return [];
      }
      return [this.put({ kind: "user", id: this.newId("user"), ...userContent(message.content) })];
    }
    if (message.role === "assistant") {
      const item: AssistantItem = { kind: "assistant", id: this.newId("assistant"), blocks: [], streaming: true };
      this.streaming = { item, blocks: new Map() };
      return [this.put(item)];
    }
    return [];
  }

  private delta(blockType: "text" | "thinking", contentIndex: unknown, text: unknown): HostMessage[] {
    if (typeof text !== "string" || text === "") return [];
    const out: HostMessage[] = [];
    if (this.streaming === undefined) out.push(...this.messageStart({ role: "assistant" }));
    const streaming = this.streaming!;
    const index = typeof contentIndex === "number" ? contentIndex : -1;
    const known = streaming.blocks.get(index);
    let block = known ?? streaming.item.blocks.length;
    let current = known !== undefined ? streaming.item.blocks[known] : undefined;
    if (current === undefined || current.type !== blockType) {
      block = streaming.item.blocks.length;
      current = { type: blockType, text: "" };
      streaming.item.blocks.push(current);
      streaming.blocks.set(index, block);
    }
    current.text += text;
    out.push({ type: "textDelta", id: streaming.item.id, block, blockType, text });
    return out;
  }

  private messageEnd(message: unknown): HostMessage[] {
    if (!isObject(message)) return [];
    if (message.role === "user") return this.pendingUser !== undefined ? this.messageStart(message) : [];
    if (message.role !== "assistant") return [];
    const item = this.streaming?.item ?? { kind: "assistant", id: this.newId("assistant"), blocks: [], streaming: false };
    this.streaming = undefined;
    return this.assistantMessage(item, message);
  }

  /** Fill `item` from a finished assistant message; its tool calls become pending cards. */
  private assistantMessage(item: AssistantItem, message: Json): HostMessage[] {
    const out: HostMessage[] = [];
    item.blocks = [];
    item.streaming = false;
    const calls: Json[] = [];
    for (const part of Array.isArray(message.content) ? message.content : []) {
      if (!isObject(part)) continue;
      if (part.type === "text" && typeof part.text === "string" && part.text !== "") item.blocks.push({ type: "text", text: part.text });
      else if (part.type === "thinking" && typeof part.thinking === "string" && part.thinking !== "") item.blocks.push({ type: "thinking", text: part.thinking });
      else if (part.type === "toolCall") calls.push(part);
    }
    out.push(this.put(item));
    for (const call of calls) {
      const id = str(call.id);
      if (id !== undefined && !this.byId.has(id)) {
        const name = str(call.name) ?? "tool";
        out.push(this.put({ kind: "tool", id, name, summary: toolSummary(name, call.arguments), status: "pending", output: "", clipped: false, truncated: false }));
      }
    }
    if (message.stopReason === "error") out.push(this.addNotice("error", str(message.errorMessage) ?? "The model answered with an error"));
    else if (message.stopReason === "aborted") out.push(this.addNotice("info", "Stopped"));
    return out;
  }

  private tool(id: string | undefined, name: string | undefined): ToolItem | undefined {
    if (id === undefined) return undefined;
    const existing = this.byId.get(id);
    if (existing?.kind === "tool") return existing;
    if (existing !== undefined) return undefined;
    const item: ToolItem = { kind: "tool", id, name: name ?? "tool", summary: "", status: "running", output: "", clipped: false, truncated: false };
    this.put(item);
    return item;
  }

  private toolStart(id: string | undefined, name: string | undefined, args: unknown): HostMessage[] {
    const item = this.tool(id, name);
    if (!item) return [];
    item.status = "running";
    if (name !== undefined) item.name = name;
    const summary = toolSummary(item.name, args);
    if (summary !== "") item.summary = summary;
    return [this.put(item)];
  }

  private toolOutput(id: string | undefined, name: string | undefined, text: string): HostMessage[] {
    if (text === "") return [];
    const known = id !== undefined && this.byId.has(id);
    const item = this.tool(id, name);
    if (!item) return [];
    const next = appendClipped(item.output, text);
    const wasClipped = item.clipped;
    item.output = next.output;
    item.clipped = item.clipped || next.clipped;
    // A card just made, or output cut at its head, is sent whole; else only the new text.
    if (!known || next.clipped || wasClipped !== item.clipped) return [this.put(item)];
    return [{ type: "toolOutput", id: item.id, text }];
  }

  private toolEnd(id: string | undefined, name: string | undefined, result: unknown, isError: boolean): HostMessage[] {
    const item = this.tool(id, name);
    if (!item) return [];
    this.finishTool(item, result, isError);
    return [this.put(item)];
  }

  private finishTool(item: ToolItem, result: unknown, isError: boolean): void {
    const details = isObject(result) ? result.details : undefined;
    const aborted = isObject(details) && details.aborted === true;
    item.status = aborted ? "aborted" : isError ? "error" : "done";
    item.truncated = resultTruncated(result);
    if (item.output === "" && isObject(result)) {
      // An edit shows its diff under the result line.
      const diff = isObject(details) && typeof details.diff === "string" && details.diff !== "" ? `\n${details.diff}` : "";
      const next = appendClipped("", contentText(result.content) + diff);
      item.output = next.output;
      item.clipped = next.clipped;
    }
  }

  /** The transcript of a session's active branch (`pi/session/messages` entries). */
  load(entries: readonly unknown[]): void {
    this.clear();
    for (const entry of entries) {
      if (!isObject(entry)) continue;
      switch (entry.type) {
        case "message":
          this.loadMessage(entry.message, str(entry.id));
          break;
        case "compaction": {
          const before = typeof entry.tokensBefore === "number" ? ` (${formatTokens(entry.tokensBefore)} tokens before)` : "";
          this.addNotice("info", `Context compacted${before}`, str(entry.summary));
          break;
        }
        case "branch_summary":
          this.addNotice("info", "Summary of the branch left behind", str(entry.summary));
          break;
        default:
          break;
      }
    }
    // A run that ended without a result (the session stopped mid-run) did not finish.
    for (const item of this.list) if (item.kind === "tool" && (item.status === "pending" || item.status === "running")) item.status = "aborted";
  }

  private loadMessage(message: unknown, entryId: string | undefined): void {
    if (!isObject(message)) return;
    switch (message.role) {
      case "user":
        this.put({ kind: "user", id: this.newId("user"), ...userContent(message.content) });
        break;
      case "assistant":
        this.assistantMessage({ kind: "assistant", id: this.newId("assistant"), blocks: [], streaming: false }, message);
        break;
      case "toolResult": {
        const item = this.tool(str(message.toolCallId), str(message.toolName));
        if (item) this.finishTool(item, message, message.isError === true);
        break;
      }
      case "bashExecution": {
        const status: ToolStatus = message.cancelled === true ? "aborted" : message.exitCode === 0 ? "done" : "error";
        const output = appendClipped("", str(message.output) ?? "");
        this.put({
          kind: "tool",
          id: entryId ?? this.newId("bash"),
          name: "bash",
          summary: oneLine(str(message.command) ?? ""),
          status,
          output: output.output,
          clipped: output.clipped,
          truncated: message.truncated === true,
          noRun: true,
        });
        break;
      }
      case "custom":
        if (message.display !== false) {
          const text = contentText(message.content);
          if (text !== "") this.addNotice("info", text);
        }
        break;
      default:
        break;
    }
  }
}
