/**
 * What the prompt box puts into a prompt, shared by the host and the page (no Node or editor
 * API here): the `@` / `/` token under the cursor and what picking a completion makes of it,
 * the attachments a prompt carries (files, editor selections, pasted images) and how they go to
 * `pi/chat` (`files`, `selections`, `images`: docs/protocol.md), and the reading back of a sent
 * prompt, whose text starts with the `<file name="…">` blocks the server put in front of it.
 */

export interface FileAttachment {
  kind: "file";
  /** As picked: relative to the workspace, or absolute (the active file). */
  path: string;
}

export interface SelectionAttachment {
  kind: "selection";
  path: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  text: string;
}

export interface ImageAttachment {
  kind: "image";
  mimeType: string;
  /** base64 */
  data: string;
  name: string;
}

export type Attachment = FileAttachment | SelectionAttachment | ImageAttachment;

/** Image types a model takes inline (what `pi/chat` accepts for a pasted image). */
export const IMAGE_TYPES: readonly string[] = ["image/png", "image/jpeg", "image/gif", "image/webp"];
/** A pasted image larger than this is refused in the page (the server fits smaller ones). */
export const MAX_IMAGE_BYTES = 20 * 1024 * 1024;

export interface CompletionItem {
  /** What the list shows (a path, `/name`). */
  label: string;
  /** What replaces the token. */
  insert: string;
  kind: "file" | "folder" | "template" | "skill";
  detail?: string;
}

export type Trigger = "@" | "/";

export interface TokenAtCursor {
  trigger: Trigger;
  /** Where the token (its `@` or `/`) starts. */
  start: number;
  /** The token's text after the trigger, up to the cursor. */
  query: string;
}

const DELIMITERS = new Set([" ", "\t", "\n", "\r"]);

/**
 * The `@` or `/` token the cursor is in, if any: `@` starts a word anywhere (`@"…` for a path
 * with spaces); `/` only at the very start of the prompt (a command, as Pi's editor takes one).
 */
export function tokenAt(text: string, cursor: number): TokenAtCursor | undefined {
  const before = text.slice(0, cursor);
  const quoted = before.lastIndexOf('@"');
  if (quoted >= 0 && (quoted === 0 || DELIMITERS.has(before[quoted - 1]!)) && !before.slice(quoted + 2).includes('"')) {
    const query = before.slice(quoted + 2);
    if (!query.includes("\n")) return { trigger: "@", start: quoted, query };
  }
  let start = before.length;
  while (start > 0 && !DELIMITERS.has(before[start - 1]!)) start -= 1;
  const token = before.slice(start);
  if (token.startsWith("@")) return { trigger: "@", start, query: token.slice(1) };
  if (token.startsWith("/") && start === 0) return { trigger: "/", start, query: token.slice(1) };
  return undefined;
}

/** The text of an `@` mention of `path` (quoted when it has spaces). */
export function mentionText(path: string): string {
  return /\s/.test(path) ? `@"${path}"` : `@${path}`;
}

/**
 * The prompt after picking `item` for `token`: the token replaced, a space after a file or a
 * command (none after a folder, so its completion goes on), and where the cursor goes.
 */
export function applyCompletion(text: string, cursor: number, token: TokenAtCursor, item: CompletionItem): { text: string; cursor: number } {
  let end = cursor;
  while (end < text.length && !DELIMITERS.has(text[end]!)) end += 1;
  let value = token.trigger === "@" ? mentionText(item.insert) : item.insert;
  const folder = item.kind === "folder";
  if (folder && value.endsWith('"')) value = value.slice(0, -1);
  const space = folder ? "" : " ";
  const rest = text.slice(end);
  // An existing space after the token is used rather than doubled.
  const next = text.slice(0, token.start) + value + (rest.startsWith(" ") ? "" : space) + rest;
  return { text: next, cursor: token.start + value.length + space.length };
}

/** The files picked from `@` completions that the prompt still mentions, each once. */
export function mentionedFiles(text: string, picked: Iterable<string>): string[] {
  const out: string[] = [];
  for (const path of picked) {
    const mention = mentionText(path);
    let at = text.indexOf(mention);
    while (at >= 0) {
      const after = text[at + mention.length];
      const starts = at === 0 || DELIMITERS.has(text[at - 1]!);
      if (starts && (after === undefined || DELIMITERS.has(after))) break;
      at = text.indexOf(mention, at + 1);
    }
    if (at >= 0 && !out.includes(path)) out.push(path);
  }
  return out;
}

/** The short name a chip shows. */
export function attachmentLabel(attachment: Attachment): string {
  switch (attachment.kind) {
    case "file":
      return baseName(attachment.path);
    case "selection": {
      const lines = attachment.startLine === attachment.endLine ? `${attachment.startLine}` : `${attachment.startLine}-${attachment.endLine}`;
      return `${baseName(attachment.path)}:${lines}`;
    }
    case "image":
      return attachment.name || "image";
  }
}

function baseName(path: string): string {
  const trimmed = path.replace(/[/\\]+$/, "");
  const slash = Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\"));
  return slash >= 0 ? trimmed.slice(slash + 1) : trimmed;
}

/** The `pi/chat` params of a prompt's attachments (none: no params). */
export function chatAttachmentParams(attachments: readonly Attachment[]): {
  files?: string[];
  selections?: { path: string; startLine: number; endLine: number; text: string }[];
  images?: { mimeType: string; data: string }[];
} {
  const files = attachments.filter((a): a is FileAttachment => a.kind === "file").map((a) => a.path);
  const selections = attachments
    .filter((a): a is SelectionAttachment => a.kind === "selection")
    .map(({ path, startLine, endLine, text }) => ({ path, startLine, endLine, text }));
  const images = attachments.filter((a): a is ImageAttachment => a.kind === "image").map(({ mimeType, data }) => ({ mimeType, data }));
  return {
    ...(files.length ? { files: [...new Set(files)] } : {}),
    ...(selections.length ? { selections } : {}),
    ...(images.length ? { images } : {}),
  };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
const str = (value: unknown): value is string => typeof value === "string";
const line = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 1;

/** An attachment as posted by the page or the host, or undefined for anything else. */
export function parseAttachment(value: unknown): Attachment | undefined {
  if (!isObject(value)) return undefined;
  switch (value.kind) {
    case "file":
      return str(value.path) && value.path !== "" ? { kind: "file", path: value.path } : undefined;
    case "selection":
      return str(value.path) && line(value.startLine) && line(value.endLine) && value.startLine <= value.endLine && str(value.text)
        ? { kind: "selection", path: value.path, startLine: value.startLine, endLine: value.endLine, text: value.text }
        : undefined;
    case "image":
      return str(value.mimeType) && IMAGE_TYPES.includes(value.mimeType) && str(value.data) && /^[A-Za-z0-9+/]+={0,2}$/.test(value.data) && str(value.name)
        ? { kind: "image", mimeType: value.mimeType, data: value.data, name: value.name }
        : undefined;
    default:
      return undefined;
  }
}

export function isCompletionItem(value: unknown): value is CompletionItem {
  return (
    isObject(value) &&
    str(value.label) &&
    str(value.insert) &&
    (value.kind === "file" || value.kind === "folder" || value.kind === "template" || value.kind === "skill") &&
    (value.detail === undefined || str(value.detail))
  );
}

const FILE_OPEN = '<file name="';
const FILE_CLOSE = "</file>\n";

/**
 * A sent prompt read back: the `<file name="…">` blocks the server put in front of the user's
 * text become labels (`a.py`, `b.py:3-4`); the rest is the text the user wrote. Linear: each
 * block is found with indexOf from where the last one ended.
 */
export function splitAttached(text: string): { labels: string[]; text: string } {
  const labels: string[] = [];
  let at = 0;
  while (text.startsWith(FILE_OPEN, at)) {
    const nameEnd = text.indexOf('"', at + FILE_OPEN.length);
    if (nameEnd < 0) break;
    const close = text.indexOf(FILE_CLOSE, nameEnd);
    if (close < 0) break;
    const name = text.slice(at + FILE_OPEN.length, nameEnd);
    const lines = /^ lines="(\d+(?:-\d+)?)">/.exec(text.slice(nameEnd + 1, nameEnd + 40));
    labels.push(lines ? `${baseName(name)}:${lines[1]}` : baseName(name));
    at = close + FILE_CLOSE.length;
  }
  return { labels, text: text.slice(at) };
}
