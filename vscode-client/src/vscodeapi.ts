/**
 * The one place that touches `vscode.*` (as ruff-vscode does): every other module goes through
 * these functions, so a test replaces one module — and reading the code shows at a glance which
 * parts of the editor the extension uses.
 */
import * as vscode from "vscode";

export type Disposable = vscode.Disposable;
export type Uri = vscode.Uri;
export type OutputChannel = vscode.LogOutputChannel;
export type LanguageStatusItem = vscode.LanguageStatusItem;
export type WorkspaceFolder = vscode.WorkspaceFolder;

export const SECTION = "pi-lsp";

/** The `pi-lsp` section as the editor has it (defaults from package.json included). */
export function getSection(scope?: vscode.Uri): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION, scope);
}

export function onDidChangeConfiguration(
  listener: (e: vscode.ConfigurationChangeEvent) => unknown,
): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration(listener);
}

export function registerCommand(id: string, run: (...args: unknown[]) => unknown): vscode.Disposable {
  return vscode.commands.registerCommand(id, run);
}

export function createOutputChannel(name: string): vscode.LogOutputChannel {
  return vscode.window.createOutputChannel(name, { log: true });
}

export function createLanguageStatusItem(
  id: string,
  selector: vscode.DocumentSelector,
): vscode.LanguageStatusItem {
  return vscode.languages.createLanguageStatusItem(id, selector);
}

export function registerTextDocumentContentProvider(
  scheme: string,
  provider: vscode.TextDocumentContentProvider,
): vscode.Disposable {
  return vscode.workspace.registerTextDocumentContentProvider(scheme, provider);
}

/** Open a document by URI and show it beside the active editor, read-only for virtual ones. */
export async function showDocument(uri: vscode.Uri): Promise<void> {
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(document, { preview: false, viewColumn: vscode.ViewColumn.Beside });
}

export function showInformationMessage(message: string): Thenable<string | undefined> {
  return vscode.window.showInformationMessage(message);
}

export function showWarningMessage(message: string): Thenable<string | undefined> {
  return vscode.window.showWarningMessage(message);
}

export function showErrorMessage(message: string, ...items: string[]): Thenable<string | undefined> {
  return vscode.window.showErrorMessage(message, ...items);
}

export function setStatusBarMessage(text: string, ms: number): vscode.Disposable {
  return vscode.window.setStatusBarMessage(text, ms);
}

export function workspaceFolders(): readonly vscode.WorkspaceFolder[] {
  return vscode.workspace.workspaceFolders ?? [];
}

/** The file of the active editor, if it is a file on disk. */
export function activeFileUri(): vscode.Uri | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  return uri?.scheme === "file" ? uri : undefined;
}

/** The active editor's selection (whole lines, 1-based), with its file; undefined when nothing
 * is selected or the editor is not a file. */
export function activeSelection(): { path: string; startLine: number; endLine: number; text: string } | undefined {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined || editor.document.uri.scheme !== "file" || editor.selection.isEmpty) return undefined;
  const { start, end } = editor.selection;
  // A selection ending at the start of a line does not take that line.
  const last = end.character === 0 && end.line > start.line ? end.line - 1 : end.line;
  return { path: editor.document.uri.fsPath, startLine: start.line + 1, endLine: last + 1, text: editor.document.getText(editor.selection) };
}

export function getWorkspaceFolder(uri: vscode.Uri): vscode.WorkspaceFolder | undefined {
  return vscode.workspace.getWorkspaceFolder(uri);
}

export function getExtension<T>(id: string): vscode.Extension<T> | undefined {
  return vscode.extensions.getExtension<T>(id);
}

export function uriFrom(components: { scheme: string; path: string; query?: string }): vscode.Uri {
  return vscode.Uri.from(components);
}

export function parseUri(value: string): vscode.Uri {
  return vscode.Uri.parse(value);
}

export function newEventEmitter<T>(): vscode.EventEmitter<T> {
  return new vscode.EventEmitter<T>();
}

export function onDidCloseTextDocument(listener: (document: vscode.TextDocument) => unknown): vscode.Disposable {
  return vscode.workspace.onDidCloseTextDocument(listener);
}

/** Links of documents of one scheme; `links` gives plain line/character ranges and file targets. */
export function registerDocumentLinkProvider(
  scheme: string,
  links: (uri: vscode.Uri) => readonly { line: number; startCharacter: number; endCharacter: number; path: string; targetLine: number }[],
): vscode.Disposable {
  return vscode.languages.registerDocumentLinkProvider(
    { scheme },
    {
      provideDocumentLinks(document) {
        return links(document.uri).map((link) => {
          const range = new vscode.Range(link.line, link.startCharacter, link.line, link.endCharacter);
          // VS Code opens a file link at the line of a `#L<1-based line>` fragment.
          const target = vscode.Uri.file(link.path).with({ fragment: `L${link.targetLine + 1}` });
          const documentLink = new vscode.DocumentLink(range, target);
          documentLink.tooltip = `${link.path}:${link.targetLine + 1}`;
          return documentLink;
        });
      },
    },
  );
}

export type CancellationToken = vscode.CancellationToken;
export type PlainOutputChannel = vscode.OutputChannel;

/** A plain (not log) output channel: text appended as it comes. */
export function createPlainOutputChannel(name: string): vscode.OutputChannel {
  return vscode.window.createOutputChannel(name);
}

export function showQuickPick(items: readonly string[], placeHolder: string): Thenable<string | undefined> {
  return vscode.window.showQuickPick([...items], { placeHolder });
}

export function showInputBox(options: {
  prompt: string;
  value: string;
  validateInput: (value: string) => string | undefined;
}): Thenable<string | undefined> {
  return vscode.window.showInputBox({ ...options, ignoreFocusOut: true });
}

/** Run a task under a cancellable progress notification; its Cancel button cancels `token`. */
export function withCancellableProgress<R>(title: string, task: (token: vscode.CancellationToken) => Promise<R>): Thenable<R> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title, cancellable: true },
    (_progress, token) => task(token),
  );
}

// --- chat view (src/chat/) ---

export type WebviewView = vscode.WebviewView;
export type CancellationTokenSource = vscode.CancellationTokenSource;

export function newCancellationTokenSource(): vscode.CancellationTokenSource {
  return new vscode.CancellationTokenSource();
}

/** A webview view whose page is dropped when hidden (the provider rebuilds it when shown). */
export function registerWebviewViewProvider(id: string, provider: vscode.WebviewViewProvider): vscode.Disposable {
  return vscode.window.registerWebviewViewProvider(id, provider, { webviewOptions: { retainContextWhenHidden: false } });
}

export function executeCommand<T = unknown>(id: string, ...args: unknown[]): Thenable<T> {
  return vscode.commands.executeCommand<T>(id, ...args);
}

/** Open a web or mail link outside the editor. */
export function openExternal(href: string): Thenable<boolean> {
  return vscode.env.openExternal(vscode.Uri.parse(href, true));
}

export function joinUri(base: vscode.Uri, ...segments: string[]): vscode.Uri {
  return vscode.Uri.joinPath(base, ...segments);
}

export interface PickItem {
  label: string;
  description?: string;
  detail?: string;
}

/** A quick pick of labelled items (description beside, detail below). */
export function showQuickPickItems<T extends PickItem>(items: readonly T[], placeHolder: string): Thenable<T | undefined> {
  return vscode.window.showQuickPick([...items], { placeHolder, matchOnDescription: true, matchOnDetail: true });
}

// --- tool output panels and the session tree (toolPanels.ts, sessionTree.ts) ---

/** Show a document beside the active editor without taking the focus (read-only for virtual ones). */
export async function showDocumentBeside(uri: vscode.Uri): Promise<void> {
  const document = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(document, { preview: false, preserveFocus: true, viewColumn: vscode.ViewColumn.Beside });
}

/** A modal warning with a detail paragraph; resolves to the button chosen (undefined: cancelled). */
export function showModalWarning(message: string, detail: string, ...items: string[]): Thenable<string | undefined> {
  return vscode.window.showWarningMessage(message, { modal: true, detail }, ...items);
}

/** A tree item as plain data; `treeItem` makes the editor's object of it. */
export interface TreeItemSpec {
  id: string;
  label: string;
  description?: string;
  /** Markdown, shown untrusted (no command links, no HTML). */
  tooltip?: string;
  /** A codicon name (ThemeIcon id), with an optional theme color id. */
  icon?: string;
  iconColor?: string;
  collapsible: "none" | "collapsed" | "expanded";
  contextValue?: string;
}

export function treeItem(spec: TreeItemSpec): vscode.TreeItem {
  const state = {
    none: vscode.TreeItemCollapsibleState.None,
    collapsed: vscode.TreeItemCollapsibleState.Collapsed,
    expanded: vscode.TreeItemCollapsibleState.Expanded,
  }[spec.collapsible];
  const item = new vscode.TreeItem(spec.label, state);
  item.id = spec.id;
  if (spec.description !== undefined) item.description = spec.description;
  if (spec.tooltip !== undefined) {
    const tooltip = new vscode.MarkdownString(spec.tooltip);
    tooltip.isTrusted = false;
    tooltip.supportHtml = false;
    item.tooltip = tooltip;
  }
  if (spec.icon !== undefined) {
    item.iconPath = new vscode.ThemeIcon(spec.icon, spec.iconColor !== undefined ? new vscode.ThemeColor(spec.iconColor) : undefined);
  }
  if (spec.contextValue !== undefined) item.contextValue = spec.contextValue;
  return item;
}

export type TreeView<T> = vscode.TreeView<T>;

export function createTreeView<T>(id: string, provider: vscode.TreeDataProvider<T>): vscode.TreeView<T> {
  return vscode.window.createTreeView(id, { treeDataProvider: provider, showCollapseAll: true });
}

/** A file's URI from its absolute path. */
export function fileUri(fsPath: string): vscode.Uri {
  return vscode.Uri.file(fsPath);
}

/** Open the diff editor: `left` (before) against `right` (after). */
export function openDiff(left: vscode.Uri, right: vscode.Uri, title: string): Thenable<unknown> {
  return vscode.commands.executeCommand("vscode.diff", left, right, title, { preview: false });
}

/** Close every diff editor whose right side is `right`. */
export async function closeDiffs(right: vscode.Uri): Promise<void> {
  const wanted = right.toString();
  const tabs = vscode.window.tabGroups.all.flatMap((group) => group.tabs);
  const shown = tabs.filter((tab) => tab.input instanceof vscode.TabInputTextDiff && tab.input.modified.toString() === wanted);
  if (shown.length > 0) await vscode.window.tabGroups.close(shown);
}

/** The file's open buffer: its text and whether it has unsaved changes, or undefined when it is not open. */
export function openBuffer(uri: vscode.Uri): { text: string; dirty: boolean } | undefined {
  const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  return document === undefined ? undefined : { text: document.getText(), dirty: document.isDirty };
}

/** The file's text on disk, or undefined when it cannot be read (it does not exist). */
export async function diskText(uri: vscode.Uri): Promise<string | undefined> {
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return undefined;
  }
}

/**
 * Make `text` the whole content of a file through one workspace edit (created when `create`),
 * so the editor's Undo takes it back and an open buffer changes with it; then save, so the buffer
 * and the disk agree. False when the editor refused the edit or the save.
 */
export async function replaceFileText(uri: vscode.Uri, text: string, create: boolean): Promise<boolean> {
  const edit = new vscode.WorkspaceEdit();
  if (create) {
    edit.createFile(uri, { ignoreIfExists: true });
    edit.insert(uri, new vscode.Position(0, 0), text);
  } else {
    const document = await vscode.workspace.openTextDocument(uri);
    const last = document.lineCount - 1;
    edit.replace(uri, new vscode.Range(0, 0, last, document.lineAt(last).text.length), text);
  }
  if (!(await vscode.workspace.applyEdit(edit))) return false;
  return (await vscode.workspace.openTextDocument(uri)).save();
}
