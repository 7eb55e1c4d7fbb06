/**
 * The resolved prompt as a read-only virtual document (scheme `pi-lsp-prompt`).
 *
 * `renderPrompt` turns a `pi/systemPrompt` result into a title and a text with the token
 * figures in a header; `PromptDocuments` is the TextDocumentContentProvider that holds them,
 * one stable URI per working directory, so a refresh (after `pi/systemPromptChanged`) updates
 * the open document in place. `promptLinks` maps the prompt's spans that have a `source` to
 * links into the source files (a context file's region, line for line).
 */
import { newEventEmitter, uriFrom, type Uri } from "./vscodeapi";

export const PROMPT_SCHEME = "pi-lsp-prompt";

/** A region of the prompt text (docs/protocol.md): lines 0-based in `text`. */
export interface PromptSpan {
  kind?: string;
  start?: number;
  end?: number;
  startLine?: number;
  endLine?: number;
  tokens?: number;
  label?: string;
  source?: { path?: string; startLine?: number; startColumn?: number; endLine?: number; endColumn?: number };
}

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
  /** How many lines the header takes: prompt line `n` is document line `headerLines + n`. */
  headerLines: number;
  /** The result's spans, as sent. */
  spans: unknown[];
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
    headerLines: header.length,
    spans: Array.isArray(result.spans) ? result.spans : [],
  };
}

/** A link from a line range of the prompt document to a line of a source file (all 0-based). */
export interface PromptLink {
  line: number;
  startCharacter: number;
  endCharacter: number;
  path: string;
  targetLine: number;
}

function isLine(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/**
 * One link per document line covered by a span with a `source`. A `context-file` span holds its
 * file line for line, so each line links to its own source line (clamped to the source's end);
 * any other span's lines link to where its source starts. Empty lines get no link.
 */
export function promptLinks(spans: readonly unknown[], headerLines: number, documentLines: readonly string[]): PromptLink[] {
  const links: PromptLink[] = [];
  for (const raw of spans) {
    if (typeof raw !== "object" || raw === null) continue;
    const span = raw as PromptSpan;
    const source = span.source;
    if (!source || typeof source.path !== "string" || source.path === "" || !isLine(span.startLine)) continue;
    const firstSource = isLine(source.startLine) ? source.startLine : 0;
    const lastSource = isLine(source.endLine) && source.endLine >= firstSource ? source.endLine : undefined;
    const lastLine = isLine(span.endLine) && span.endLine >= span.startLine ? span.endLine : span.startLine;
    for (let line = span.startLine; line <= lastLine; line++) {
      const documentLine = headerLines + line;
      const text = documentLines[documentLine];
      if (text === undefined) break;
      if (text.trim() === "") continue;
      let targetLine = span.kind === "context-file" ? firstSource + (line - span.startLine) : firstSource;
      if (lastSource !== undefined) targetLine = Math.min(targetLine, lastSource);
      const startCharacter = text.length - text.trimStart().length;
      links.push({ line: documentLine, startCharacter, endCharacter: text.trimEnd().length, path: source.path, targetLine });
    }
  }
  return links;
}

function isWithin(child: string, parent: string): boolean {
  const base = parent.replace(/[\\/]+$/, "");
  return child === parent || child === base || child.startsWith(`${base}/`) || child.startsWith(`${base}\\`);
}

/**
 * The held cwds to refresh after a `pi/systemPromptChanged`: those it names (changed or
 * removed), and those below one it names — a folder without a context file of its own is not a
 * working directory of the server, but its prompt follows the nearest one above it.
 */
export function cwdsToRefresh(params: unknown, held: readonly string[]): string[] {
  if (typeof params !== "object" || params === null) return [];
  const named: string[] = [];
  for (const key of ["cwds", "removed"] as const) {
    const list = (params as Record<string, unknown>)[key];
    if (Array.isArray(list)) for (const cwd of list) if (typeof cwd === "string" && cwd !== "") named.push(cwd);
  }
  return held.filter((cwd) => named.some((parent) => isWithin(cwd, parent)));
}

interface Entry {
  cwd: string;
  rendered: RenderedPrompt;
}

/** Holds the rendered prompts; VS Code shows documents of a content provider read-only. */
export class PromptDocuments {
  private readonly entries = new Map<string, Entry>();
  private readonly changed = newEventEmitter<Uri>();
  readonly onDidChange = this.changed.event;

  /** One stable URI per cwd, named after its folder so the tab shows it; the cwd rides in the query. */
  uriFor(cwd: string): Uri {
    const name = `System prompt · ${folderName(cwd)}`.replace(/[\\/]/g, "-");
    return uriFrom({ scheme: PROMPT_SCHEME, path: `/${name}.md`, query: `cwd=${encodeURIComponent(cwd)}` });
  }

  /** Store a rendering and return its URI; an open document with that URI is refreshed. */
  set(rendered: RenderedPrompt, cwd: string): Uri {
    const uri = this.uriFor(cwd);
    const key = uri.toString();
    const previous = this.entries.get(key);
    this.entries.set(key, { cwd, rendered });
    if (previous !== undefined && previous.rendered.text !== rendered.text) this.changed.fire(uri);
    return uri;
  }

  /** The working directories of the prompts held (the open prompt documents). */
  heldCwds(): string[] {
    return [...new Set([...this.entries.values()].map((entry) => entry.cwd))];
  }

  /** Forget a closed document's prompt, so it is no longer refreshed. */
  forget(uri: Uri): void {
    if (uri.scheme === PROMPT_SCHEME) this.entries.delete(uri.toString());
  }

  provideTextDocumentContent(uri: Uri): string {
    return this.entries.get(uri.toString())?.rendered.text ?? "pi-lsp: this prompt is no longer available; run “pi-lsp: Show resolved prompt” again.";
  }

  /** The links of a held prompt document into its source files. */
  links(uri: Uri): PromptLink[] {
    const entry = this.entries.get(uri.toString());
    if (!entry) return [];
    return promptLinks(entry.rendered.spans, entry.rendered.headerLines, entry.rendered.text.split(/\r?\n/));
  }

  dispose(): void {
    this.changed.dispose();
  }
}
