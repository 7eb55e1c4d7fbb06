/**
 * The chat view (`pi-lsp.chat`, a webview view in the pi-lsp activity-bar container): its page
 * with a strict Content-Security-Policy (scripts only by nonce, nothing from outside the
 * extension's `dist/` folder), the message routing to the controller, and the
 * chat commands. The page is dropped when the view is hidden; when shown again it says `ready`
 * and the controller sends the whole transcript.
 */
import type { ActiveSessionTracker } from "../activeSession";
import {
  joinUri,
  registerCommand,
  type CancellationToken,
  registerWebviewViewProvider,
  type Disposable,
  type Uri,
  type WebviewView,
} from "../vscodeapi";
import { ChatController, type ApprovalAnswer, type ChatClient, type ChatLog } from "./controller";
import type { EditReviewer } from "../editReview";
import { chatHtml, makeNonce } from "./page";
import { parseWebviewMessage } from "./protocol";

export { chatHtml, contentSecurityPolicy } from "./page";

export const CHAT_VIEW = "pi-lsp.chat";
export const CHAT_COMMANDS = {
  newSession: "pi-lsp.chat.newSession",
  openSession: "pi-lsp.chat.openSession",
  stop: "pi-lsp.chat.stop",
  selectModel: "pi-lsp.chat.selectModel",
  addSelection: "pi-lsp.chat.addSelection",
  attachActiveFile: "pi-lsp.chat.attachActiveFile",
} as const;

export class ChatViewProvider {
  private view: WebviewView | undefined;
  private viewSubscriptions: Disposable[] = [];

  constructor(
    private readonly extensionUri: Uri,
    readonly controller: ChatController,
    private readonly log?: ChatLog,
  ) {}

  resolveWebviewView(view: WebviewView): void {
    for (const subscription of this.viewSubscriptions.splice(0)) subscription.dispose();
    this.view = view;
    const dist = joinUri(this.extensionUri, "dist");
    // Only the built page script and style sheet can be loaded (esbuild.mjs writes both).
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = chatHtml({
      cspSource: view.webview.cspSource,
      nonce: makeNonce(),
      scriptUri: view.webview.asWebviewUri(joinUri(dist, "webview.js")).toString(),
      styleUri: view.webview.asWebviewUri(joinUri(dist, "chat.css")).toString(),
    });
    this.viewSubscriptions.push(
      view.webview.onDidReceiveMessage((data: unknown) => {
        const message = parseWebviewMessage(data);
        if (!message) return;
        if (message.type === "ready") {
          this.controller.attach((hostMessage) => void view.webview.postMessage(hostMessage));
        } else {
          // A failure is logged, never left as an unhandled rejection.
          this.controller.handle(message).catch((error: unknown) => {
            this.log?.warn(`chat view ${message.type}: ${error instanceof Error ? error.message : String(error)}`);
          });
        }
      }),
      view.onDidChangeVisibility(() => {
        // A hidden view's page is gone; it says `ready` again when it is rebuilt.
        if (!view.visible) this.controller.detach();
      }),
      view.onDidDispose(() => {
        if (this.view === view) {
          this.view = undefined;
          this.controller.detach();
        }
      }),
    );
  }

  dispose(): void {
    for (const subscription of this.viewSubscriptions.splice(0)) subscription.dispose();
    this.controller.dispose();
  }
}

/** The chat view, its commands, and `dispatch` for `pi/event` notifications. */
export function registerChatView(
  client: ChatClient,
  tracker: ActiveSessionTracker,
  extensionUri: Uri,
  log?: ChatLog,
  review?: EditReviewer,
): {
  provider: ChatViewProvider;
  dispatch(params: unknown): boolean;
  /** A `pi/approve` request, answered from a card in the chat. */
  approve(params: unknown, token: CancellationToken): Promise<ApprovalAnswer>;
  promptChanged(): void;
  serverStarted(): void;
  disposables: Disposable[];
} {
  const controller = new ChatController(client, tracker, log, review);
  const provider = new ChatViewProvider(extensionUri, controller, log);
  const reveal = async (then: () => unknown) => {
    await controller.focus();
    await then();
  };
  const disposables: Disposable[] = [
    registerWebviewViewProvider(CHAT_VIEW, provider),
    registerCommand(CHAT_COMMANDS.newSession, () => reveal(() => controller.newSession())),
    registerCommand(CHAT_COMMANDS.openSession, () => reveal(() => controller.openSession())),
    registerCommand(CHAT_COMMANDS.stop, () => controller.stop()),
    registerCommand(CHAT_COMMANDS.selectModel, () => controller.pickModel()),
    registerCommand(CHAT_COMMANDS.addSelection, () => controller.addSelection()),
    registerCommand(CHAT_COMMANDS.attachActiveFile, () => reveal(() => controller.attachActiveFile())),
    provider,
  ];
  return {
    provider,
    dispatch: (params) => controller.dispatch(params),
    approve: (params: unknown, token: CancellationToken) => controller.approve(params, token),
    promptChanged: () => controller.refreshUsage(),
    // Models and the meter could not be asked before the server ran (or after a restart).
    serverStarted: () => {
      controller.serverStarted();
      void controller.refreshModels();
      controller.refreshUsage(0);
    },
    disposables,
  };
}
