/**
 * The chat session the user is looking at, shared by the chat view, the session tree view and
 * the tool output panels. The chat view sets it; the others follow it.
 */

/** A session the server holds, as `pi/chat` answers it. */
export interface ActiveSession {
  /** The server's id for the session (`session` in requests). */
  readonly session: string;
  /** The session file, or null for an in-memory session. */
  readonly file: string | null;
  /** The session's working directory. */
  readonly cwd: string;
}

/** Why listeners are told: another session was chosen, or the current one changed on disk. */
export type ActiveSessionChange =
  | { readonly kind: "switched" }
  /** A turn ended, a compaction ran or an entry was appended: the tree and the meter are stale. */
  | { readonly kind: "updated" }
  /** The leaf moved (tree navigation): the transcript must be rebuilt; editorText refills the prompt box. */
  | { readonly kind: "leafMoved"; readonly editorText?: string };

type Listener = (session: ActiveSession | undefined, change: ActiveSessionChange) => void;

export class ActiveSessionTracker {
  private currentSession: ActiveSession | undefined;
  private readonly listeners = new Set<Listener>();

  get current(): ActiveSession | undefined {
    return this.currentSession;
  }

  /** Listen to changes; returns a disposable that stops listening. */
  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Choose another session (or none, for a new chat not sent yet). */
  switchTo(session: ActiveSession | undefined): void {
    const same =
      session?.session === this.currentSession?.session && session?.file === this.currentSession?.file;
    this.currentSession = session;
    if (!same) this.tell({ kind: "switched" });
  }

  /** The current session changed (a turn ended, a compaction ran). */
  updated(): void {
    if (this.currentSession) this.tell({ kind: "updated" });
  }

  /** The current session's leaf moved. */
  leafMoved(editorText?: string): void {
    if (this.currentSession) this.tell({ kind: "leafMoved", editorText });
  }

  private tell(change: ActiveSessionChange): void {
    for (const listener of [...this.listeners]) listener(this.currentSession, change);
  }
}
