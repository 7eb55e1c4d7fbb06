/**
 * What the chat view's host side (extension) and its webview say to each other, and the shapes
 * of the transcript both sides hold. Imported by both bundles: no Node or editor API here.
 * Every message is checked on receipt (`parseHostMessage`, `parseWebviewMessage`): the webview is
 * a page, and what it posts is data, not trusted calls.
 */
import { isCompletionItem, parseAttachment, type Attachment, type CompletionItem, type Trigger } from "./attachments";

/** How a tool run stands. */
export type ToolStatus = "pending" | "running" | "done" | "error" | "aborted";

export interface UserItem {
  readonly kind: "user";
  readonly id: string;
  text: string;
  /** What the prompt carried besides its text (file names, `file:lines`, images). */
  attachments?: string[];
}

export interface AssistantBlock {
  type: "text" | "thinking";
  text: string;
}

export interface AssistantItem {
  readonly kind: "assistant";
  readonly id: string;
  blocks: AssistantBlock[];
  /** Text is still arriving. */
  streaming: boolean;
}

export interface ToolItem {
  readonly kind: "tool";
  /** The tool call id (`toolCallId`). */
  readonly id: string;
  name: string;
  /** One line saying what the call does: the bash command, the path read, the pattern. */
  summary: string;
  status: ToolStatus;
  /** Output as printed (tool_output), else the result's text once it ends. */
  output: string;
  /** Earlier output was dropped from `output` to keep the transcript small. */
  clipped: boolean;
  /** The result the model read was cut (details.truncation, Pi's markers). */
  truncated: boolean;
  /** No tool run stands behind the card (a `!` command of the user's, a `bashExecution`
   * entry), so there is no output panel to open. */
  noRun?: boolean;
}

export interface NoticeItem {
  readonly kind: "notice";
  readonly id: string;
  level: "info" | "error";
  text: string;
  /** Longer text shown collapsed (a compaction summary). */
  detail?: string;
}

/** What the user answered to a `pi/approve` question (or that it was withdrawn). */
export type ApprovalStatus = "open" | "allowed" | "allowedSession" | "applied" | "denied" | "withdrawn";
/** `applied`: accepted in review, the editor applies the change itself. */
export type ApprovalDecision = "allow" | "allowSession" | "applied" | "deny";
export const APPROVAL_DECISIONS: readonly ApprovalDecision[] = ["allow", "allowSession", "applied", "deny"];

/** A question the server asked before running a call (`pi/approve`), shown as a card. */
export interface ApprovalItem {
  readonly kind: "approval";
  readonly id: string;
  toolCallId: string;
  /** `bash`, `edit` or `write`. */
  tool: string;
  /** The bash command, or the file as the model named it. */
  subject: string;
  /** Where the command runs (bash), or the file's absolute path (edit, write). */
  where: string;
  /** The unified diff of an edit or write. */
  diff?: string;
  newFile?: boolean;
  diffTruncated?: boolean;
  /** The change can be reviewed in the diff editor and applied by the editor (Accept). */
  reviewable?: boolean;
  status: ApprovalStatus;
  reason?: string;
}

export type TranscriptItem = UserItem | AssistantItem | ToolItem | NoticeItem | ApprovalItem;

export interface ModelOption {
  /** `provider/id`. */
  value: string;
  label: string;
}

/** Pi's thinking levels, least to most. */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export function isThinkingLevel(value: unknown): value is ThinkingLevel {
  return typeof value === "string" && (THINKING_LEVELS as readonly string[]).includes(value);
}

export interface UsageCategory {
  kind: string;
  label: string;
  tokens: number;
}

/** What the context meter shows (from `pi/session/usage`). */
export interface UsageView {
  contextWindow: number;
  threshold: number;
  total: number;
  estimated: boolean;
  /** The model's last reported usage the total is built on (0: the total is all estimate). */
  usageTokens: number;
  categories: UsageCategory[];
}

export interface ViewState {
  running: boolean;
  models: ModelOption[];
  /** The model picker's value, `provider/id`, or "" when none is known. */
  model: string;
  /** The thinking picker's value, or "" before a session says it (the server's default). */
  thinking: ThinkingLevel | "";
  /** The selected model reasons (`reasoning` in pi/models); when false the picker shows "off", disabled. */
  reasoning: boolean;
  /** The session's title shown above the transcript ("New chat" before the first answer). */
  title: string;
}

/** Host → webview. */
export type HostMessage =
  | { type: "reset"; items: TranscriptItem[] }
  | { type: "upsert"; item: TranscriptItem }
  | { type: "textDelta"; id: string; block: number; blockType: "text" | "thinking"; text: string }
  | { type: "toolOutput"; id: string; text: string }
  | { type: "state"; state: ViewState }
  | { type: "usage"; usage: UsageView | null }
  | { type: "setPrompt"; text: string }
  | { type: "focus" }
  | { type: "completions"; requestId: number; items: CompletionItem[] }
  | { type: "attach"; attachment: Attachment };

/** Webview → host. */
export type WebviewMessage =
  | { type: "ready" }
  | { type: "send"; text: string; attachments?: Attachment[] }
  | { type: "complete"; requestId: number; trigger: Trigger; query: string }
  | { type: "attachActiveFile" }
  | { type: "stop" }
  | { type: "selectModel"; value: string }
  | { type: "selectThinking"; value: ThinkingLevel }
  | { type: "newSession" }
  | { type: "sessions" }
  | { type: "openOutput"; toolCallId: string }
  | { type: "approve"; id: string; decision: ApprovalDecision; reason?: string }
  | { type: "reviewDiff"; id: string }
  | { type: "reviewChange" | "revertChange"; toolCallId: string }
  /** "Restore files to this point" on a user message (its transcript item id). */
  | { type: "restoreFiles"; itemId: string };

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const str = (value: unknown): value is string => typeof value === "string";
const num = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const bool = (value: unknown): value is boolean => typeof value === "boolean";

const TOOL_STATUSES: readonly string[] = ["pending", "running", "done", "error", "aborted"];
const APPROVAL_STATUSES: readonly string[] = ["open", "allowed", "allowedSession", "applied", "denied", "withdrawn"];

export function isTranscriptItem(value: unknown): value is TranscriptItem {
  if (!isObject(value) || !str(value.id)) return false;
  switch (value.kind) {
    case "user":
      return str(value.text) && (value.attachments === undefined || (Array.isArray(value.attachments) && value.attachments.every(str)));
    case "assistant":
      return (
        bool(value.streaming) &&
        Array.isArray(value.blocks) &&
        value.blocks.every((b) => isObject(b) && (b.type === "text" || b.type === "thinking") && str(b.text))
      );
    case "tool":
      return (
        str(value.name) &&
        str(value.summary) &&
        str(value.status) &&
        TOOL_STATUSES.includes(value.status) &&
        str(value.output) &&
        bool(value.clipped) &&
        bool(value.truncated) &&
        (value.noRun === undefined || bool(value.noRun))
      );
    case "notice":
      return (value.level === "info" || value.level === "error") && str(value.text) && (value.detail === undefined || str(value.detail));
    case "approval":
      return (
        str(value.toolCallId) &&
        str(value.tool) &&
        str(value.subject) &&
        str(value.where) &&
        str(value.status) &&
        APPROVAL_STATUSES.includes(value.status) &&
        (value.diff === undefined || str(value.diff)) &&
        (value.newFile === undefined || bool(value.newFile)) &&
        (value.diffTruncated === undefined || bool(value.diffTruncated)) &&
        (value.reviewable === undefined || bool(value.reviewable)) &&
        (value.reason === undefined || str(value.reason))
      );
    default:
      return false;
  }
}

function isUsage(value: unknown): value is UsageView {
  return (
    isObject(value) &&
    num(value.contextWindow) &&
    num(value.threshold) &&
    num(value.total) &&
    bool(value.estimated) &&
    num(value.usageTokens) &&
    Array.isArray(value.categories) &&
    value.categories.every((c) => isObject(c) && str(c.kind) && str(c.label) && num(c.tokens))
  );
}

function isState(value: unknown): value is ViewState {
  return (
    isObject(value) &&
    bool(value.running) &&
    str(value.model) &&
    (value.thinking === "" || isThinkingLevel(value.thinking)) &&
    bool(value.reasoning) &&
    str(value.title) &&
    Array.isArray(value.models) &&
    value.models.every((m) => isObject(m) && str(m.value) && str(m.label))
  );
}

/** A host message as the webview takes it, or undefined for anything else. */
export function parseHostMessage(data: unknown): HostMessage | undefined {
  if (!isObject(data)) return undefined;
  switch (data.type) {
    case "reset":
      return Array.isArray(data.items) && data.items.every(isTranscriptItem) ? (data as HostMessage) : undefined;
    case "upsert":
      return isTranscriptItem(data.item) ? (data as HostMessage) : undefined;
    case "textDelta":
      return str(data.id) && num(data.block) && data.block >= 0 && (data.blockType === "text" || data.blockType === "thinking") && str(data.text)
        ? (data as HostMessage)
        : undefined;
    case "toolOutput":
      return str(data.id) && str(data.text) ? (data as HostMessage) : undefined;
    case "state":
      return isState(data.state) ? (data as HostMessage) : undefined;
    case "usage":
      return data.usage === null || isUsage(data.usage) ? (data as HostMessage) : undefined;
    case "setPrompt":
      return str(data.text) ? (data as HostMessage) : undefined;
    case "focus":
      return { type: "focus" };
    case "completions":
      return num(data.requestId) && Array.isArray(data.items) && data.items.every(isCompletionItem) ? (data as HostMessage) : undefined;
    case "attach": {
      const attachment = parseAttachment(data.attachment);
      return attachment ? { type: "attach", attachment } : undefined;
    }
    default:
      return undefined;
  }
}

/** A webview message as the host takes it, or undefined for anything else. */
export function parseWebviewMessage(data: unknown): WebviewMessage | undefined {
  if (!isObject(data)) return undefined;
  switch (data.type) {
    case "ready":
    case "stop":
    case "newSession":
    case "sessions":
    case "attachActiveFile":
      return { type: data.type };
    case "send": {
      if (!str(data.text)) return undefined;
      if (data.attachments === undefined) return { type: "send", text: data.text };
      const attachments = Array.isArray(data.attachments) ? data.attachments.map(parseAttachment) : [undefined];
      return attachments.every((a) => a !== undefined) ? { type: "send", text: data.text, attachments: attachments as Attachment[] } : undefined;
    }
    case "complete":
      return num(data.requestId) && (data.trigger === "@" || data.trigger === "/") && str(data.query)
        ? { type: "complete", requestId: data.requestId, trigger: data.trigger, query: data.query }
        : undefined;
    case "selectModel":
      return str(data.value) ? { type: "selectModel", value: data.value } : undefined;
    case "selectThinking":
      return isThinkingLevel(data.value) ? { type: "selectThinking", value: data.value } : undefined;
    case "openOutput":
      return str(data.toolCallId) ? { type: "openOutput", toolCallId: data.toolCallId } : undefined;
    case "approve": {
      const decision = APPROVAL_DECISIONS.find((d) => d === data.decision);
      if (!str(data.id) || decision === undefined || !(data.reason === undefined || str(data.reason))) return undefined;
      const reason = str(data.reason) && data.reason.trim() !== "" ? data.reason.trim() : undefined;
      return { type: "approve", id: data.id, decision, ...(reason !== undefined ? { reason } : {}) };
    }
    case "restoreFiles":
      return str(data.itemId) ? { type: "restoreFiles", itemId: data.itemId } : undefined;
    case "reviewDiff":
      return str(data.id) ? { type: "reviewDiff", id: data.id } : undefined;
    case "reviewChange":
    case "revertChange":
      return str(data.toolCallId) ? { type: data.type, toolCallId: data.toolCallId } : undefined;
    default:
      return undefined;
  }
}

/** Links the transcript may open: web pages and mail only (no scripts, data, commands or files). */
export function isSafeLink(href: string): boolean {
  return /^(https?:\/\/|mailto:)/i.test(href.trim());
}

/**
 * The href a transcript link gets, or undefined for none: web pages as written, mail addresses
 * without their query (`mailto:x?attach=…&body=…` could fill a mail with more than the link shows).
 */
export function safeHref(href: string): string | undefined {
  const trimmed = href.trim();
  if (!isSafeLink(trimmed)) return undefined;
  if (/^mailto:/i.test(trimmed)) {
    const address = trimmed.replace(/[?#].*$/s, "");
    return address.length > "mailto:".length ? address : undefined;
  }
  return trimmed;
}

/** A token count as people read it: 950, 41.2k, 128k, 1.2M. */
export function formatTokens(tokens: number): string {
  if (tokens < 1000) return String(Math.round(tokens));
  if (tokens < 1_000_000) {
    const k = tokens / 1000;
    return `${k >= 100 ? Math.round(k) : Number(k.toFixed(1))}k`;
  }
  return `${Number((tokens / 1_000_000).toFixed(1))}M`;
}
