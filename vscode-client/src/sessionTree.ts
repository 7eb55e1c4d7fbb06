/**
 * The "Session" tree view (`pi-lsp.sessionTree`): the active session's entries from
 * `pi/session/tree` (nodes built in sessionTreeModel.ts), refreshed when the active session is
 * switched, updated or its leaf moves; and its commands — move the leaf to an entry (plain, or
 * with a summary of the branch left behind; then restoring the files to that point is offered),
 * restore the files to an entry (checkpoints.ts), and compact now after a dry-run preview.
 */
import type { ActiveSession, ActiveSessionTracker } from "./activeSession";
import { restoreFilesTo } from "./checkpoints";
import { buildSessionNodes, treeDescription, type SessionNode, type SessionTreeResult } from "./sessionTreeModel";
import {
  createTreeView,
  newEventEmitter,
  registerCommand,
  setStatusBarMessage,
  showErrorMessage,
  showInformationMessage,
  showModalWarning,
  showWarningMessage,
  treeItem,
  withCancellableProgress,
  type CancellationToken,
  type Disposable,
  type TreeView,
} from "./vscodeapi";

export const SESSION_TREE_VIEW = "pi-lsp.sessionTree";
export const SESSION_TREE_COMMANDS = {
  refresh: "pi-lsp.sessionTree.refresh",
  navigate: "pi-lsp.sessionTree.navigate",
  navigateWithSummary: "pi-lsp.sessionTree.navigateWithSummary",
  compact: "pi-lsp.sessionTree.compact",
  restoreFiles: "pi-lsp.sessionTree.restoreFiles",
} as const;

/** The question "Continue from here" asks when the agent changed files after the entry. */
export const RESTORE_AFTER_MOVE = "The session continues from here. Also restore the files to this point?";

export type Request = <R>(method: string, params: object, token?: CancellationToken) => Promise<R>;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function figure(count: number): string {
  return count.toLocaleString("en-US");
}

/** What a tree node names a request's session by. */
function sessionParams(session: ActiveSession): { session: string } {
  return { session: session.session };
}

export class SessionTreeProvider {
  private nodes: SessionNode[] = [];
  private generation = 0;
  private result: SessionTreeResult | undefined;
  private readonly changed = newEventEmitter<SessionNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  /** Set by the view: its title-bar description follows the tree. */
  view: TreeView<SessionNode> | undefined;

  constructor(
    private readonly request: Request,
    private readonly tracker: ActiveSessionTracker,
  ) {}

  get tree(): SessionTreeResult | undefined {
    return this.result;
  }

  getTreeItem(node: SessionNode) {
    return treeItem(node.spec);
  }

  getChildren(node?: SessionNode): SessionNode[] {
    return node ? node.children : this.nodes;
  }

  /** Refresh on every change of the active session (switched, updated, leaf moved). */
  follow(): Disposable {
    return this.tracker.onDidChange(() => void this.refresh());
  }

  /** Ask for the active session's tree; a later refresh wins over an earlier one still running. */
  async refresh(): Promise<void> {
    const generation = ++this.generation;
    const session = this.tracker.current;
    if (session === undefined) {
      this.show(undefined, []);
      return;
    }
    try {
      const result = await this.request<SessionTreeResult>("pi/session/tree", sessionParams(session));
      if (generation !== this.generation) return;
      this.show(result, buildSessionNodes(result));
    } catch (error) {
      if (generation !== this.generation) return;
      this.show(undefined, [
        {
          spec: { id: "error", label: `Could not read the session: ${errorText(error)}`, icon: "error", collapsible: "none" },
          children: [],
          count: 0,
          containsLeaf: false,
        },
      ]);
    }
  }

  private show(result: SessionTreeResult | undefined, nodes: SessionNode[]): void {
    this.result = result;
    this.nodes = nodes;
    if (this.view) this.view.description = result ? treeDescription(result) : "";
    this.changed.fire(undefined);
  }

  dispose(): void {
    this.changed.dispose();
  }
}

/** What `pi/session/navigate` answers (docs/protocol.md). */
interface NavigateResult {
  cancelled?: boolean;
  aborted?: boolean;
  leafId?: string | null;
  editorText?: string | null;
  summaryEntry?: unknown;
}

/** What `pi/session/compact` with `dryRun: true` answers (docs/protocol.md). */
export interface CompactPreview {
  dryRun?: boolean;
  cutEntryId?: string | null;
  firstKeptEntryId?: string | null;
  isSplitTurn?: boolean;
  summarizedCount?: number;
  keptCount?: number;
  tokensBefore?: number;
  estimatedTokensAfter?: number;
  readFiles?: string[];
  modifiedFiles?: string[];
}

interface CompactResult {
  tokensBefore?: number;
  estimatedTokensAfter?: number;
}

function fileList(files: string[] | undefined, limit = 8): string {
  if (!files || files.length === 0) return "none";
  const shown = files.slice(0, limit).join(", ");
  return files.length > limit ? `${shown} (+${files.length - limit} more)` : shown;
}

/** The modal's message and detail for a dry-run preview. */
export function compactPreviewText(preview: CompactPreview): { message: string; detail: string } {
  const summarized = preview.summarizedCount ?? 0;
  const kept = preview.keptCount ?? 0;
  const lines = [
    `The model summarises ${figure(summarized)} ${summarized === 1 ? "entry" : "entries"}${preview.cutEntryId ? ` (up to ${preview.cutEntryId})` : ""}; ${figure(kept)} ${kept === 1 ? "entry is" : "entries are"} kept as they are${preview.firstKeptEntryId ? ` (from ${preview.firstKeptEntryId})` : ""}.`,
  ];
  if (preview.isSplitTurn) lines.push("The cut falls inside a turn: its start is summarised separately.");
  if (typeof preview.tokensBefore === "number" && typeof preview.estimatedTokensAfter === "number") {
    lines.push(`Context: ${figure(preview.tokensBefore)} tokens → about ${figure(preview.estimatedTokensAfter)} tokens after.`);
  }
  lines.push(`Files read: ${fileList(preview.readFiles)}.`, `Files modified: ${fileList(preview.modifiedFiles)}.`);
  return { message: "Compact this session now?", detail: lines.join("\n") };
}

export const COMPACT_BUTTON = "Compact";

function targetEntry(node: unknown): string | undefined {
  const entry = (node as SessionNode | undefined)?.entry;
  return typeof entry?.id === "string" && entry.id !== "" ? entry.id : undefined;
}

function isCancellation(error: unknown, token: CancellationToken): boolean {
  return token.isCancellationRequested || (typeof error === "object" && error !== null && (error as { code?: unknown }).code === -32800);
}

export function registerSessionTree(request: Request, tracker: ActiveSessionTracker): Disposable[] {
  const provider = new SessionTreeProvider(request, tracker);
  const view = createTreeView<SessionNode>(SESSION_TREE_VIEW, provider);
  provider.view = view;
  const commands = registerSessionTreeCommands(request, tracker, provider);
  void provider.refresh();
  return [provider, view, provider.follow(), ...commands];
}

export function registerSessionTreeCommands(request: Request, tracker: ActiveSessionTracker, provider: SessionTreeProvider): Disposable[] {
  const currentOrWarn = (): ActiveSession | undefined => {
    const session = tracker.current;
    if (session === undefined) void showWarningMessage("pi-lsp: no chat session yet; start one in the Chat view.");
    return session;
  };

  const moved = async (result: NavigateResult, session: ActiveSession, entryId: string): Promise<void> => {
    if (result.cancelled) {
      void showInformationMessage("pi-lsp: navigation cancelled; the leaf did not move.");
      return;
    }
    tracker.leafMoved(typeof result.editorText === "string" ? result.editorText : undefined);
    setStatusBarMessage(`pi-lsp: the session continues from ${result.leafId ?? entryId}`, 4000);
    // The files as they were at that point, if the agent changed any since (asked, never silent).
    await restoreFilesTo(request, { session: session.session, entryId, after: true }, { question: RESTORE_AFTER_MOVE, quiet: true });
  };

  /** The session and the entry a navigation command acts on, or undefined (the user was told). */
  const targetOrWarn = async (node: unknown) => {
    const session = currentOrWarn();
    const entryId = targetEntry(node);
    if (session === undefined) return undefined;
    if (entryId === undefined) {
      await showWarningMessage("pi-lsp: choose an entry in the Session view.");
      return undefined;
    }
    return { session, entryId };
  };

  const navigate = async (node: unknown) => {
    const target = await targetOrWarn(node);
    if (target === undefined) return;
    const { session, entryId } = target;
    try {
      const result = await request<NavigateResult>("pi/session/navigate", { ...sessionParams(session), entryId });
      await moved(result, session, entryId);
    } catch (error) {
      await showErrorMessage(`pi-lsp: could not move to ${entryId}: ${errorText(error)}`);
    }
  };

  const restoreFiles = async (node: unknown) => {
    const target = await targetOrWarn(node);
    if (target === undefined) return;
    await restoreFilesTo(request, { session: target.session.session, entryId: target.entryId, after: true });
  };

  const navigateWithSummary = async (node: unknown) => {
    const target = await targetOrWarn(node);
    if (target === undefined) return;
    const { session, entryId } = target;
    const outcome = await withCancellableProgress("pi-lsp: summarising the branch you leave…", async (token) => {
      try {
        const params = { ...sessionParams(session), entryId, summarize: true };
        return { kind: "done", result: await request<NavigateResult>("pi/session/navigate", params, token) } as const;
      } catch (error) {
        return isCancellation(error, token) ? ({ kind: "cancelled" } as const) : ({ kind: "failed", error } as const);
      }
    });
    if (outcome.kind === "done") await moved(outcome.result, session, entryId);
    else if (outcome.kind === "cancelled") void showInformationMessage("pi-lsp: summary cancelled; the leaf did not move.");
    else await showErrorMessage(`pi-lsp: could not summarise and move to ${entryId}: ${errorText(outcome.error)}`);
  };

  const compact = async () => {
    const session = currentOrWarn();
    if (session === undefined) return;
    let preview: CompactPreview;
    try {
      preview = await request<CompactPreview>("pi/session/compact", { ...sessionParams(session), dryRun: true });
    } catch (error) {
      // "Nothing to compact" and "Already compacted" come as errors: tell them as they are.
      await showInformationMessage(`pi-lsp: ${errorText(error)}`);
      return;
    }
    const { message, detail } = compactPreviewText(preview);
    if ((await showModalWarning(message, detail, COMPACT_BUTTON)) !== COMPACT_BUTTON) return;
    const outcome = await withCancellableProgress("pi-lsp: compacting the session…", async (token) => {
      try {
        return { kind: "done", result: await request<CompactResult>("pi/session/compact", sessionParams(session), token) } as const;
      } catch (error) {
        return isCancellation(error, token) ? ({ kind: "cancelled" } as const) : ({ kind: "failed", error } as const);
      }
    });
    if (outcome.kind === "done") {
      tracker.updated();
      const { tokensBefore, estimatedTokensAfter } = outcome.result;
      const figures =
        typeof tokensBefore === "number" && typeof estimatedTokensAfter === "number" ? `: ${figure(tokensBefore)} → about ${figure(estimatedTokensAfter)} tokens` : "";
      void showInformationMessage(`pi-lsp: session compacted${figures}.`);
    } else if (outcome.kind === "cancelled") {
      void showInformationMessage("pi-lsp: compaction cancelled.");
    } else {
      await showErrorMessage(`pi-lsp: compaction failed: ${errorText(outcome.error)}`);
    }
  };

  return [
    registerCommand(SESSION_TREE_COMMANDS.refresh, () => provider.refresh()),
    registerCommand(SESSION_TREE_COMMANDS.navigate, navigate),
    registerCommand(SESSION_TREE_COMMANDS.navigateWithSummary, navigateWithSummary),
    registerCommand(SESSION_TREE_COMMANDS.compact, compact),
    registerCommand(SESSION_TREE_COMMANDS.restoreFiles, restoreFiles),
  ];
}
