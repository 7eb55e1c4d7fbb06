/**
 * Checkpoints: putting the files the agent changed back to how they were at a point of the
 * session (`pi/session/restoreFiles`, docs/protocol.md). A dry run lists the files first; a modal
 * shows them, with the ones the user changed since (kept unless the user chooses to overwrite
 * them); then the restore runs and a message says what it did. Used by the chat's user messages,
 * the Session view's entries and "Continue from here".
 */
import type { CancellationToken } from "./vscodeapi";
import { showErrorMessage, showInformationMessage, showModalWarning } from "./vscodeapi";

export const RESTORE_FILES = "pi/session/restoreFiles";
export const RESTORE_BUTTON = "Restore Files";
export const OVERWRITE_BUTTON = "Restore, Overwriting My Changes";

export type Request = <R>(method: string, params: object, token?: CancellationToken) => Promise<R>;

export type RestoreAction = "restore" | "delete" | "unchanged" | "keep" | "notRestorable";

export interface RestoredFile {
  path: string;
  relativePath: string;
  action: RestoreAction;
  userChanged: boolean;
  reason?: string;
}

export interface RestoreResult {
  dryRun?: boolean;
  files: RestoredFile[];
  touched: string[];
  userChanged: string[];
}

/** What names the point to restore to: the session, the entry, and whether its own turn stays. */
export interface RestorePoint {
  session: string;
  /** The session's file, when known (a session the server no longer holds is found by it). */
  file?: string;
  entryId: string;
  /** The files as they were right after the entry (its own changes stay). */
  after?: boolean;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** One line of the confirmation for a file, as the dry run says it would be treated. */
function previewLine(file: RestoredFile): string {
  switch (file.action) {
    case "restore":
      return `${file.relativePath}: put back as it was`;
    case "delete":
      return `${file.relativePath}: deleted (the agent created it)`;
    case "keep":
      return `${file.relativePath}: changed by you since; kept unless you overwrite it`;
    case "notRestorable":
      return `${file.relativePath}: cannot be restored (${file.reason ?? "no saved content"})`;
    case "unchanged":
      return `${file.relativePath}: already as it was`;
  }
}

const WILL_CHANGE: readonly RestoreAction[] = ["restore", "delete"];

/** The confirmation's message, detail and buttons for a dry run; undefined when nothing can be done. */
export function restoreQuestion(preview: RestoreResult, question?: string): { message: string; detail: string; buttons: string[] } | undefined {
  const changing = preview.files.filter((file) => WILL_CHANGE.includes(file.action));
  const kept = preview.files.filter((file) => file.action === "keep");
  if (changing.length === 0 && kept.length === 0) return undefined;
  const buttons: string[] = [];
  if (changing.length > 0) buttons.push(RESTORE_BUTTON);
  if (kept.length > 0) buttons.push(OVERWRITE_BUTTON);
  const count = changing.length + kept.length;
  const message = question ?? `Restore ${plural(count, "file")} to this point?`;
  const lines = preview.files.filter((file) => file.action !== "unchanged").map(previewLine);
  if (kept.length > 0) lines.push("", `${plural(kept.length, "file")} changed by you since the agent's last change.`);
  return { message, detail: lines.join("\n"), buttons };
}

/** The message after a restore. */
export function restoreOutcome(result: RestoreResult): string {
  const restored = result.files.filter((file) => file.action === "restore").length;
  const deleted = result.files.filter((file) => file.action === "delete").length;
  const kept = result.files.filter((file) => file.action === "keep");
  const failed = result.files.filter((file) => file.action === "notRestorable");
  const parts: string[] = [];
  if (restored > 0) parts.push(`restored ${plural(restored, "file")}`);
  if (deleted > 0) parts.push(`deleted ${plural(deleted, "file")} the agent created`);
  if (parts.length === 0) parts.push("no file changed");
  let text = `pi-lsp: ${parts.join(", ")}`;
  if (kept.length > 0) text += `; kept your changes to ${kept.map((file) => file.relativePath).join(", ")}`;
  if (failed.length > 0) text += `; could not restore ${failed.map((file) => `${file.relativePath} (${file.reason ?? "no saved content"})`).join(", ")}`;
  return `${text}.`;
}

export interface RestoreOptions {
  /** The modal's question instead of "Restore N files to this point?". */
  question?: string;
  /** Say nothing when there is nothing to restore (or the server cannot restore): an offer. */
  quiet?: boolean;
}

export type RestoreOutcome = "restored" | "nothing" | "cancelled" | "failed";

/** Preview, confirm, restore, and tell the user. */
export async function restoreFilesTo(request: Request, point: RestorePoint, options: RestoreOptions = {}): Promise<RestoreOutcome> {
  const params = {
    session: point.session,
    ...(point.file !== undefined ? { file: point.file } : {}),
    entryId: point.entryId,
    ...(point.after ? { after: true } : {}),
  };
  let preview: RestoreResult;
  try {
    preview = await request<RestoreResult>(RESTORE_FILES, { ...params, dryRun: true });
  } catch (error) {
    if (!options.quiet) await showErrorMessage(`pi-lsp: could not look up the files to restore: ${errorText(error)}`);
    return "failed";
  }
  const question = restoreQuestion(preview, options.question);
  if (question === undefined) {
    if (!options.quiet) {
      const failed = preview.files.filter((file) => file.action === "notRestorable");
      const why = failed.length > 0 ? ` (${failed.map(previewLine).join("; ")})` : "";
      void showInformationMessage(`pi-lsp: no files to restore: the agent changed none after this point${why}.`);
    }
    return "nothing";
  }
  const answer = await showModalWarning(question.message, question.detail, ...question.buttons);
  if (answer !== RESTORE_BUTTON && answer !== OVERWRITE_BUTTON) return "cancelled";
  try {
    const result = await request<RestoreResult>(RESTORE_FILES, { ...params, ...(answer === OVERWRITE_BUTTON ? { force: true } : {}) });
    void showInformationMessage(restoreOutcome(result));
    return "restored";
  } catch (error) {
    await showErrorMessage(`pi-lsp: could not restore the files: ${errorText(error)}`);
    return "failed";
  }
}
