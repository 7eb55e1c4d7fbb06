/**
 * Tool output panels: one read-only virtual document (scheme `pi-tool`) per chat tool run,
 * filled live from `tool_output` events and completed by `tool_execution_end` with what the
 * model received (see toolRunView.ts for the text).
 *
 * One document, two sections: the live output first, then, under its own banner, the tool
 * result's text — and a line at the top that says at once whether (and how) they differ. One tab
 * per run keeps the editor area usable when a turn runs ten tools, and the banner plus the top
 * line make the truncation visible without opening anything else.
 *
 * Refreshes of an open panel are throttled (REFRESH_MS); runs are kept for the MAX_RUNS most
 * recent tool calls, and those of a session are forgotten when the user switches away from it
 * (unless their panel is open). A run not seen live (an older session, a reloaded window) is
 * rebuilt from `pi/session/messages`, without its live output.
 */
import type { ActiveSessionTracker } from "./activeSession";
import { ToolRunView } from "./toolRunView";
import {
  newEventEmitter,
  registerCommand,
  showDocumentBeside,
  showWarningMessage,
  uriFrom,
  type Disposable,
  type Uri,
} from "./vscodeapi";

export const TOOL_SCHEME = "pi-tool";
export const OPEN_TOOL_OUTPUT_COMMAND = "pi-lsp.openToolOutput";
/** Tool runs kept (most recent first); older ones are forgotten unless their panel is open. */
export const MAX_RUNS = 40;
/** At most one refresh of an open panel per this many milliseconds while output streams. */
export const REFRESH_MS = 150;

export type Request = <R>(method: string, params: object) => Promise<R>;

/** A timer to call later; returns how to cancel it (tests pass a manual one). */
export type Schedule = (callback: () => void, ms: number) => () => void;

const defaultSchedule: Schedule = (callback, ms) => {
  const timer = setTimeout(callback, ms);
  return () => clearTimeout(timer);
};

interface ChatToolEvent {
  session?: unknown;
  turn?: unknown;
  seq?: unknown;
  type?: unknown;
  toolCallId?: unknown;
  toolName?: unknown;
  args?: unknown;
  text?: unknown;
  delta?: unknown;
  result?: unknown;
  isError?: unknown;
}

const TOOL_EVENTS = new Set(["tool_execution_start", "tool_output", "tool_execution_end"]);

function key(session: string, toolCallId: string): string {
  return `${session}\u0000${toolCallId}`;
}

/** The argument of `pi-lsp.openToolOutput`, or undefined when it is not one. */
export function parseOpenArgument(value: unknown): { session: string; toolCallId: string } | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { session, toolCallId } = value as { session?: unknown; toolCallId?: unknown };
  if (typeof session !== "string" || session === "" || typeof toolCallId !== "string" || toolCallId === "") return undefined;
  return { session, toolCallId };
}

export class ToolPanels {
  /** Insertion order = age: the first is the oldest run. */
  private readonly runs = new Map<string, ToolRunView>();
  /** Keys of the runs whose panel is open. */
  private readonly open = new Set<string>();
  private readonly pending = new Map<string, () => void>();
  private readonly lastSeq = new Map<string, { turn: number; seq: number }>();
  private readonly changed = newEventEmitter<Uri>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly request?: Request,
    private readonly schedule: Schedule = defaultSchedule,
  ) {}

  /** The panel of one run. The path is the tab title; the query names the run. */
  uriFor(run: { session: string; toolCallId: string; title: string }): Uri {
    const title = run.title.replace(/[\\/]/g, "∕");
    const query = `session=${encodeURIComponent(run.session)}&toolCallId=${encodeURIComponent(run.toolCallId)}`;
    return uriFrom({ scheme: TOOL_SCHEME, path: `/${title}.log`, query });
  }

  private keyOf(uri: Uri): string | undefined {
    if (uri.scheme !== TOOL_SCHEME) return undefined;
    const params = new URLSearchParams(uri.query);
    const session = params.get("session");
    const toolCallId = params.get("toolCallId");
    return session && toolCallId ? key(session, toolCallId) : undefined;
  }

  run(session: string, toolCallId: string): ToolRunView | undefined {
    return this.runs.get(key(session, toolCallId));
  }

  /** How many runs are held. */
  get size(): number {
    return this.runs.size;
  }

  provideTextDocumentContent(uri: Uri): string {
    const found = this.keyOf(uri);
    const run = found === undefined ? undefined : this.runs.get(found);
    return run?.render() ?? "pi-lsp: this tool run is no longer held; open it again from the chat.";
  }

  /** Take a `pi/event`; true when it was a chat tool event. */
  dispatch(params: unknown): boolean {
    if (typeof params !== "object" || params === null) return false;
    const event = params as ChatToolEvent;
    if (typeof event.type !== "string" || !TOOL_EVENTS.has(event.type)) return false;
    if (typeof event.session !== "string" || typeof event.toolCallId !== "string") return false;
    if (this.isRepeat(event.session, event.turn, event.seq)) return true;
    const turn = typeof event.turn === "number" ? event.turn : undefined;
    const toolName = typeof event.toolName === "string" ? event.toolName : "tool";
    const runKey = key(event.session, event.toolCallId);
    let run = this.runs.get(runKey);
    if (run === undefined) {
      run = new ToolRunView(event.session, event.toolCallId, toolName, event.args, turn);
      this.add(runKey, run);
    }
    switch (event.type) {
      case "tool_execution_start":
        if (event.args !== undefined) run.args = event.args;
        run.toolName = toolName;
        break;
      case "tool_output": {
        const text = typeof event.text === "string" ? event.text : typeof event.delta === "string" ? event.delta : "";
        run.appendOutput(text);
        this.refreshLater(runKey, run);
        return true;
      }
      case "tool_execution_end":
        run.end(event.result, event.isError === true);
        break;
    }
    this.refreshNow(runKey, run);
    return true;
  }

  /** Events repeated or older than one already taken (seq goes up by one per turn). */
  private isRepeat(session: string, turn: unknown, seq: unknown): boolean {
    if (typeof turn !== "number" || typeof seq !== "number") return false;
    // Only within a turn: turns count again from 1 when the server restarts.
    const last = this.lastSeq.get(session);
    if (last !== undefined && turn === last.turn && seq <= last.seq) return true;
    this.lastSeq.set(session, { turn, seq });
    return false;
  }

  private add(runKey: string, run: ToolRunView): void {
    this.runs.set(runKey, run);
    if (this.runs.size <= MAX_RUNS) return;
    for (const old of this.runs.keys()) {
      if (this.runs.size <= MAX_RUNS) break;
      if (old === runKey || this.open.has(old)) continue;
      this.drop(old);
    }
  }

  private drop(runKey: string): void {
    this.runs.delete(runKey);
    this.pending.get(runKey)?.();
    this.pending.delete(runKey);
  }

  private refreshLater(runKey: string, run: ToolRunView): void {
    if (!this.open.has(runKey) || this.pending.has(runKey)) return;
    const cancel = this.schedule(() => {
      this.pending.delete(runKey);
      this.changed.fire(this.uriFor(run));
    }, REFRESH_MS);
    this.pending.set(runKey, cancel);
  }

  private refreshNow(runKey: string, run: ToolRunView): void {
    if (!this.open.has(runKey)) return;
    this.pending.get(runKey)?.();
    this.pending.delete(runKey);
    this.changed.fire(this.uriFor(run));
  }

  /**
   * Show a run's panel beside the active editor, keeping the focus where it is. A run not seen
   * live is rebuilt from the session's messages; false when it cannot be found at all.
   */
  async show(session: string, toolCallId: string): Promise<boolean> {
    const runKey = key(session, toolCallId);
    let run = this.runs.get(runKey);
    if (run === undefined) {
      const rebuilt = await this.fromHistory(session, toolCallId);
      // Events may have come while the messages were read: a live run wins.
      run = this.runs.get(runKey) ?? rebuilt;
      if (run === undefined) return false;
      if (run === rebuilt) this.add(runKey, run);
    }
    this.open.add(runKey);
    await showDocumentBeside(this.uriFor(run));
    return true;
  }

  private async fromHistory(session: string, toolCallId: string): Promise<ToolRunView | undefined> {
    if (!this.request) return undefined;
    let entries: unknown[];
    try {
      const result = await this.request<{ entries?: unknown[] }>("pi/session/messages", { session });
      entries = Array.isArray(result?.entries) ? result.entries : [];
    } catch {
      return undefined;
    }
    let run: ToolRunView | undefined;
    for (const entry of entries) {
      const message = (entry as { message?: Record<string, unknown> } | null)?.message;
      if (typeof message !== "object" || message === null) continue;
      if (message.role === "assistant" && Array.isArray(message.content)) {
        for (const block of message.content as Record<string, unknown>[]) {
          if (block?.type === "toolCall" && block.id === toolCallId) {
            run = new ToolRunView(session, toolCallId, typeof block.name === "string" ? block.name : "tool", block.arguments);
          }
        }
      } else if (message.role === "toolResult" && message.toolCallId === toolCallId) {
        run ??= new ToolRunView(session, toolCallId, typeof message.toolName === "string" ? message.toolName : "tool");
        run.fromHistory = true;
        run.end({ content: message.content, details: message.details }, message.isError === true);
      }
    }
    return run?.ended ? run : undefined;
  }

  /** A panel was closed: stop refreshing it (the run stays, to be reopened from the chat). */
  closed(uri: Uri): void {
    const runKey = this.keyOf(uri);
    if (runKey === undefined) return;
    this.open.delete(runKey);
    this.pending.get(runKey)?.();
    this.pending.delete(runKey);
  }

  /** Forget a session's runs, except those whose panel is open. */
  forgetSession(session: string): void {
    for (const [runKey, run] of [...this.runs]) if (run.session === session && !this.open.has(runKey)) this.drop(runKey);
    this.lastSeq.delete(session);
  }

  /** Follow the active session: when the user switches away, the other sessions' runs go. */
  follow(tracker: ActiveSessionTracker): Disposable {
    return tracker.onDidChange((current, change) => {
      if (change.kind !== "switched") return;
      const sessions = new Set([...this.runs.values()].map((run) => run.session));
      for (const session of sessions) if (session !== current?.session) this.forgetSession(session);
    });
  }

  dispose(): void {
    for (const cancel of this.pending.values()) cancel();
    this.pending.clear();
    this.changed.dispose();
  }
}

/** `pi-lsp.openToolOutput {session, toolCallId}`. */
export function registerToolPanelCommand(panels: ToolPanels): Disposable {
  return registerCommand(OPEN_TOOL_OUTPUT_COMMAND, async (argument: unknown) => {
    const target = parseOpenArgument(argument);
    if (target === undefined) {
      await showWarningMessage("pi-lsp: open tool output needs {session, toolCallId}.");
      return false;
    }
    const shown = await panels.show(target.session, target.toolCallId);
    if (!shown) await showWarningMessage(`pi-lsp: no output is known for tool call ${target.toolCallId}.`);
    return shown;
  });
}
