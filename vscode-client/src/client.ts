/**
 * The language client: start `pi-lsp serve`, answer `workspace/configuration` for `pi-lsp`
 * with the mapped settings, follow the server's state, pass `pi/systemPromptChanged` and `pi/event`
 * notifications on, restart on demand.
 *
 * The client starts the server's process itself (in a process group of its own) rather than
 * leaving it to vscode-languageclient, so that stopping can end it for sure: a server that
 * does not stop in time is killed with everything it started before a new one starts.
 */
import type { ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import {
  LanguageClient,
  State,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { endTree, spawnTree } from "./processTree";
import { activeInterpreter } from "./python";
import { formatCommand, resolveServerCommand, type ServerCommand } from "./serverCommand";
import { answerConfiguration, currentSettings, serverSettings } from "./config";
import type { ServerState, ServerStatus } from "./status";
import {
  parseUri,
  SECTION,
  workspaceFolders,
  type CancellationToken,
  type Disposable,
  type OutputChannel,
} from "./vscodeapi";

export const CLIENT_ID = "pi-lsp";
export const CLIENT_NAME = "pi-lsp";

/** Markdown files on disk or unsaved: what the server lints and hovers. */
export const DOCUMENT_SELECTOR = [
  { scheme: "file", language: "markdown" },
  { scheme: "untitled", language: "markdown" },
];

export interface ClientEvents {
  onState(state: ServerState, error?: string): void;
  onPromptChanged(params: unknown): void;
  /** A `pi/event` notification (tool run streams). */
  onEvent?(params: unknown): void;
  /** A `pi/approve` request: the user's answer (docs/protocol.md). */
  onApprove?(params: unknown, token: CancellationToken): Promise<unknown>;
}

/** Where the server runs: the first workspace folder on disk (where vscode-languageclient would run it). */
function serverCwd(): string | undefined {
  const folder = workspaceFolders()[0];
  if (folder?.uri.scheme !== "file") return undefined;
  return fs.statSync(folder.uri.fsPath, { throwIfNoEntry: false })?.isDirectory() ? folder.uri.fsPath : undefined;
}

/** How long the server may take to answer `shutdown` and `exit` when stopped. */
export const STOP_TIMEOUT_MS = 2000;
/** How long it may then take to exit before its process tree is killed. */
export const EXIT_GRACE_MS = 1000;

export class PiClient {
  private client: LanguageClient | undefined;
  /** The server process of `client` (the one started last). */
  private server: ChildProcess | undefined;
  private readonly subscriptions: Disposable[] = [];
  private lastProblems = "";

  constructor(
    private readonly output: OutputChannel,
    private readonly events: ClientEvents,
  ) {}

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  private logProblems(problems: string[]): void {
    const key = problems.join("\n");
    if (key !== this.lastProblems && problems.length > 0) {
      for (const problem of problems) this.output.warn(`ignored setting ${problem}`);
    }
    this.lastProblems = key;
  }

  async serverCommand(): Promise<ServerCommand> {
    return resolveServerCommand({ ...serverSettings(), activeInterpreter: () => activeInterpreter() });
  }

  async start(): Promise<void> {
    this.events.onState("starting");
    const command = await this.serverCommand();
    this.output.info(`starting the server (${command.source}): ${formatCommand(command)} --stdio`);
    // Called again when vscode-languageclient restarts a server that went away by itself.
    const serverOptions: ServerOptions = async () => {
      if (this.server) await this.endServer(this.server);
      const child = spawnTree(command.command, [...command.args, "--stdio"], {
        cwd: serverCwd(),
        env: { ...process.env, PYTHONUNBUFFERED: "1" },
      });
      this.server = child;
      child.stderr!.on("data", (chunk: Buffer) => this.output.append(chunk.toString()));
      const spawned = new Promise<void>((resolve, reject) => {
        child.once("spawn", resolve);
        child.once("error", reject);
      });
      child.on("error", (error) => this.output.error(`the server process: ${error.message}`));
      await spawned;
      return { reader: child.stdout!, writer: child.stdin! };
    };
    const initial = currentSettings();
    this.logProblems(initial.problems);
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      outputChannel: this.output,
      initializationOptions: initial.settings,
      synchronize: { configurationSection: SECTION },
      middleware: {
        workspace: {
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) return answers; // an error from the editor: pass it on
            return answerConfiguration(
              params.items,
              answers,
              (scopeUri) => currentSettings(scopeUri ? parseUri(scopeUri) : undefined),
              (problems) => this.logProblems(problems),
            );
          },
        },
      },
    };
    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    this.client = client;
    this.subscriptions.push(
      client.onDidChangeState(({ newState }) => {
        if (this.client !== client) return;
        if (newState === State.Running) this.events.onState("running");
        else if (newState === State.Starting) this.events.onState("starting");
        else this.events.onState("stopped");
      }),
      client.onNotification("pi/systemPromptChanged", (params: unknown) => this.events.onPromptChanged(params)),
      client.onNotification("pi/event", (params: unknown) => this.events.onEvent?.(params)),
    );
    const onApprove = this.events.onApprove;
    // Without a handler the request stays unknown (method not found): the server then runs the
    // calls unasked, as Pi does.
    if (onApprove) this.subscriptions.push(client.onRequest("pi/approve", (params: unknown, token) => onApprove(params, token)));
    try {
      await client.start();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.output.error(`the server did not start: ${message}`);
      this.events.onState("failed", `${formatCommand(command)}: ${message}`);
      throw error;
    }
  }

  async stop(): Promise<void> {
    const client = this.client;
    const server = this.server;
    this.client = undefined;
    this.server = undefined;
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
    if (client && client.state !== State.Stopped) {
      try {
        await client.stop(STOP_TIMEOUT_MS);
      } catch (error) {
        this.output.warn(`stopping the server: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    if (server) await this.endServer(server);
    this.events.onState("stopped");
  }

  /** End `server` and whatever it started, killing them if it does not exit by itself soon. */
  private async endServer(server: ChildProcess): Promise<void> {
    if (this.server === server) this.server = undefined;
    if (await endTree(server, EXIT_GRACE_MS)) {
      this.output.warn(`the server (pid ${server.pid}) did not exit: killed it and the processes it started`);
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /**
   * Send a request; params default to `{}`. A request without a `params` member (what
   * `sendRequest(method)` sends for a method without params) is refused by the server
   * (pygls answers InternalError), so one is always sent.
   */
  async request<R>(method: string, params: object = {}, token?: CancellationToken): Promise<R> {
    const client = this.client;
    if (!client || client.state !== State.Running) throw new Error("the pi-lsp server is not running");
    // A cancelled token sends `$/cancelRequest` (for pi/runTool the server then aborts the tool).
    return token ? client.sendRequest<R>(method, params, token) : client.sendRequest<R>(method, params);
  }

  status(): Promise<ServerStatus> {
    return this.request<ServerStatus>("pi/status");
  }

  executeCommand<R>(command: string, args: unknown[]): Promise<R> {
    return this.request<R>("workspace/executeCommand", { command, arguments: args });
  }
}
