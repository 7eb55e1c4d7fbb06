/** The palette commands: show the resolved prompt, trust this project, restart the server. */
import * as path from "node:path";
import type { PiClient } from "./client";
import { currentSettings } from "./config";
import { cwdsToRefresh, renderPrompt, type PromptDocuments, type PromptResult, type RenderedPrompt } from "./promptDocument";
import {
  activeFileUri,
  getWorkspaceFolder,
  registerCommand,
  setStatusBarMessage,
  showDocument,
  showErrorMessage,
  showInformationMessage,
  showWarningMessage,
  workspaceFolders,
  type Disposable,
  type OutputChannel,
} from "./vscodeapi";

export const COMMANDS = {
  showResolvedPrompt: "pi-lsp.showResolvedPrompt",
  restartServer: "pi-lsp.restartServer",
  trustThisProject: "pi-lsp.trustThisProject",
} as const;

/** The server's command behind "Trust this project" (docs/protocol.md). */
export const SERVER_TRUST_COMMAND = "pi-lsp.trustProject";
export const DEFAULT_MODEL_WINDOW = 128000;

/** The folder whose prompt to show: the active file's folder, else the first workspace folder. */
export function promptCwd(activeFile: string | undefined, folders: readonly string[]): string | undefined {
  return activeFile !== undefined ? path.dirname(activeFile) : folders[0];
}

/** The project to trust: the workspace folder of the active file, else the first one. */
export function trustTarget(activeFileFolder: string | undefined, folders: readonly string[]): string | undefined {
  return activeFileFolder ?? folders[0];
}

/** What `pi/trust` answers, the parts shown to the user. */
export interface TrustResult {
  cwd?: string;
  trusted?: boolean;
  reason?: string;
  rule?: string;
}

export function trustMessage(result: TrustResult, directory: string): { ok: boolean; text: string } {
  const where = result.cwd ?? directory;
  if (result.trusted) return { ok: true, text: `pi-lsp: ${where} is trusted; its project resources load.` };
  return { ok: false, text: `pi-lsp: ${where} is still not trusted: ${result.reason ?? result.rule ?? "unknown reason"}` };
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Ask the server for a folder's prompt and render it with the current model window. */
async function fetchPrompt(client: PiClient, cwd: string): Promise<RenderedPrompt> {
  const result = await client.request<PromptResult>("pi/systemPrompt", { cwd });
  const modelWindow = currentSettings().settings.modelWindow ?? DEFAULT_MODEL_WINDOW;
  return renderPrompt(result, cwd, modelWindow);
}

/** The latest refresh asked per cwd: an older answer arriving after a newer one is dropped. */
const refreshes = new Map<string, number>();
let refreshCounter = 0;

/**
 * After a `pi/systemPromptChanged`: fetch again the prompts of the held (open) documents whose
 * cwd it names, so their text and header figures update in place.
 */
export async function refreshPrompts(client: PiClient, prompts: PromptDocuments, params: unknown, output: OutputChannel): Promise<void> {
  await Promise.all(
    cwdsToRefresh(params, prompts.heldCwds()).map(async (cwd) => {
      const ticket = ++refreshCounter;
      refreshes.set(cwd, ticket);
      try {
        const rendered = await fetchPrompt(client, cwd);
        if (refreshes.get(cwd) === ticket) prompts.set(rendered, cwd);
      } catch (error) {
        output.warn(`refreshing the prompt of ${cwd}: ${errorText(error)}`);
      } finally {
        if (refreshes.get(cwd) === ticket) refreshes.delete(cwd);
      }
    }),
  );
}

export function registerCommands(client: PiClient, prompts: PromptDocuments, output: OutputChannel): Disposable[] {
  const folders = () => workspaceFolders().map((folder) => folder.uri.fsPath);

  const showResolvedPrompt = async () => {
    const cwd = promptCwd(activeFileUri()?.fsPath, folders());
    if (cwd === undefined) {
      await showWarningMessage("pi-lsp: open a folder or a file to see its prompt.");
      return;
    }
    try {
      const rendered = await fetchPrompt(client, cwd);
      await showDocument(prompts.set(rendered, cwd));
      setStatusBarMessage(rendered.summary, 10_000);
    } catch (error) {
      output.error(`pi/systemPrompt for ${cwd}: ${errorText(error)}`);
      await showErrorMessage(`pi-lsp: could not get the prompt: ${errorText(error)}`);
    }
  };

  const trustThisProject = async () => {
    const active = activeFileUri();
    const folder = active ? getWorkspaceFolder(active)?.uri.fsPath : undefined;
    const directory = trustTarget(folder, folders());
    if (directory === undefined) {
      await showWarningMessage("pi-lsp: open a folder to trust it.");
      return;
    }
    try {
      const result = await client.executeCommand<TrustResult>(SERVER_TRUST_COMMAND, [directory]);
      const message = trustMessage(result ?? {}, directory);
      output.info(message.text);
      await (message.ok ? showInformationMessage(message.text) : showWarningMessage(message.text));
    } catch (error) {
      output.error(`${SERVER_TRUST_COMMAND} ${directory}: ${errorText(error)}`);
      await showErrorMessage(`pi-lsp: could not trust ${directory}: ${errorText(error)}`);
    }
  };

  const restartServer = async () => {
    try {
      await client.restart();
    } catch (error) {
      await showErrorMessage(`pi-lsp: the server did not start: ${errorText(error)}`, "Show output").then(
        (choice) => choice && output.show(),
      );
    }
  };

  return [
    registerCommand(COMMANDS.showResolvedPrompt, showResolvedPrompt),
    registerCommand(COMMANDS.trustThisProject, trustThisProject),
    registerCommand(COMMANDS.restartServer, restartServer),
  ];
}
