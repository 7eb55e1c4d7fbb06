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
  ) {}
  static from(c: { scheme: string; path: string; query?: string }): Uri {
    return new Uri(c.scheme, c.path, c.query ?? "");
  }
  static file(p: string): Uri {
    return new Uri("file", p, "");
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
    return `${this.scheme}:${this.scheme === "file" ? "//" : ""}${encodeURI(this.path)}${this.query ? `?${this.query}` : ""}`;
  }
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
  activeFile: undefined as string | undefined,
  folders: [] as string[],
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
    this.activeFile = undefined;
    this.folders = [];
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
  registerTextDocumentContentProvider(scheme: string, provider: { provideTextDocumentContent(uri: Uri): string }) {
    stub.contentProviders.set(scheme, provider);
    return disposable;
  },
  async openTextDocument(uri: Uri) {
    const provider = stub.contentProviders.get(uri.scheme);
    return { uri, getText: () => provider?.provideTextDocumentContent(uri) ?? "" };
  },
};

function record(kind: Message["kind"]) {
  return async (text: string) => {
    stub.messages.push({ kind, text });
    return undefined;
  };
}

export const window = {
  get activeTextEditor() {
    return stub.activeFile === undefined ? undefined : { document: { uri: Uri.file(stub.activeFile) } };
  },
  showInformationMessage: record("info"),
  showWarningMessage: record("warning"),
  showErrorMessage: record("error"),
  setStatusBarMessage(text: string) {
    stub.messages.push({ kind: "status", text });
    return disposable;
  },
  async showTextDocument(document: { uri: Uri }) {
    stub.shown.push(document.uri);
    return {};
  },
  createOutputChannel(name: string) {
    const lines: string[] = [];
    const log = (level: string) => (text: string) => lines.push(`${level} ${text}`);
    return { name, lines, info: log("info"), warn: log("warn"), error: log("error"), show: () => undefined, dispose: () => undefined };
  },
};

export const languages = {
  createLanguageStatusItem(id: string, selector: unknown) {
    return { id, selector, name: "", text: "", detail: "", busy: false, severity: 0, command: undefined, dispose: () => undefined };
  },
};

export const commands = {
  registerCommand(id: string, run: (...args: unknown[]) => unknown) {
    stub.commands.set(id, run);
    return { dispose: () => stub.commands.delete(id) };
  },
};

export const extensions = {
  getExtension(id: string) {
    return stub.extensions.get(id);
  },
};
