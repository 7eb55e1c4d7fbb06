/**
 * The chat view's host side: sends prompts (`pi/chat`), follows the session's chat events into
 * the transcript, stops a run (cancelling the request makes the server abort it), picks the model
 * and its thinking level (`pi/models`, `pi/model/select`), starts and opens sessions
 * (`pi/session/list`, `pi/session/messages`) and keeps the context meter (`pi/session/usage`)
 * current.
 * The webview gets what changed through `post`; when it is shown again, everything (`attach`).
 */
import type { ActiveSession, ActiveSessionTracker } from "../activeSession";
import {
  activeFileUri,
  activeSelection,
  executeCommand,
  newCancellationTokenSource,
  showErrorMessage,
  showModalWarning,
  showQuickPickItems,
  type CancellationToken,
  type CancellationTokenSource,
  type PickItem,
} from "../vscodeapi";
import {
  isThinkingLevel,
  type ApprovalDecision,
  type ApprovalItem,
  type ApprovalStatus,
  type HostMessage,
  type ModelOption,
  type ThinkingLevel,
  type UsageView,
  type ViewState,
  type WebviewMessage,
} from "./protocol";
import { attachmentLabel, chatAttachmentParams, type Attachment, type CompletionItem, type Trigger } from "./attachments";
import { contentText, isChatEvent, Transcript } from "./transcript";
import { restoreFilesTo } from "../checkpoints";
import type { EditReviewer, Proposal } from "../editReview";
import { reviewChange, revertChange } from "../madeChanges";

/** What the controller needs of the language client (PiClient has it). */
export interface ChatClient {
  request<R>(method: string, params?: object, token?: CancellationToken): Promise<R>;
}

export interface ChatLog {
  warn(message: string): void;
}

/** The panel of one chat tool run (registered by the tool output panels). */
export const OPEN_TOOL_OUTPUT = "pi-lsp.openToolOutput";
/** VS Code's own command that reveals and focuses a view. */
export const FOCUS_CHAT = "pi-lsp.chat.focus";

const NEW_CHAT = "New chat";
/** Context key: an answer is running (package.json shows the Stop command then). */
export const RUNNING_CONTEXT = "pi-lsp.chat.running";
const REQUEST_CANCELLED = -32800;
/** The button of the modal asked before a running answer is stopped by a switch. */
export const STOP_AND_SWITCH = "Stop and Switch";
/** Completions shown at most. */
const COMPLETION_LIMIT = 50;
/** How long after `pi/systemPromptChanged` the meter asks again (bursts become one request). */
const USAGE_DELAY_MS = 300;

interface ChatResult {
  session: string;
  file: string | null;
  cwd: string;
  model?: { provider: string; id: string } | null;
  thinkingLevel?: string;
  queued?: string;
}

/** `pi/model/select` with a session answers with the session's model and level. */
interface SelectResult {
  model?: { provider: string; id: string } | null;
  thinkingLevel?: string;
}

interface ListedModel {
  provider: string;
  id: string;
  name?: string;
  hasKey?: boolean;
  keySource?: string | null;
  reasoning?: boolean;
  /** Why pi-lsp cannot talk to the model yet (`null`: it can). */
  unreachable?: string | null;
}

interface ModelsResult {
  models?: ListedModel[];
  selected?: { provider: string; id: string } | null;
}

/** The quick-pick entry that opens every model Pi knows. */
const ALL_MODELS = "\u0000all";

/** Where a listed model's key comes from, or why it cannot be used, as the picker says it. */
export function keyStatus(model: ListedModel): string {
  if (model.unreachable) return "pi-lsp cannot reach it yet";
  if (model.keySource) return `key: ${model.keySource}`;
  return "no key";
}

interface UsageResult extends UsageView {
  model?: { provider: string; id: string } | null;
}

export interface SessionInfo {
  file: string;
  id: string;
  cwd: string;
  name: string | null;
  modified: string;
  messageCount: number;
  firstMessage: string;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function modelValue(model: { provider: string; id: string } | null | undefined): string {
  return model ? `${model.provider}/${model.id}` : "";
}

/** The params that name a session: the id the server holds, and its file to open it otherwise. */
export function sessionParams(session: ActiveSession): { session: string; file?: string } {
  return session.file ? { session: session.session, file: session.file } : { session: session.session };
}

/** The level of a session's last `thinking_level_change` entry, or "" when it has none. */
function lastThinkingLevel(entries: readonly unknown[]): ThinkingLevel | "" {
  for (let index = entries.length - 1; index >= 0; index -= 1) {
    const entry = entries[index] as { type?: unknown; thinkingLevel?: unknown } | null;
    if (entry?.type === "thinking_level_change" && isThinkingLevel(entry.thinkingLevel)) return entry.thinkingLevel;
  }
  return "";
}

function shortTitle(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line || NEW_CHAT;
}

/** "3 min ago", "yesterday", or the date. */
export function ago(iso: string, now: number = Date.now()): string {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const minutes = Math.round((now - then) / 60000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  if (days === 1) return "yesterday";
  if (days < 7) return `${days} days ago`;
  return new Date(then).toISOString().slice(0, 10);
}

/** The answer to `pi/approve` (docs/protocol.md). */
export interface ApprovalAnswer {
  decision: ApprovalDecision;
  reason?: string;
}

type Question = Omit<ApprovalItem, "kind" | "id" | "status" | "reason">;

const STATUS_OF: Record<ApprovalDecision, ApprovalStatus> = { allow: "allowed", allowSession: "allowedSession", applied: "applied", deny: "denied" };

/** What a card shows of a `pi/approve` question, or undefined when it is not one. */
export function parseApproval(params: unknown): Question | undefined {
  if (typeof params !== "object" || params === null) return undefined;
  const p = params as Record<string, unknown>;
  const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
  const tool = text(p.tool);
  const toolCallId = text(p.toolCallId) ?? "";
  const cwd = text(p.cwd) ?? "";
  if (tool === "bash") {
    const command = text(p.command);
    return command === undefined ? undefined : { toolCallId, tool, subject: command, where: cwd };
  }
  if (tool === "edit" || tool === "write") {
    const path = text(p.displayPath) ?? text(p.path);
    if (path === undefined) return undefined;
    return {
      toolCallId,
      tool,
      subject: path,
      where: text(p.path) ?? path,
      diff: text(p.diff) ?? "",
      ...(p.newFile === true ? { newFile: true } : {}),
      ...(p.diffTruncated === true ? { diffTruncated: true } : {}),
    };
  }
  return undefined;
}

export class ChatController {
  readonly transcript = new Transcript();
  private post: ((message: HostMessage) => void) | undefined;
  private run: CancellationTokenSource | undefined;
  /** The session whose events are shown: the active one, or the one a first prompt created. */
  private liveSession: string | undefined;
  /** A first prompt of a new chat is running: its session is the first turn-1 session seen. */
  private adopting = false;
  private models: ModelOption[] = [];
  private model = "";
  /** The thinking level of the session shown, or "" when not known (the server's default). */
  private thinking: ThinkingLevel | "" = "";
  /** `reasoning` of each listed model, by `provider/id`. */
  private readonly reasoningOf = new Map<string, boolean>();
  private title = NEW_CHAT;
  private usage: UsageView | null = null;
  private usageTimer: ReturnType<typeof setTimeout> | undefined;
  private usageAsked = 0;
  /** The last pi/models failure shown (not repeated each time the view is shown). */
  private modelsProblem: string | undefined;
  /** The value last given to the `pi-lsp.chat.running` context key. */
  private runningKey = false;
  /** Bumped when a run starts or another chat is shown: a `pi/session/messages` answer asked for
   * before then is stale and must not replace the transcript. */
  private generation = 0;
  /** A session read was dropped for a run on the same session: read it again once no run goes on
   * (the history the run's answer belongs to). */
  private rereadAfterRun = false;
  /** Session names from the session list, for the title. */
  private readonly names = new Map<string, string>();
  private readonly subscription: { dispose(): void };
  /** Open `pi/approve` questions by card id: each settles with the user's answer, or without
   * one when the question is withdrawn. */
  private readonly approvals = new Map<string, (answer?: ApprovalAnswer) => void>();
  private approvalCount = 0;
  /** Attachments made while the page was not there (it gets them when it is ready). */
  private readonly unposted: Attachment[] = [];
  /** The proposed changes of open edit/write questions, by card id (see editReview.ts). */
  private readonly proposals = new Map<string, Proposal>();

  constructor(
    private readonly client: ChatClient,
    private readonly tracker: ActiveSessionTracker,
    private readonly log?: ChatLog,
    private readonly review?: EditReviewer,
  ) {
    this.liveSession = tracker.current?.session;
    this.subscription = tracker.onDidChange((session, change) => {
      if (change.kind === "switched") {
        if (session?.session !== this.liveSession) void this.show(session);
      } else if (change.kind === "leafMoved") {
        void this.reload().then(() => {
          if (change.editorText !== undefined) this.send_({ type: "setPrompt", text: change.editorText });
        });
      } else {
        this.refreshUsage();
      }
    });
  }

  dispose(): void {
    for (const settle of [...this.approvals.values()]) settle();
    this.subscription.dispose();
    this.run?.cancel();
    if (this.usageTimer !== undefined) clearTimeout(this.usageTimer);
  }

  get running(): boolean {
    return this.run !== undefined;
  }

  get state(): ViewState {
    const reasoning = this.reasoning;
    return {
      running: this.running,
      models: this.models,
      model: this.model,
      // The server keeps a model without reasoning at "off" whatever was chosen.
      thinking: reasoning ? this.thinking : "off",
      reasoning,
      title: this.title,
    };
  }

  /** The selected model reasons, or is not known not to (a model pi/models did not list). */
  private get reasoning(): boolean {
    return this.reasoningOf.get(this.model) !== false;
  }

  private send_(message: HostMessage): void {
    this.post?.(message);
  }

  private postAll(messages: readonly HostMessage[]): void {
    for (const message of messages) this.send_(message);
  }

  private postState(): void {
    this.send_({ type: "state", state: this.state });
    if (this.running !== this.runningKey) {
      // The "Stop" command shows in the command palette only while an answer runs.
      this.runningKey = this.running;
      void executeCommand("setContext", RUNNING_CONTEXT, this.running);
    }
  }

  private notice(level: "info" | "error", text: string): void {
    this.send_(this.transcript.addNotice(level, text));
  }

  /** The webview (shown again) is ready: give it everything, then refresh models and meter. */
  attach(post: (message: HostMessage) => void): void {
    this.post = post;
    post({ type: "reset", items: this.transcript.snapshot() });
    post({ type: "state", state: this.state });
    post({ type: "usage", usage: this.usage });
    for (const attachment of this.unposted.splice(0)) post({ type: "attach", attachment });
    void this.refreshModels();
    this.refreshUsage(0);
  }

  /** The webview is gone (hidden or disposed): nothing is posted until it is ready again. */
  detach(): void {
    this.post = undefined;
  }

  /** A message from the webview (already validated). */
  async handle(message: WebviewMessage): Promise<void> {
    switch (message.type) {
      case "ready":
        return; // the view provider attaches
      case "send":
        return this.send(message.text, message.attachments);
      case "complete":
        return this.complete(message.requestId, message.trigger, message.query);
      case "attachActiveFile":
        return this.attachActiveFile();
      case "stop":
        return this.stop();
      case "selectModel":
        return this.selectModel(message.value);
      case "selectThinking":
        return this.selectThinking(message.value);
      case "newSession":
        return this.newSession();
      case "sessions":
        return this.openSession();
      case "approve":
        if (message.decision === "applied") return this.accept(message.id);
        this.approvals.get(message.id)?.({ decision: message.decision, ...(message.reason !== undefined ? { reason: message.reason } : {}) });
        return;
      case "reviewDiff":
        return this.openReview(message.id);
      case "reviewChange":
      case "revertChange": {
        const session = this.liveSession;
        if (session === undefined) return;
        const request = <R>(method: string, params: object) => this.client.request<R>(method, params);
        if (message.type === "revertChange") {
          const card = this.transcript.items.find((entry) => entry.id === message.toolCallId);
          return revertChange(request, session, message.toolCallId, card?.kind === "tool" ? card.summary : "the file");
        }
        if (this.review !== undefined) await reviewChange(request, this.review, session, message.toolCallId);
        return;
      }
      case "openOutput": {
        const session = this.liveSession;
        if (session !== undefined) await executeCommand(OPEN_TOOL_OUTPUT, { session, toolCallId: message.toolCallId });
        return;
      }
      case "restoreFiles":
        return this.restoreFiles(message.itemId);
    }
  }

  /**
   * "Restore files to this point" on a user message: the files back to how they were before it
   * was answered. The message's entry is the user message of the same rank in the branch (the
   * transcript shows the branch's user messages in order), checked by its text.
   */
  private async restoreFiles(itemId: string): Promise<void> {
    const session = this.liveSession;
    const users = this.transcript.items.filter((item) => item.kind === "user");
    const rank = users.findIndex((item) => item.id === itemId);
    if (session === undefined || rank < 0) return;
    if (this.running) {
      this.notice("info", "Wait for the answer to finish before restoring files.");
      return;
    }
    const active = this.tracker.current;
    const named = active?.session === session ? sessionParams(active) : { session };
    let entryId: string | undefined;
    try {
      const result = await this.client.request<{ entries: unknown[] }>("pi/session/messages", named);
      const entries = result.entries.filter((entry): entry is { id: string; message: { role: string; content: unknown } } => {
        const e = entry as { id?: unknown; message?: { role?: unknown } } | null;
        return typeof e?.id === "string" && e.message?.role === "user";
      });
      const entry = entries[rank];
      const item = users[rank];
      if (entry !== undefined && item?.kind === "user" && contentText(entry.message.content) === item.text) entryId = entry.id;
    } catch (error) {
      this.log?.warn(`pi/session/messages: ${message(error)}`);
    }
    if (entryId === undefined) {
      this.notice("error", "This message is not in the session's history any more: files cannot be restored to it.");
      return;
    }
    await restoreFilesTo((method, params, token) => this.client.request(method, params, token), { ...named, entryId });
  }

  /** The server (re)started: it counts turns from 1 again, so the next event starts afresh. */
  serverStarted(): void {
    this.transcript.resetWatermark();
  }

  /** A `pi/event` notification: true when it was a chat event of the session shown. */
  dispatch(params: unknown): boolean {
    if (!isChatEvent(params)) return false;
    if (params.session !== this.liveSession) {
      if (!(this.adopting && params.turn === 1)) return false;
      this.liveSession = params.session;
      this.adopting = false;
      // Another session's numbers: its turn 1 must not be measured against what was shown.
      this.transcript.resetWatermark();
      // The new chat's session is known now: the Session view and the panels follow it while
      // the first answer still runs (not only once it ends).
      if (this.run) void this.adopt(params.session, this.run);
    }
    this.postAll(this.transcript.apply(params));
    return true;
  }

  /**
   * A `pi/approve` request: the call is shown as a card with its command or diff, and the
   * user's button is the answer. A cancelled `token` (the server withdrew the question: the run
   * was stopped) closes the card without an answer.
   */
  approve(params: unknown, token?: CancellationToken): Promise<ApprovalAnswer> {
    const question = parseApproval(params);
    if (question === undefined) return Promise.resolve({ decision: "deny", reason: "the editor could not show this call" });
    this.approvalCount += 1;
    const item: ApprovalItem = { kind: "approval", id: `approval-${this.approvalCount}`, ...question, status: "open" };
    const proposed = (params as { proposed?: unknown }).proposed;
    if (this.review !== undefined && question.tool !== "bash" && typeof proposed === "string") {
      item.reviewable = true;
      const { displayPath } = params as { displayPath?: unknown };
      const shown = typeof displayPath === "string" ? displayPath : question.subject;
      this.proposals.set(item.id, { id: item.id, path: question.where, displayPath: shown, proposed, newFile: question.newFile === true, tool: question.tool });
    }
    return new Promise<ApprovalAnswer>((resolve) => {
      let cancelled: { dispose(): void } | undefined;
      const settle = (answer?: ApprovalAnswer): void => {
        if (!this.approvals.delete(item.id)) return;
        cancelled?.dispose();
        if (this.proposals.delete(item.id)) this.review?.close(item.id);
        item.status = answer === undefined ? "withdrawn" : STATUS_OF[answer.decision];
        if (answer?.reason !== undefined) item.reason = answer.reason;
        const update = this.transcript.putApproval(item);
        if (update) this.send_(update);
        resolve(answer ?? { decision: "deny", reason: "the question was withdrawn" });
      };
      this.approvals.set(item.id, settle);
      cancelled = token?.onCancellationRequested(() => settle());
      if (token?.isCancellationRequested) return settle();
      const added = this.transcript.putApproval(item, true);
      if (added) this.send_(added);
      if (item.reviewable) void this.openReview(item.id);
      // The chat view is hidden (or never shown): bring it up, the card is in its transcript.
      if (this.post === undefined) void executeCommand(FOCUS_CHAT);
    });
  }

  /** Show an open question's proposed change in the diff editor (Accept / Reject in its title). */
  private async openReview(id: string): Promise<void> {
    const proposal = this.proposals.get(id);
    if (proposal === undefined || this.review === undefined) return;
    await this.review.open(proposal, (choice) => {
      if (choice === "accept") void this.accept(id);
      else this.approvals.get(id)?.({ decision: "deny" });
    });
  }

  /**
   * Accept a reviewed change: the editor applies it (workspace edit, then save) and the server
   * is told `applied`. Cancelled (unsaved changes the user keeps): the question stays open.
   * Failed: the call is not made, and the model reads why.
   */
  private async accept(id: string): Promise<void> {
    const proposal = this.proposals.get(id);
    if (proposal === undefined || this.review === undefined) return;
    const outcome = await this.review.apply(proposal);
    if (outcome.kind === "applied") return this.approvals.get(id)?.({ decision: "applied" });
    if (outcome.kind === "failed") {
      void showErrorMessage(`pi-lsp: could not apply the change to ${proposal.displayPath}: ${outcome.message}`);
      return this.approvals.get(id)?.({ decision: "deny", reason: `the editor could not apply the change (${outcome.message})` });
    }
    const item = this.transcript.items.find((entry) => entry.id === id);
    const update = item?.kind === "approval" ? this.transcript.putApproval(item) : undefined;
    if (update) this.send_(update); // the card's buttons work again
  }

  /** Send a prompt (with what it carries); while a run is going it is queued as a follow-up. */
  async send(text: string, attachments: readonly Attachment[] = []): Promise<void> {
    if (text.trim() === "") return;
    if (this.run) return this.queue(text, attachments);
    const source = newCancellationTokenSource();
    this.run = source;
    this.generation += 1;
    const active = this.tracker.current;
    if (active?.session !== this.liveSession) this.transcript.resetWatermark();
    this.liveSession = active?.session;
    this.adopting = active === undefined;
    if (this.transcript.items.length === 0) this.title = shortTitle(text);
    this.send_(this.transcript.addUser(text, attachments.map(attachmentLabel)));
    this.postState();
    try {
      // A new chat starts with the level picked for it (an open session already has its own).
      const start = active ? sessionParams(active) : this.thinking !== "" ? { thinkingLevel: this.thinking } : {};
      const params = { text, ...start, ...chatAttachmentParams(attachments) };
      const result = await this.client.request<ChatResult>("pi/chat", params, source.token);
      if (this.run !== source) return; // the user moved to another session meanwhile
      this.liveSession = result.session;
      if (result.model) this.model = modelValue(result.model);
      if (isThinkingLevel(result.thinkingLevel)) this.thinking = result.thinkingLevel;
      this.tracker.switchTo({ session: result.session, file: result.file, cwd: result.cwd });
    } catch (error) {
      if (this.run !== source) return;
      this.transcript.dropPending();
      const cancelled = source.token.isCancellationRequested || (error as { code?: unknown } | undefined)?.code === REQUEST_CANCELLED;
      const last = this.transcript.items.at(-1);
      if (!cancelled) {
        this.notice("error", message(error));
        // Refused (a missing file, images for a text-only model): the prompt comes back to fix.
        if (attachments.length > 0) this.giveBack(text, attachments);
      } else if (!(last?.kind === "notice" && last.text === "Stopped")) this.notice("info", "Stopped");
      // A new chat whose first answer was stopped (or failed) after the server made its session:
      // that session, with the exchange shown, is the one the next prompt goes to.
      const adopted = active === undefined ? this.liveSession : undefined;
      if (adopted !== undefined) await this.adopt(adopted, source);
    } finally {
      if (this.run === source) {
        this.run = undefined;
        this.adopting = false;
        this.postState();
        if (this.tracker.current) this.tracker.updated();
        else this.refreshUsage(0);
        if (this.rereadAfterRun) {
          this.rereadAfterRun = false;
          void this.reload();
        }
      }
      source.dispose();
    }
  }

  /** Make `session` (known from the events of a run that did not finish) the active session. */
  private async adopt(session: string, source: CancellationTokenSource): Promise<void> {
    let chosen: ActiveSession = { session, file: null, cwd: "" };
    try {
      const result = await this.client.request<{ file?: string | null; cwd?: string }>("pi/session/messages", { session });
      chosen = { session, file: typeof result.file === "string" ? result.file : null, cwd: typeof result.cwd === "string" ? result.cwd : "" };
    } catch (error) {
      // The server still holds the session in memory: its id alone names it.
      this.log?.warn(`pi/session/messages: ${message(error)}`);
    }
    if (this.run !== source || this.liveSession !== session) return; // moved on meanwhile
    this.tracker.switchTo(chosen);
  }

  private async queue(text: string, attachments: readonly Attachment[]): Promise<void> {
    const session = this.liveSession;
    if (session === undefined) {
      this.notice("info", "Wait for the first answer before sending more.");
      // The page cleared the prompt box when it sent: give the text back.
      this.giveBack(text, attachments);
      return;
    }
    try {
      const params = { text, session, streamingBehavior: "followUp", ...chatAttachmentParams(attachments) };
      const result = await this.client.request<ChatResult>("pi/chat", params);
      // Queued: it runs after the current answer (its events come on that run). Otherwise the
      // run had ended and this prompt ran on its own, its events already shown.
      if (result.queued) this.notice("info", `Queued: ${shortTitle(text)}`);
    } catch (error) {
      this.notice("error", message(error));
      this.giveBack(text, attachments);
    }
  }

  /** Put a prompt that was not sent back into the prompt box, with its attachments. */
  private giveBack(text: string, attachments: readonly Attachment[]): void {
    this.send_({ type: "setPrompt", text });
    for (const attachment of attachments) this.attachToPrompt(attachment);
  }

  /**
   * Completions for the prompt box: workspace files and folders after `@`
   * (`pi/complete/files`), prompt templates and `/skill:` names at the start (`pi/complete/commands`).
   * The page asks after a pause in typing and keeps only the answer to its latest `requestId`.
   */
  async complete(requestId: number, trigger: Trigger, query: string): Promise<void> {
    const cwd = this.tracker.current?.cwd;
    const where = cwd ? { cwd } : {};
    let items: CompletionItem[] = [];
    try {
      if (trigger === "@") {
        const result = await this.client.request<{ items: { path: string; kind: "file" | "folder" }[] }>("pi/complete/files", { query, limit: COMPLETION_LIMIT, ...where });
        items = result.items.map((item) => ({ label: item.path, insert: item.path, kind: item.kind }));
      } else {
        const result = await this.client.request<{ items: { insert: string; description: string; kind: "template" | "skill" }[] }>("pi/complete/commands", { prefix: query, ...where });
        items = result.items.map((item) => ({ label: item.insert, insert: item.insert, kind: item.kind, detail: item.description }));
      }
    } catch (error) {
      this.log?.warn(`completion: ${message(error)}`);
    }
    this.send_({ type: "completions", requestId, items });
  }

  /** Attach the active editor's file to the next prompt. */
  attachActiveFile(): void {
    const uri = activeFileUri();
    if (uri === undefined) {
      this.notice("info", "No file is open in the editor to attach.");
      return;
    }
    this.attachToPrompt({ kind: "file", path: uri.fsPath });
  }

  /** "Add selection to chat": the selected lines of the active editor, with their file and range. */
  async addSelection(): Promise<void> {
    const selection = activeSelection();
    await this.focus();
    if (selection === undefined) {
      this.notice("info", "Select some lines in an editor first.");
      return;
    }
    this.attachToPrompt({ kind: "selection", ...selection });
  }

  /** Give the page an attachment; while it is not ready (being shown), once it is. */
  private attachToPrompt(attachment: Attachment): void {
    if (this.post) this.send_({ type: "attach", attachment });
    else this.unposted.push(attachment);
  }

  /** Stop the running answer (the request is cancelled, the server aborts the run). */
  stop(): void {
    this.run?.cancel();
  }

  /** An empty chat; the session starts with the first prompt. */
  async newSession(): Promise<void> {
    if (!(await this.confirmStop("Start a new chat?"))) return;
    const before = this.tracker.current;
    this.tracker.switchTo(undefined); // a switch: the listener shows the empty chat
    if (before === undefined) await this.show(undefined);
  }

  /** Pick a saved session of the workspace and show it. */
  async openSession(): Promise<void> {
    let sessions: SessionInfo[];
    try {
      sessions = (await this.client.request<{ sessions: SessionInfo[] }>("pi/session/list", {})).sessions;
    } catch (error) {
      this.notice("error", `Sessions could not be listed: ${message(error)}`);
      return;
    }
    const now = Date.now();
    const items: (PickItem & { session: SessionInfo })[] = sessions.map((session) => ({
      label: session.name ?? shortTitle(session.firstMessage),
      description: ago(session.modified, now),
      detail: `${session.messageCount} message${session.messageCount === 1 ? "" : "s"} · ${session.file}`,
      session,
    }));
    if (items.length === 0) {
      this.notice("info", "No saved sessions for this workspace yet.");
      return;
    }
    const picked = await showQuickPickItems(items, "Open a chat session");
    if (!picked) return;
    const chosen: ActiveSession = { session: picked.session.id, file: picked.session.file, cwd: picked.session.cwd };
    if (picked.session.name) this.names.set(chosen.session, picked.session.name);
    if (this.liveSession === chosen.session) return;
    if (!(await this.confirmStop("Open another chat?"))) return;
    this.tracker.switchTo(chosen);
    if (this.liveSession !== chosen.session) await this.show(chosen);
  }

  /** While an answer runs, ask before it is stopped; true when there is none or the user agrees. */
  private async confirmStop(question: string): Promise<boolean> {
    if (!this.run) return true;
    const answer = await showModalWarning(question, "An answer is still running; it will be stopped.", STOP_AND_SWITCH);
    return answer === STOP_AND_SWITCH;
  }

  /** Show `session` (or an empty chat): the transcript is rebuilt from the server. */
  private async show(session: ActiveSession | undefined): Promise<void> {
    const stopped = this.run !== undefined;
    if (this.run) {
      this.run.cancel();
      this.run = undefined;
    }
    this.generation += 1;
    this.rereadAfterRun = false;
    this.adopting = false;
    this.liveSession = session?.session;
    this.transcript.clear();
    this.title = NEW_CHAT;
    // A new chat gets the server's default level unless one is picked; a session says its own.
    this.thinking = "";
    this.send_({ type: "reset", items: this.transcript.snapshot() });
    this.postState();
    const generation = this.generation;
    if (session !== undefined) await this.reload(true);
    // Switched while an answer ran (asked first from the chat's own buttons; from elsewhere, such
    // as the Sessions view, without asking): say that it was stopped.
    if (stopped && generation === this.generation) this.notice("info", "Stopped: the answer that was running in the previous chat.");
    this.refreshUsage(0);
  }

  /**
   * Rebuild the transcript of the active session's branch from `pi/session/messages`; with
   * `opened` (the session was just opened) the picker takes its last thinking-level change.
   */
  async reload(opened = false): Promise<void> {
    const session = this.tracker.current;
    if (session === undefined) return;
    const generation = this.generation;
    // A run started, or another chat was shown, since this was asked: the answer is stale.
    const stale = () => generation !== this.generation || this.tracker.current?.session !== session.session;
    try {
      const result = await this.client.request<{ entries: unknown[] }>("pi/session/messages", sessionParams(session));
      if (stale()) return this.dropped(session);
      this.transcript.load(result.entries);
      if (opened) this.thinking = lastThinkingLevel(result.entries);
      const first = this.transcript.items.find((item) => item.kind === "user");
      this.title = this.names.get(session.session) ?? (first?.kind === "user" ? shortTitle(first.text) : NEW_CHAT);
    } catch (error) {
      if (stale()) return this.dropped(session);
      this.transcript.clear();
      this.transcript.addNotice("error", `The session could not be read: ${message(error)}`);
    }
    this.send_({ type: "reset", items: this.transcript.snapshot() });
    this.postState();
  }

  /** A read of `session` came back stale: when the session is still shown, read it again after
   * the run that made it stale (at once if that run has already ended). */
  private dropped(session: ActiveSession): void {
    if (this.tracker.current?.session !== session.session) return;
    if (this.run) {
      this.rereadAfterRun = true;
    } else {
      this.rereadAfterRun = false;
      void this.reload();
    }
  }

  async refreshModels(): Promise<void> {
    try {
      const result = await this.client.request<ModelsResult>("pi/models", {});
      this.reasoningOf.clear();
      for (const model of result.models ?? []) {
        if (typeof model.reasoning === "boolean") this.reasoningOf.set(`${model.provider}/${model.id}`, model.reasoning);
      }
      this.models = (result.models ?? []).map((model) => ({
        value: `${model.provider}/${model.id}`,
        label: `${model.name || model.id} · ${model.provider}${model.hasKey === false ? " (no key)" : ""}`,
      }));
      if (this.model === "") this.model = modelValue(result.selected);
    } catch (error) {
      this.log?.warn(`pi/models: ${message(error)}`);
      // The server's answer (a broken models.json, with file:line:column) is worth showing once;
      // "not running" is not (the status item says it).
      const text = `The models could not be read: ${message(error)}`;
      if (typeof (error as { code?: unknown } | undefined)?.code === "number" && text !== this.modelsProblem) {
        this.modelsProblem = text;
        this.notice("error", text);
      }
    }
    this.postState();
  }

  /** The model as a quick pick (command palette). */
  async pickModel(): Promise<void> {
    await this.refreshModels();
    const items = this.models.map((model) => ({
      label: model.label,
      description: model.value === this.model ? "current" : model.value,
      value: model.value,
    }));
    if (items.length === 0) {
      this.notice(
        "info",
        "No model has a key: set a provider's API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, …) or add a model to models.json.",
      );
    }
    items.push({ label: "All models Pi knows…", description: "with where each key comes from", value: ALL_MODELS });
    const picked = await showQuickPickItems(items, "Model for this chat");
    if (picked?.value === ALL_MODELS) {
      await this.pickFromAllModels();
    } else if (picked && picked.value !== this.model) {
      await this.selectModel(picked.value);
    }
  }

  /** Every model of models.json and Pi's catalogue, each with its key status. */
  private async pickFromAllModels(): Promise<void> {
    let listed: ListedModel[];
    try {
      listed = (await this.client.request<ModelsResult>("pi/models", { all: true })).models ?? [];
    } catch (error) {
      this.notice("error", `The models could not be read: ${message(error)}`);
      return;
    }
    const items = listed.map((model) => ({
      label: `${model.provider}/${model.id}`,
      description: keyStatus(model),
      detail: model.unreachable ?? undefined,
      value: `${model.provider}/${model.id}`,
    }));
    const picked = await showQuickPickItems(items, "Any model (one without a key says which variable to set)");
    if (picked && picked.value !== this.model) await this.selectModel(picked.value);
  }

  async selectModel(value: string): Promise<void> {
    const slash = value.indexOf("/");
    if (slash <= 0) return;
    const session = this.tracker.current;
    try {
      const result = await this.client.request<SelectResult | null>("pi/model/select", {
        provider: value.slice(0, slash),
        model: value.slice(slash + 1),
        ...(session ? sessionParams(session) : {}),
      });
      this.model = value;
      // A session answers with its level (a model without reasoning turns it off).
      if (isThinkingLevel(result?.thinkingLevel)) this.thinking = result.thinkingLevel;
      if (session) this.tracker.updated();
    } catch (error) {
      this.notice("error", `The model was not changed: ${message(error)}`);
    }
    this.postState();
    this.refreshUsage(0);
  }

  /**
   * Set the thinking level. In a session it is switched at once (`pi/model/select`, which adds a
   * `thinking_level_change` entry); a new chat keeps it for its first prompt (`pi/chat`
   * `thinkingLevel`), since without a session the server keeps only a default model. While an
   * answer runs the server refuses the change, so the view says so and nothing changes.
   */
  async selectThinking(value: ThinkingLevel): Promise<void> {
    if (this.run) {
      this.notice("info", "The thinking level can be changed when the answer has finished.");
    } else if (!this.reasoning) {
      if (value !== "off") this.notice("info", "This model does not reason: thinking stays off.");
    } else {
      const session = this.tracker.current;
      if (session === undefined) {
        this.thinking = value;
      } else {
        try {
          const result = await this.client.request<SelectResult | null>("pi/model/select", { thinkingLevel: value, ...sessionParams(session) });
          this.thinking = isThinkingLevel(result?.thinkingLevel) ? result.thinkingLevel : value;
          // The Session view shows the new "Thinking: …" entry.
          this.tracker.updated();
        } catch (error) {
          this.notice("error", `The thinking level was not changed: ${message(error)}`);
        }
      }
    }
    // Also after a refusal: the page's picker goes back to the level that holds.
    this.postState();
  }

  /** Ask for the meter's numbers, after `delay` ms (calls in between become one request). */
  refreshUsage(delay: number = USAGE_DELAY_MS): void {
    if (this.usageTimer !== undefined) clearTimeout(this.usageTimer);
    this.usageTimer = setTimeout(() => {
      this.usageTimer = undefined;
      void this.fetchUsage();
    }, delay);
  }

  async fetchUsage(): Promise<void> {
    const session = this.tracker.current;
    this.usageAsked += 1;
    const asked = this.usageAsked;
    try {
      const result = await this.client.request<UsageResult>("pi/session/usage", session ? sessionParams(session) : {});
      if (asked !== this.usageAsked) return; // a newer answer is on its way
      this.usage = {
        contextWindow: result.contextWindow,
        threshold: result.threshold,
        total: result.total,
        estimated: result.estimated,
        usageTokens: typeof result.usageTokens === "number" ? result.usageTokens : 0,
        categories: result.categories.map(({ kind, label, tokens }) => ({ kind, label, tokens })),
      };
      if (result.model) this.model = modelValue(result.model);
      this.send_({ type: "usage", usage: this.usage });
      this.postState();
    } catch (error) {
      this.log?.warn(`pi/session/usage: ${message(error)}`);
    }
  }

  /** Focus the chat view and its prompt box. */
  async focus(): Promise<void> {
    await executeCommand(FOCUS_CHAT);
    this.send_({ type: "focus" });
  }
}
