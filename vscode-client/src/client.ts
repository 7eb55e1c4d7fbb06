/**
 * The language client: start `pi-lsp serve`, answer `workspace/configuration` for `pi-lsp`
 * with the mapped settings, follow the server's state, pass `pi/systemPromptChanged` and `pi/event`
 * notifications on, restart on demand.
 */
import {
  LanguageClient,
  State,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import { activeInterpreter } from "./python";
import { formatCommand, resolveServerCommand, type ServerCommand } from "./serverCommand";
import { answerConfiguration, currentSettings, serverSettings } from "./config";
import type { ServerState, ServerStatus } from "./status";
import { parseUri, SECTION, type CancellationToken, type Disposable, type OutputChannel } from "./vscodeapi";

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
}

export class PiClient {
  private client: LanguageClient | undefined;
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
    const serverOptions: ServerOptions = {
      command: command.command,
      args: command.args,
      options: { env: { ...process.env, PYTHONUNBUFFERED: "1" } },
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
    this.client = undefined;
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
    if (client && client.state !== State.Stopped) {
      try {
        await client.stop(2000);
      } catch (error) {
        this.output.warn(`stopping the server: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    this.events.onState("stopped");
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
