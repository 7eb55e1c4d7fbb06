/**
 * The resolved prompt as a read-only virtual document (scheme `pi-lsp-prompt`).
 *
 * `renderPrompt` turns a `pi/systemPrompt` result into a title and a text with the token
 * figures in a header; `PromptDocuments` is the TextDocumentContentProvider that holds them.
 */
import { newEventEmitter, uriFrom, type Uri } from "./vscodeapi";

export const PROMPT_SCHEME = "pi-lsp-prompt";

/** The parts of the `pi/systemPrompt` result used here (docs/protocol.md). */
export interface PromptResult {
  text: string;
  tools?: string[];
  tokens?: number;
  estimate?: boolean;
  tokenizer?: string;
  tokensByKind?: Record<string, number>;
  spans?: unknown[];
}

export interface RenderedPrompt {
  /** Tab title: folder, token count. */
  title: string;
  /** One line for a status message. */
  summary: string;
  /** The document: a header with the figures, then the prompt text unchanged. */
  text: string;
}

export function formatTokens(count: number | undefined, estimate?: boolean): string {
  if (typeof count !== "number" || !Number.isFinite(count)) return "? tokens";
  const figure = count.toLocaleString("en-US");
  return `${estimate ? "~" : ""}${figure} ${count === 1 ? "token" : "tokens"}`;
}

function folderName(cwd: string): string {
  const parts = cwd.split(/[\\/]/).filter((part) => part !== "");
  return parts.length > 0 ? parts[parts.length - 1]! : cwd;
}

/** `modelWindow`, when known, gives the share of the window the prompt takes. */
export function renderPrompt(result: PromptResult, cwd: string, modelWindow?: number): RenderedPrompt {
  const tokens = formatTokens(result.tokens, result.estimate);
  const share =
    typeof result.tokens === "number" && typeof modelWindow === "number" && modelWindow > 0
      ? ` (${((100 * result.tokens) / modelWindow).toFixed(1)}% of ${modelWindow.toLocaleString("en-US")})`
      : "";
  const header = [`<!-- pi-lsp: system prompt for ${cwd}`, `     ${tokens}${share}${result.tokenizer ? `, tokenizer ${result.tokenizer}` : ""}`];
  const kinds = Object.entries(result.tokensByKind ?? {}).filter(([, count]) => typeof count === "number");
  if (kinds.length > 0) {
    kinds.sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
    header.push(`     by kind: ${kinds.map(([kind, count]) => `${kind} ${formatTokens(count, result.estimate)}`).join(", ")}`);
  }
  if (result.tools && result.tools.length > 0) header.push(`     tools: ${result.tools.join(", ")}`);
  header.push("-->", "");
  return {
    title: `System prompt · ${folderName(cwd)} · ${tokens}`,
    summary: `pi-lsp: system prompt for ${folderName(cwd)}: ${tokens}${share}`,
    text: `${header.join("\n")}\n${result.text}`,
  };
}

/** Holds the rendered prompts; VS Code shows documents of a content provider read-only. */
export class PromptDocuments {
  private readonly texts = new Map<string, string>();
  private readonly changed = newEventEmitter<Uri>();
  readonly onDidChange = this.changed.event;

  /** A URI whose file name is the title, so the tab shows it; the cwd rides in the query. */
  uriFor(rendered: RenderedPrompt, cwd: string): Uri {
    const name = rendered.title.replace(/[\\/]/g, "-");
    return uriFrom({ scheme: PROMPT_SCHEME, path: `/${name}.md`, query: `cwd=${encodeURIComponent(cwd)}` });
  }

  /** Store a rendering and return its URI; an open document with that URI is refreshed. */
  set(rendered: RenderedPrompt, cwd: string): Uri {
    const uri = this.uriFor(rendered, cwd);
    const key = uri.toString();
    const previous = this.texts.get(key);
    this.texts.set(key, rendered.text);
    if (previous !== undefined && previous !== rendered.text) this.changed.fire(uri);
    return uri;
  }

  provideTextDocumentContent(uri: Uri): string {
    return this.texts.get(uri.toString()) ?? "pi-lsp: this prompt is no longer available; run “pi-lsp: Show resolved prompt” again.";
  }

  dispose(): void {
    this.changed.dispose();
  }
}
