/**
 * A stand-in for the `vscode` module, enough for the extension's host-side code.
 *
 * Configuration reads package.json's declared defaults, overlaid with what a test sets through
 * `stub.setConfiguration`; everything shown to the user is recorded in `stub.messages`.
 */
import * as fs from "node:fs";
import * as path from "node:path";

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));
const declared: Record<string, { default?: unknown }> = manifest.contributes.configuration.properties;

type Listener<T> = (value: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>) => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query: string,
    readonly fragment: string = "",
  ) {}
  static from(c: { scheme: string; path: string; query?: string; fragment?: string }): Uri {
    return new Uri(c.scheme, c.path, c.query ?? "", c.fragment ?? "");
  }
  with(c: { query?: string; fragment?: string }): Uri {
    return new Uri(this.scheme, this.path, c.query ?? this.query, c.fragment ?? this.fragment);
  }
  static file(p: string): Uri {
    return new Uri("file", p, "");
  }
  static joinPath(base: Uri, ...segments: string[]): Uri {
    return new Uri(base.scheme, path.posix.join(base.path, ...segments), base.query);
  }
  static parse(value: string): Uri {
    const match = /^([a-z][\w+.-]*):(?:\/\/)?([^?]*)(?:\?(.*))?$/i.exec(value);
    if (!match) throw new Error(`not a URI: ${value}`);
    return new Uri(match[1]!, decodeURIComponent(match[2]!), match[3] ?? "");
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}:${this.scheme === "file" ? "//" : ""}${encodeURI(this.path)}${this.query ? `?${this.query}` : ""}${this.fragment ? `#${this.fragment}` : ""}`;
  }
}

export class Range {
  constructor(
    readonly startLine: number,
    readonly startCharacter: number,
    readonly endLine: number,
    readonly endCharacter: number,
  ) {}
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

/** A workspace edit as a list of operations (applied by `workspace.applyEdit`). */
export class WorkspaceEdit {
  readonly operations: (
    | { op: "create"; uri: Uri; options?: unknown }
    | { op: "insert"; uri: Uri; at: Position; text: string }
    | { op: "replace"; uri: Uri; range: Range; text: string }
  )[] = [];
  createFile(uri: Uri, options?: unknown): void {
    this.operations.push({ op: "create", uri, options });
  }
  insert(uri: Uri, at: Position, text: string): void {
    this.operations.push({ op: "insert", uri, at, text });
  }
  replace(uri: Uri, range: Range, text: string): void {
    this.operations.push({ op: "replace", uri, range, text });
  }
}

export class TabInputTextDiff {
  constructor(
    readonly original: Uri,
    readonly modified: Uri,
  ) {}
}

/** An open buffer of a file: its text, whether it is unsaved, and the texts Undo goes back to. */
export interface StubDocument {
  uri: Uri;
  text: string;
  dirty: boolean;
  undo: string[];
}

function offsetOf(text: string, line: number, character: number): number {
  let offset = 0;
  for (let i = 0; i < line; i += 1) {
    const next = text.indexOf("\n", offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  return Math.min(offset + character, text.length);
}

function documentView(document: StubDocument) {
  const lines = () => document.text.split(/\r?\n/);
  return {
    uri: document.uri,
    getText: () => document.text,
    get isDirty() {
      return document.dirty;
    },
    get lineCount() {
      return lines().length;
    },
    lineAt: (line: number) => ({ text: lines()[line] ?? "" }),
    async save() {
      if (stub.saveFails) return false;
      stub.files.set(document.uri.fsPath, document.text);
      document.dirty = false;
      return true;
    },
  };
}

export class DocumentLink {
  tooltip?: string;
  constructor(
    readonly range: Range,
    readonly target?: Uri,
  ) {}
}

type LinkProvider = { provideDocumentLinks(document: { uri: Uri }): DocumentLink[] };

export class CancellationToken {
  isCancellationRequested = false;
  private readonly cancelled = new EventEmitter<void>();
  readonly onCancellationRequested = this.cancelled.event;
  cancel(): void {
    this.isCancellationRequested = true;
    this.cancelled.fire();
  }
}

export class CancellationTokenSource {
  readonly token = new CancellationToken();
  cancel(): void {
    if (!this.token.isCancellationRequested) this.token.cancel();
  }
  dispose(): void {}
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class ThemeIcon {
  constructor(
    readonly id: string,
    readonly color?: ThemeColor,
  ) {}
}

export class MarkdownString {
  isTrusted = false;
  supportHtml = false;
  constructor(readonly value: string = "") {}
}

export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: MarkdownString | string;
  iconPath?: ThemeIcon;
  contextValue?: string;
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export enum ViewColumn {
  Active = -1,
  Beside = -2,
  One = 1,
}

export enum LanguageStatusSeverity {
  Information = 0,
  Warning = 1,
  Error = 2,
}

interface Message {
  kind: "info" | "warning" | "error" | "status";
  text: string;
}

export const stub = {
  configuration: {} as Record<string, unknown>,
  messages: [] as Message[],
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  extensions: new Map<string, unknown>(),
  shown: [] as Uri[],
  contentProviders: new Map<string, { provideTextDocumentContent(uri: Uri): string }>(),
  linkProviders: new Map<string, LinkProvider>(),
  closeListeners: [] as ((document: { uri: Uri }) => unknown)[],
  activeFile: undefined as string | undefined,
  /** The active editor's selection (lines 1-based), when `activeFile` is set. */
  activeSelection: undefined as { startLine: number; endLine: number; text: string } | undefined,
  folders: [] as string[],
  /** Answers for showQuickPick / showInputBox, taken in order (undefined: dismissed). */
  picks: [] as (string | undefined)[],
  inputs: [] as (string | undefined)[],
  inputValidations: [] as ((value: string) => string | undefined)[],
  channels: [] as { name: string; text: string; lines: string[]; disposed: boolean }[],
  /** The token of the running withProgress task, to press its Cancel button. */
  progress: [] as { title: string; cancel(): void }[],
  /** Options each showTextDocument got, in order (beside `shown`). */
  shownOptions: [] as unknown[],
  /** Answers for messages with buttons (modal or not), taken in order (undefined: dismissed). */
  answers: [] as (string | undefined)[],
  /** Messages that offered buttons: text, options (modal, detail) and the buttons. */
  asked: [] as { text: string; options?: unknown; items: string[] }[],
  /** Tree views created, by view id. */
  treeViews: new Map<string, { treeDataProvider: unknown; description?: string; showCollapseAll?: boolean }>(),
  /** Webview view providers registered, by view id, with their options. */
  webviewProviders: new Map<string, { provider: unknown; options?: unknown }>(),
  /** Files on disk by path (workspace.fs, openTextDocument, save) and open buffers by path. */
  files: new Map<string, string>(),
  documents: new Map<string, StubDocument>(),
  /** Workspace edits applied, in order; `applyEditFails` / `saveFails` make the editor refuse. */
  edits: [] as WorkspaceEdit[],
  applyEditFails: false,
  saveFails: false,
  /** Diff editors open (tabGroups), and those closed. */
  diffTabs: [] as TabInputTextDiff[],
  /** Open a buffer of `path` with `text` (unsaved when it differs from the file on disk). */
  openDocument(path: string, text: string): StubDocument {
    const document = { uri: Uri.file(path), text, dirty: text !== this.files.get(path), undo: [] };
    this.documents.set(path, document);
    return document;
  },
  /** Commands run through executeCommand, in order. */
  executed: [] as { command: string; args: unknown[] }[],
  /** Links opened outside the editor (env.openExternal). */
  external: [] as string[],
  setConfiguration(values: Record<string, unknown>): void {
    this.configuration = { ...values };
  },
  reset(): void {
    this.configuration = {};
    this.messages = [];
    this.commands.clear();
    this.extensions.clear();
    this.shown = [];
    this.contentProviders.clear();
    this.linkProviders.clear();
    this.closeListeners = [];
    this.activeFile = undefined;
    this.activeSelection = undefined;
    this.folders = [];
    this.picks = [];
    this.inputs = [];
    this.inputValidations = [];
    this.channels = [];
    this.progress = [];
    this.webviewProviders.clear();
    this.executed = [];
    this.external = [];
    this.shownOptions = [];
    this.answers = [];
    this.asked = [];
    this.treeViews.clear();
    this.files.clear();
    this.documents.clear();
    this.edits = [];
    this.applyEditFails = false;
    this.saveFails = false;
    this.diffTabs = [];
  },
};

const disposable = { dispose: () => undefined };

export const workspace = {
  getConfiguration(section: string) {
    return {
      get<T>(key: string, fallback?: T): T | undefined {
        const full = `${section}.${key}`;
        if (full in stub.configuration) return stub.configuration[full] as T;
        if (full in declared) return declared[full]!.default as T;
        return fallback;
      },
    };
  },
  get workspaceFolders() {
    return stub.folders.map((folder, index) => ({ uri: Uri.file(folder), name: path.basename(folder), index }));
  },
  getWorkspaceFolder(uri: Uri) {
    return this.workspaceFolders.find((folder) => uri.fsPath.startsWith(`${folder.uri.fsPath}/`));
  },
  onDidChangeConfiguration: () => disposable,
  onDidCloseTextDocument(listener: (document: { uri: Uri }) => unknown) {
    stub.closeListeners.push(listener);
    return disposable;
  },
  registerTextDocumentContentProvider(scheme: string, provider: { provideTextDocumentContent(uri: Uri): string }) {
    stub.contentProviders.set(scheme, provider);
    return disposable;
  },
  async openTextDocument(uri: Uri) {
    if (uri.scheme === "file") {
      const open = stub.documents.get(uri.fsPath);
      if (open !== undefined) return documentView(open);
      const text = stub.files.get(uri.fsPath);
      if (text === undefined) throw new Error(`cannot open ${uri.fsPath}: no such file`);
      return documentView(stub.openDocument(uri.fsPath, text));
    }
    const provider = stub.contentProviders.get(uri.scheme);
    return { uri, getText: () => provider?.provideTextDocumentContent(uri) ?? "" };
  },
  get textDocuments() {
    return [...stub.documents.values()].map(documentView);
  },
  fs: {
    async readFile(uri: Uri): Promise<Uint8Array> {
      const text = stub.files.get(uri.fsPath);
      if (text === undefined) throw new Error(`ENOENT: ${uri.fsPath}`);
      return new TextEncoder().encode(text);
    },
  },
  /** Applies the operations to the open buffers (opening them), as the editor does: unsaved, undoable. */
  async applyEdit(edit: WorkspaceEdit): Promise<boolean> {
    if (stub.applyEditFails) return false;
    stub.edits.push(edit);
    for (const operation of edit.operations) {
      const path = operation.uri.fsPath;
      if (operation.op === "create") {
        if (!stub.files.has(path)) stub.files.set(path, "");
        continue;
      }
      const document = stub.documents.get(path) ?? stub.openDocument(path, stub.files.get(path) ?? "");
      const [start, end] =
        operation.op === "insert"
          ? [operation.at, operation.at]
          : [new Position(operation.range.startLine, operation.range.startCharacter), new Position(operation.range.endLine, operation.range.endCharacter)];
      document.undo.push(document.text);
      const from = offsetOf(document.text, start.line, start.character);
      const to = offsetOf(document.text, end.line, end.character);
      document.text = document.text.slice(0, from) + operation.text + document.text.slice(to);
      document.dirty = true;
    }
    return true;
  },
};

function record(kind: Message["kind"]) {
  return async (text: string) => {
    stub.messages.push({ kind, text });
    return undefined;
  };
}

export const window = {
  tabGroups: {
    get all() {
      return [{ tabs: stub.diffTabs.map((input) => ({ input })) }];
    },
    async close(tabs: { input: TabInputTextDiff }[]) {
      stub.diffTabs = stub.diffTabs.filter((input) => !tabs.some((tab) => tab.input === input));
      return true;
    },
  },
  get activeTextEditor() {
    if (stub.activeFile === undefined) return undefined;
    const selected = stub.activeSelection;
    const selection = {
      isEmpty: selected === undefined,
      start: { line: (selected?.startLine ?? 1) - 1, character: 0 },
      end: { line: (selected?.endLine ?? 1) - 1, character: selected ? 1 : 0 },
    };
    return { document: { uri: Uri.file(stub.activeFile), getText: () => selected?.text ?? "" }, selection };
  },
  showInformationMessage: record("info"),
  async showWarningMessage(text: string, ...rest: unknown[]) {
    stub.messages.push({ kind: "warning", text });
    const options = typeof rest[0] === "object" && rest[0] !== null ? rest.shift() : undefined;
    const items = rest.filter((item): item is string => typeof item === "string");
    if (items.length === 0) return undefined;
    stub.asked.push({ text, options, items });
    const answer = stub.answers.shift();
    return answer !== undefined && items.includes(answer) ? answer : undefined;
  },
  createTreeView(id: string, options: { treeDataProvider: unknown; showCollapseAll?: boolean }) {
    const view = { ...options, description: undefined as string | undefined, dispose: () => stub.treeViews.delete(id) };
    stub.treeViews.set(id, view);
    return view;
  },
  showErrorMessage: record("error"),
  setStatusBarMessage(text: string) {
    stub.messages.push({ kind: "status", text });
    return disposable;
  },
  async showTextDocument(document: { uri: Uri }, options?: unknown) {
    stub.shown.push(document.uri);
    stub.shownOptions.push(options);
    return {};
  },
  createOutputChannel(name: string) {
    const lines: string[] = [];
    const log = (level: string) => (text: string) => lines.push(`${level} ${text}`);
    const channel = {
      name,
      lines,
      text: "",
      append(text: string) {
        channel.text += text;
      },
      appendLine(text: string) {
        channel.text += `${text}\n`;
      },
      info: log("info"),
      warn: log("warn"),
      error: log("error"),
      show: () => undefined,
      disposed: false,
      dispose: () => {
        channel.disposed = true;
      },
    };
    stub.channels.push(channel);
    return channel;
  },
  async showQuickPick(items: (string | { label: string })[]) {
    const pick = stub.picks.shift();
    // Items with labels are picked by label.
    if (pick !== undefined) return items.find((item) => (typeof item === "string" ? item : item.label) === pick);
    return undefined;
  },
  registerWebviewViewProvider(id: string, provider: unknown, options?: unknown) {
    stub.webviewProviders.set(id, { provider, options });
    return { dispose: () => stub.webviewProviders.delete(id) };
  },
  async showInputBox(options: { value?: string; validateInput?: (value: string) => string | undefined }) {
    if (options.validateInput) stub.inputValidations.push(options.validateInput);
    return stub.inputs.shift();
  },
  async withProgress<R>(
    options: { title?: string; cancellable?: boolean },
    task: (progress: { report(): void }, token: CancellationToken) => Promise<R>,
  ) {
    const token = new CancellationToken();
    stub.progress.push({ title: options.title ?? "", cancel: () => token.cancel() });
    return task({ report: () => undefined }, token);
  },
};

export const languages = {
  registerDocumentLinkProvider(selector: { scheme: string }, provider: LinkProvider) {
    stub.linkProviders.set(selector.scheme, provider);
    return disposable;
  },
  createLanguageStatusItem(id: string, selector: unknown) {
    return { id, selector, name: "", text: "", detail: "", busy: false, severity: 0, command: undefined, dispose: () => undefined };
  },
};

export const commands = {
  registerCommand(id: string, run: (...args: unknown[]) => unknown) {
    stub.commands.set(id, run);
    return { dispose: () => stub.commands.delete(id) };
  },
  async executeCommand(command: string, ...args: unknown[]) {
    stub.executed.push({ command, args });
    if (command === "vscode.diff") stub.diffTabs.push(new TabInputTextDiff(args[0] as Uri, args[1] as Uri));
    return stub.commands.get(command)?.(...args);
  },
};

export const extensions = {
  getExtension(id: string) {
    return stub.extensions.get(id);
  },
};

export const env = {
  async openExternal(uri: Uri) {
    stub.external.push(uri.toString());
    return true;
  },
};
