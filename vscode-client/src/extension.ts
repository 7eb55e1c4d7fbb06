/** Entry point: wire the client, the status item, the prompt documents, tool streams and the commands. */
import { ActiveSessionTracker } from "./activeSession";
import { registerChatView } from "./chat/view";
import { PiClient } from "./client";
import { EditReview } from "./editReview";
import { refreshPrompts, registerCommands } from "./commands";
import { PROMPT_SCHEME, PromptDocuments } from "./promptDocument";
import { registerSessionTree } from "./sessionTree";
import { RESTART_KEYS } from "./settings";
import { StatusItem, type ServerState } from "./status";
import { registerToolCommand } from "./toolCommand";
import { registerToolPanelCommand, TOOL_SCHEME, ToolPanels } from "./toolPanels";
import { ToolStreams } from "./toolRun";
import {
  createOutputChannel,
  onDidChangeConfiguration,
  onDidCloseTextDocument,
  registerDocumentLinkProvider,
  registerTextDocumentContentProvider,
  SECTION,
  showErrorMessage,
  type CancellationToken,
  type Disposable,
  type Uri,
} from "./vscodeapi";

let client: PiClient | undefined;

/** How long after a `pi/systemPromptChanged` the status is asked again (bursts become one). */
const STATUS_REFRESH_MS = 250;

export async function activate(context: { subscriptions: Disposable[]; extensionUri: Uri }): Promise<void> {
  const output = createOutputChannel("pi-lsp");
  const status = new StatusItem();
  const prompts = new PromptDocuments();
  const streams = new ToolStreams();
  /** The chat session shown: one tracker shared by the chat view, the session tree and the tool panels. */
  const activeSession = new ActiveSessionTracker();
  /** Server requests of the tool panels and the session tree (refused while the server is down). */
  const request = <R>(method: string, params: object, token?: CancellationToken): Promise<R> =>
    client ? client.request<R>(method, params, token) : Promise.reject(new Error("the pi-lsp server is not running"));
  const toolPanels = new ToolPanels(request);
  let chat: ReturnType<typeof registerChatView> | undefined;
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;

  const refreshStatus = () => {
    if (refreshTimer !== undefined) clearTimeout(refreshTimer);
    refreshTimer = setTimeout(() => {
      refreshTimer = undefined;
      if (!client?.running) return;
      client.status().then(
        (result) => status.show("running", result),
        (error: unknown) => output.warn(`pi/status: ${error instanceof Error ? error.message : String(error)}`),
      );
    }, STATUS_REFRESH_MS);
  };

  const onState = (state: ServerState, error?: string) => {
    status.show(state, undefined, error);
    if (state === "running") {
      refreshStatus();
      chat?.serverStarted();
    }
  };

  client = new PiClient(output, {
    onState,
    onPromptChanged: (params) => {
      refreshStatus();
      chat?.promptChanged();
      if (client) void refreshPrompts(client, prompts, params, output);
    },
    onEvent: (params) => {
      streams.dispatch(params);
      chat?.dispatch(params);
      toolPanels.dispatch(params);
    },
    onApprove: (params, token) => (chat ? chat.approve(params, token) : Promise.reject(new Error("the chat view is not ready"))),
  });
  const piClient = client;
  const review = new EditReview();
  chat = registerChatView(piClient, activeSession, context.extensionUri, output, review);

  context.subscriptions.push(
    ...review.register(),
    output,
    status,
    prompts,
    registerTextDocumentContentProvider(PROMPT_SCHEME, prompts),
    registerDocumentLinkProvider(PROMPT_SCHEME, (uri) => prompts.links(uri)),
    onDidCloseTextDocument((document) => prompts.forget(document.uri)),
    ...registerCommands(piClient, prompts, output),
    registerToolCommand(piClient, streams, output),
    ...chat.disposables,
    toolPanels,
    registerTextDocumentContentProvider(TOOL_SCHEME, toolPanels),
    onDidCloseTextDocument((document) => toolPanels.closed(document.uri)),
    registerToolPanelCommand(toolPanels),
    toolPanels.follow(activeSession),
    ...registerSessionTree(request, activeSession),
    onDidChangeConfiguration((event) => {
      if (RESTART_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) {
        output.info("server settings changed: restarting the server");
        piClient.restart().catch(() => undefined);
      }
    }),
    { dispose: () => refreshTimer !== undefined && clearTimeout(refreshTimer) },
  );

  try {
    await piClient.start();
  } catch (error) {
    const choice = await showErrorMessage(
      `pi-lsp: the server did not start (${error instanceof Error ? error.message : String(error)}). ` +
        "Set pi-lsp.server.command or pi-lsp.server.pythonPath to an environment with pi-lsp installed.",
      "Show output",
    );
    if (choice) output.show();
  }
}

export async function deactivate(): Promise<void> {
  const current = client;
  client = undefined;
  await current?.stop();
}
