/**
 * The prompt box's mentions and attachments (part of the chat page, webview/main.ts):
 *
 * - `@` completes workspace files and folders, `/` at the start prompt templates and `/skill:`
 *   names: after a pause in typing the page asks the host (`complete`), shows the answer to its
 *   latest question in a list (Up/Down, Enter or Tab to pick, Escape to close, or the mouse);
 * - a picked file the prompt still mentions when it is sent goes with it as a file;
 * - chips above the box: the active file (the paperclip button), selections added from the
 *   editor, images pasted or dropped (PNG, JPEG, GIF, WEBP), each with a remove button.
 */
import {
  applyCompletion,
  attachmentLabel,
  IMAGE_TYPES,
  MAX_IMAGE_BYTES,
  mentionedFiles,
  tokenAt,
  type Attachment,
  type CompletionItem,
  type TokenAtCursor,
} from "../src/chat/attachments";
import type { WebviewMessage } from "../src/chat/protocol";

/** Quiet time (ms) after a keystroke before completions are asked for. */
export const COMPLETION_DELAY_MS = 60;

type H = <K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, string | boolean | undefined>, ...children: (Node | string)[]) => HTMLElementTagNameMap[K];

export interface Composer {
  /** Above the prompt box: the attachment chips and the completion list. */
  readonly element: HTMLElement;
  /** The host's answer to a `complete`. */
  completions(requestId: number, items: CompletionItem[]): void;
  /** An attachment from the host (a selection, the active file, one given back). */
  attach(attachment: Attachment): void;
  /** Keys the list takes while it is open (true: handled, the box must not act on it). */
  keydown(event: KeyboardEvent): boolean;
  /** What goes with the prompt now being sent (the box is then empty of attachments). */
  take(text: string): Attachment[];
  /** A notice line under the chips (an image that cannot be attached), cleared on the next action. */
  readonly problem: HTMLElement;
}

export function createComposer(h: H, prompt: HTMLTextAreaElement, post: (message: WebviewMessage) => void, onChange: () => void): Composer {
  const chips = h("div", { class: "attachments", id: "attachments", hidden: true });
  const list = h("div", { class: "completions", id: "completions", role: "listbox", "aria-label": "Suggestions", hidden: true });
  const problem = h("div", { class: "attach-problem", role: "status", hidden: true });
  const element = h("div", { class: "prompt-extras" }, list, chips, problem);
  let attached: Attachment[] = [];
  /** Files picked from `@` completions (sent when the prompt still mentions them). */
  const picked = new Set<string>();
  let items: CompletionItem[] = [];
  let active = 0;
  let token: TokenAtCursor | undefined;
  let asked = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function say(text: string | undefined): void {
    problem.hidden = text === undefined;
    problem.textContent = text ?? "";
  }

  function drawChips(): void {
    chips.replaceChildren(
      ...attached.map((attachment, index) => {
        const chip = h("span", { class: `chip chip-${attachment.kind}`, title: chipTitle(attachment) });
        if (attachment.kind === "image") {
          const thumb = h("img", { class: "thumb", alt: "" });
          thumb.src = `data:${attachment.mimeType};base64,${attachment.data}`;
          chip.append(thumb);
        }
        const remove = h("button", { class: "chip-remove", title: "Remove", "aria-label": `Remove ${attachmentLabel(attachment)}`, "data-index": String(index) }, "×");
        chip.append(h("span", { class: "chip-label" }, attachmentLabel(attachment)), remove);
        return chip;
      }),
    );
    chips.hidden = attached.length === 0;
  }

  function add(attachment: Attachment): void {
    const same = (a: Attachment) => JSON.stringify(a) === JSON.stringify(attachment);
    if (!attached.some(same)) attached.push(attachment);
    drawChips();
  }

  chips.addEventListener("click", (event) => {
    const remove = event.target instanceof Element ? event.target.closest<HTMLElement>(".chip-remove") : null;
    if (remove === null) return;
    attached.splice(Number(remove.dataset.index), 1);
    drawChips();
    prompt.focus();
  });

  function close(): void {
    list.hidden = true;
    items = [];
    token = undefined;
    prompt.removeAttribute("aria-activedescendant");
  }

  function drawList(): void {
    list.replaceChildren(
      ...items.map((item, index) => {
        const row = h(
          "div",
          { class: `completion kind-${item.kind}`, role: "option", id: `completion-${index}`, "aria-selected": String(index === active), "data-index": String(index) },
          h("span", { class: "completion-label" }, item.label),
        );
        if (item.detail) row.append(h("span", { class: "completion-detail" }, item.detail));
        return row;
      }),
    );
    list.hidden = items.length === 0;
    if (items.length) {
      prompt.setAttribute("aria-activedescendant", `completion-${active}`);
      list.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: "nearest" });
    }
  }

  function pick(index: number): void {
    const item = items[index];
    if (item === undefined || token === undefined) return;
    const next = applyCompletion(prompt.value, prompt.selectionStart, token, item);
    if (item.kind === "file") picked.add(item.insert);
    prompt.value = next.text;
    prompt.setSelectionRange(next.cursor, next.cursor);
    close();
    onChange();
    // A folder goes on completing inside it.
    if (item.kind === "folder") ask();
  }

  list.addEventListener("mousedown", (event) => {
    // The prompt keeps the focus (and its cursor).
    event.preventDefault();
    const row = event.target instanceof Element ? event.target.closest<HTMLElement>(".completion") : null;
    if (row !== null) pick(Number(row.dataset.index));
  });

  function ask(): void {
    if (timer !== undefined) clearTimeout(timer);
    const found = tokenAt(prompt.value, prompt.selectionStart);
    if (found === undefined || prompt.selectionStart !== prompt.selectionEnd) {
      close();
      return;
    }
    timer = setTimeout(() => {
      timer = undefined;
      asked += 1;
      token = found;
      post({ type: "complete", requestId: asked, trigger: found.trigger, query: found.query });
    }, COMPLETION_DELAY_MS);
  }

  prompt.addEventListener("input", () => {
    say(undefined);
    ask();
  });
  prompt.addEventListener("blur", () => setTimeout(close, 100));

  async function addFiles(files: Iterable<File>): Promise<boolean> {
    let any = false;
    for (const file of files) {
      if (!file.type.startsWith("image/")) continue;
      any = true;
      if (!IMAGE_TYPES.includes(file.type)) {
        say(`${file.name || "This image"} is ${file.type}: only PNG, JPEG, GIF and WEBP images can be attached.`);
        continue;
      }
      if (file.size > MAX_IMAGE_BYTES) {
        say(`${file.name || "This image"} is larger than 20 MB and was not attached.`);
        continue;
      }
      add({ kind: "image", mimeType: file.type, data: await base64(file), name: file.name || "pasted image" });
    }
    return any;
  }

  prompt.addEventListener("paste", (event) => {
    const files = [...(event.clipboardData?.files ?? [])];
    if (files.some((file) => file.type.startsWith("image/"))) {
      event.preventDefault();
      void addFiles(files);
    }
  });
  const box = prompt.parentElement ?? prompt;
  box.addEventListener("dragover", (event) => {
    if (event.dataTransfer?.types.includes("Files") || event.dataTransfer?.types.includes("text/uri-list")) {
      event.preventDefault();
      box.classList.add("dropping");
    }
  });
  box.addEventListener("dragleave", () => box.classList.remove("dropping"));
  box.addEventListener("drop", (event) => {
    box.classList.remove("dropping");
    const transfer = event.dataTransfer;
    if (!transfer) return;
    event.preventDefault();
    const files = [...transfer.files];
    if (files.length) {
      void addFiles(files).then((images) => {
        if (!images) say("Only images can be dropped from outside the editor; mention a workspace file with @.");
      });
      return;
    }
    // Files dragged from VS Code's explorer or tabs come as file URIs.
    for (const line of transfer.getData("text/uri-list").split(/\r?\n/)) {
      if (line.startsWith("file://")) add({ kind: "file", path: decodeURIComponent(new URL(line).pathname) });
    }
  });

  return {
    element,
    problem,
    completions(requestId, answered) {
      if (requestId !== asked || token === undefined) return;
      // The prompt changed since the question: only still-current tokens get a list.
      const now = tokenAt(prompt.value, prompt.selectionStart);
      if (now === undefined || now.start !== token.start || now.trigger !== token.trigger) return close();
      token = now;
      items = answered;
      active = 0;
      drawList();
    },
    attach(attachment) {
      add(attachment);
    },
    keydown(event) {
      if (list.hidden || items.length === 0) return false;
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        active = (active + (event.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
        drawList();
      } else if ((event.key === "Enter" && !event.shiftKey) || event.key === "Tab") {
        pick(active);
      } else if (event.key === "Escape") {
        close();
      } else {
        return false;
      }
      event.preventDefault();
      return true;
    },
    take(text) {
      const chosen = new Set(attached.map((a) => (a.kind === "file" ? a.path : "")));
      const files = mentionedFiles(text, picked).filter((path) => !chosen.has(path));
      const out: Attachment[] = [...attached, ...files.map((path): Attachment => ({ kind: "file", path }))];
      attached = [];
      picked.clear();
      close();
      say(undefined);
      drawChips();
      return out;
    },
  };
}

function chipTitle(attachment: Attachment): string {
  switch (attachment.kind) {
    case "file":
      return attachment.path;
    case "selection":
      return `${attachment.path}, lines ${attachment.startLine}–${attachment.endLine}`;
    case "image":
      return `${attachment.name} (${attachment.mimeType})`;
  }
}

function base64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(",") + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error("the image could not be read"));
    reader.readAsDataURL(file);
  });
}
