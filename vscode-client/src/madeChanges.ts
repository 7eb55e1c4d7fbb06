/**
 * A change the agent already made (with no question asked: `approvalMode` `never`), from its
 * tool card: "Review diff" shows the file before the call against the file now, "Revert" puts
 * back that one change (`pi/session/fileChange`, `pi/session/restoreFiles` with `toolCallId`).
 * A file changed since by the user, or with unsaved changes in the editor, is not overwritten
 * without asking.
 */
import type { EditReviewer } from "./editReview";
import { RESTORE_FILES, type Request, type RestoreResult } from "./checkpoints";
import { fileUri, openBuffer, showErrorMessage, showInformationMessage, showModalWarning } from "./vscodeapi";

export const FILE_CHANGE = "pi/session/fileChange";
export const REVERT_ANYWAY = "Revert, Overwriting My Changes";

export interface FileChange {
  tool: string;
  path: string;
  relativePath: string;
  existed: boolean;
  before: string | null;
  notKept: string | null;
  changedSince: boolean;
  reverted: boolean;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Open the diff of the change one edit or write call made. */
export async function reviewChange(request: Request, review: EditReviewer, session: string, toolCallId: string): Promise<void> {
  let change: FileChange;
  try {
    change = await request<FileChange>(FILE_CHANGE, { session, toolCallId });
  } catch (error) {
    void showErrorMessage(`pi-lsp: this change cannot be reviewed: ${errorText(error)}`);
    return;
  }
  if (change.existed && change.before === null) {
    void showErrorMessage(`pi-lsp: the text of ${change.relativePath} before the change was not kept (${change.notKept ?? "unknown reason"}).`);
    return;
  }
  const state = change.reverted ? ", reverted since" : change.changedSince ? ", changed since" : "";
  await review.showMade(change.path, change.before, `${change.relativePath} (before the agent's ${change.tool} ↔ now${state})`);
}

/** Put back the change one edit or write call made; what was done is said in a message. */
export async function revertChange(request: Request, session: string, toolCallId: string, shown: string): Promise<void> {
  try {
    const change = await request<FileChange>(FILE_CHANGE, { session, toolCallId });
    if (openBuffer(fileUri(change.path))?.dirty) {
      void showErrorMessage(`pi-lsp: ${change.relativePath} has unsaved changes: save or discard them before reverting the agent's change.`);
      return;
    }
    let result = await request<RestoreResult>(RESTORE_FILES, { session, toolCallId });
    let [file] = result.files;
    if (file?.action === "keep") {
      const answer = await showModalWarning(
        `${file.relativePath} was changed since the agent's ${change.tool}.`,
        "Reverting puts back the file as it was before the agent's change; your later changes are lost.",
        REVERT_ANYWAY,
      );
      if (answer !== REVERT_ANYWAY) return;
      result = await request<RestoreResult>(RESTORE_FILES, { session, toolCallId, force: true });
      [file] = result.files;
    }
    if (file === undefined) void showInformationMessage(`pi-lsp: the agent's change to ${shown} was reverted already.`);
    else if (file.action === "restore") void showInformationMessage(`pi-lsp: reverted the agent's change to ${file.relativePath}.`);
    else if (file.action === "delete") void showInformationMessage(`pi-lsp: deleted ${file.relativePath} (the agent created it).`);
    else if (file.action === "unchanged") void showInformationMessage(`pi-lsp: ${file.relativePath} already holds its text from before the change.`);
    else if (file.action === "notRestorable") void showErrorMessage(`pi-lsp: ${file.relativePath} cannot be reverted: ${file.reason ?? "unknown reason"}`);
  } catch (error) {
    void showErrorMessage(`pi-lsp: the change could not be reverted: ${errorText(error)}`);
  }
}
