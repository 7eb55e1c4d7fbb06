/**
 * The chat view's page (bundled to dist/webview.js for the browser). It draws what the host
 * sends (src/chat/protocol.ts) and posts what the user does. Streamed text re-renders only the
 * message it belongs to, once per animation frame; tool output is appended as text.
 * No inline handlers and no HTML from the host except through renderMarkdown (sanitised).
 */
import {
  formatTokens,
  parseHostMessage,
  THINKING_LEVELS,
  type ApprovalItem,
  type AssistantItem,
  type HostMessage,
  type NoticeItem,
  type ToolItem,
  type TranscriptItem,
  type UsageView,
  type ViewState,
  type WebviewMessage,
} from "../src/chat/protocol";
import { appendClipped } from "../src/chat/transcript";
import { createComposer } from "./composer";
import { renderMarkdown } from "./markdown";

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();

function post(message: WebviewMessage): void {
  vscode.postMessage(message);
}

// --- DOM helpers ----------------------------------------------------------------------------------

type Attrs = Record<string, string | boolean | undefined>;

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? "" : value);
  }
  element.append(...children);
  return element;
}

const SVG = "http://www.w3.org/2000/svg";

/** A 16×16 line icon from path data (codicons are not available inside the page). */
function icon(...paths: string[]): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("width", "16");
  svg.setAttribute("height", "16");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("class", "icon");
  for (const d of paths) {
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  return svg;
}

const ICONS = {
  plus: () => icon("M8 3v10M3 8h10"),
  history: () => icon("M2.5 8a5.5 5.5 0 1 0 1.6-3.9", "M2.5 2.5v3h3", "M8 5v3.2l2.2 1.6"),
  send: () => icon("M2.5 13.5 14 8 2.5 2.5l1.8 5.5z", "M4.3 8H9"),
  stop: () => icon("M4.5 4.5h7v7h-7z"),
  open: () => icon("M9.5 2.5h4v4", "M13.5 2.5 8 8", "M11.5 9.5v4h-9v-9h4"),
  attach: () => icon("M10.5 4.5 5.8 9.2a1.4 1.4 0 0 0 2 2l5-5a2.8 2.8 0 0 0-4-4l-5.2 5.2a4.2 4.2 0 0 0 6 6l4.4-4.4"),
};

// --- page shell ---------------------------------------------------------------------------------

const title = h("span", { class: "session-title", id: "session-title" }, "New chat");
const sessionsButton = h("button", { id: "sessions", class: "icon-button", title: "Open a session", "aria-label": "Open a session" }, ICONS.history());
const newButton = h("button", { id: "new-session", class: "icon-button", title: "New chat", "aria-label": "New chat" }, ICONS.plus());
const transcript = h("main", { id: "transcript", role: "log", "aria-live": "polite" });
const empty = h(
  "div",
  { class: "empty" },
  h("p", { class: "empty-title" }, "Ask Pi about this workspace"),
  h("p", {}, "Pi reads, runs and edits files here with the tools you see in each answer. Enter sends, Shift+Enter starts a new line."),
);
const meterBar = h("div", { class: "bar" });
const meterSummary = h("span", { class: "summary" });
const meter = h("div", { id: "context-meter", hidden: true }, meterBar, meterSummary);
const prompt = h("textarea", {
  id: "prompt",
  rows: "1",
  placeholder: "Ask Pi… (Enter to send, Shift+Enter for a new line)",
  "aria-label": "Prompt",
});
const modelSelect = h("select", { id: "model", title: "Model", "aria-label": "Model" });
const thinkingSelect = h(
  "select",
  { id: "thinking", title: "Thinking", "aria-label": "Thinking" },
  h("option", { value: "", disabled: true }, "default"),
  ...THINKING_LEVELS.map((level) => h("option", { value: level }, level)),
);
const stopButton = h("button", { id: "stop", class: "icon-button stop", title: "Stop (Escape)", "aria-label": "Stop", hidden: true }, ICONS.stop());
const attachButton = h("button", { id: "attach-file", class: "icon-button", title: "Attach the active file", "aria-label": "Attach the active file" }, ICONS.attach());
const sendButton = h("button", { id: "send", class: "icon-button send", title: "Send (Enter)", "aria-label": "Send" }, ICONS.send());

const app = document.getElementById("app") ?? document.body;
app.append(
  h("header", { class: "toolbar" }, title, sessionsButton, newButton),
  transcript,
  h(
    "footer",
    { class: "composer" },
    meter,
    h("div", { class: "input-box" }, prompt, h("div", { class: "input-actions" }, modelSelect, thinkingSelect, h("span", { class: "spacer" }), attachButton, stopButton, sendButton)),
  ),
);
transcript.append(empty);
const composer = createComposer(h, prompt, post, () => {
  fitPrompt();
  saveDraft();
});
prompt.before(composer.element);

// --- transcript ---------------------------------------------------------------------------------

interface Shown {
  item: TranscriptItem;
  element: HTMLElement;
}

const shown = new Map<string, Shown>();
/** Streamed messages whose text changed since the last frame. */
const dirty = new Set<string>();
let frame: number | undefined;
/** The view follows new content while the user is at (or near) the bottom. */
let follow = true;

transcript.addEventListener("scroll", () => {
  follow = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 48;
});

function scrollToEnd(): void {
  if (follow) transcript.scrollTop = transcript.scrollHeight;
}

/** Fill `element` with sanitised Markdown and give each code block a copy button. */
function setMarkdown(element: HTMLElement, text: string): void {
  element.innerHTML = renderMarkdown(text);
  for (const pre of element.querySelectorAll("pre")) {
    pre.append(h("button", { class: "copy", title: "Copy", "aria-label": "Copy code" }, "Copy"));
  }
}

function renderUser(item: { text: string; attachments?: string[] }): HTMLElement[] {
  const content = h("div", { class: "content plain" });
  content.textContent = item.text;
  // Checkpoints: the files back to how they were before this message was answered.
  const restore = h("button", { class: "restore-files", title: "Restore files to this point", "aria-label": "Restore files to this point" }, "Restore files");
  if (!item.attachments?.length) return [content, restore];
  const labels = item.attachments.map((label) => h("span", { class: "chip", title: label }, h("span", { class: "chip-label" }, label)));
  return [h("div", { class: "attachments sent" }, ...labels), content, restore];
}

function renderAssistant(item: AssistantItem, element: HTMLElement): void {
  const opened = new Set<number>();
  element.querySelectorAll<HTMLDetailsElement>("details.thinking").forEach((details) => {
    if (details.open) opened.add(Number(details.dataset.block));
  });
  element.replaceChildren();
  item.blocks.forEach((block, index) => element.append(renderBlock(block, index, opened.has(index))));
  element.classList.toggle("streaming", item.streaming);
  // Screen readers wait for the finished message instead of reading every re-render.
  element.setAttribute("aria-busy", String(item.streaming));
  markThinking(item, element);
  if (item.streaming && item.blocks.length === 0) element.append(h("div", { class: "typing", "aria-label": "Pi is answering" }, h("span"), h("span"), h("span")));
}

function renderBlock(block: AssistantItem["blocks"][number], index: number, open: boolean): HTMLElement {
  if (block.type === "thinking") {
    const body = h("div", { class: "thinking-body" });
    setMarkdown(body, block.text);
    return h("details", { class: "thinking", "data-block": String(index), open }, h("summary", {}, "Thinking"), body);
  }
  const content = h("div", { class: "content", "data-block": String(index) });
  setMarkdown(content, block.text);
  return content;
}

/** "Thinking…" on the thinking block still being streamed. */
function markThinking(item: AssistantItem, element: HTMLElement): void {
  const last = item.blocks.length - 1;
  element.querySelectorAll<HTMLDetailsElement>("details.thinking").forEach((details) => {
    const live = item.streaming && Number(details.dataset.block) === last;
    const summary = details.querySelector("summary");
    if (summary) summary.textContent = live ? "Thinking…" : "Thinking";
    details.classList.toggle("live", live);
  });
}

/** Re-render only the changed blocks of a streamed message. */
function renderDirty(item: AssistantItem, element: HTMLElement): void {
  element.querySelector(".typing")?.remove();
  item.blocks.forEach((block, index) => {
    const existing = element.querySelector<HTMLElement>(`[data-block="${index}"]`);
    if (existing === null) {
      element.append(renderBlock(block, index, false));
      return;
    }
    const target = block.type === "thinking" ? existing.querySelector<HTMLElement>(".thinking-body") : existing;
    if (target !== null && target.dataset.length !== String(block.text.length)) {
      setMarkdown(target, block.text);
      target.dataset.length = String(block.text.length);
    }
  });
  markThinking(item, element);
}

const STATUS_TEXT: Record<ToolItem["status"], string> = {
  pending: "waiting",
  running: "running",
  done: "done",
  error: "failed",
  aborted: "stopped",
};

function renderTool(item: ToolItem, element: HTMLElement, previous: ToolItem | undefined): void {
  const wasOpen = element.querySelector<HTMLDetailsElement>("details.output")?.open;
  const live = item.status === "running" || item.status === "pending";
  const diff = !live && (item.name === "edit" || item.name === "write") && /^[+-]/m.test(item.output);
  // Open while running; a finished card shows errors and diffs, and folds other output away
  // (what the user opened or closed stays so).
  const settled = previous !== undefined && previous.status !== "running" && previous.status !== "pending";
  const open = live || (settled ? (wasOpen ?? false) : item.status === "error" || diff);
  element.className = `tool-card status-${item.status}`;
  element.dataset.toolCallId = item.id;
  element.dataset.toolName = item.name;
  const header = h(
    "div",
    { class: "header" },
    h("span", { class: "status", title: STATUS_TEXT[item.status], "aria-label": STATUS_TEXT[item.status] }),
    h("span", { class: "title" }, h("span", { class: "name" }, item.name), " ", h("code", { class: "summary", title: item.summary }, item.summary)),
  );
  if (item.truncated) header.append(h("span", { class: "truncated-mark", title: "The model was shown a truncated result" }, "truncated"));
  // Only a card with a tool run behind it has an output panel: not a `!` command of the user's
  // (a bashExecution entry) nor a call still waiting to start.
  if (!item.noRun && item.status !== "pending") {
    header.append(h("button", { class: "open-output icon-button", title: "Open the full output", "aria-label": "Open the full output" }, ICONS.open()));
  }
  // A change the agent made: review it in the diff editor, or put it back.
  if (!item.noRun && item.status === "done" && (item.name === "edit" || item.name === "write")) {
    header.append(
      h("button", { class: "review-change secondary", title: "Review the change in the diff editor" }, "Review diff"),
      h("button", { class: "revert-change secondary", title: "Put the file back as it was before this change" }, "Revert"),
    );
  }
  const output = h("pre", { class: "tool-output" });
  if (diff) {
    appendDiff(output, item.output);
  } else {
    output.textContent = item.output;
  }
  const lines = item.output === "" ? 0 : item.output.split("\n").length - (item.output.endsWith("\n") ? 1 : 0);
  const label = item.output === "" ? (live ? "No output yet" : "No output") : `Output · ${lines} line${lines === 1 ? "" : "s"}${item.clipped ? " (last part)" : ""}`;
  element.replaceChildren(header, h("details", { class: "output", open }, h("summary", {}, label), output));
  if (live) output.scrollTop = output.scrollHeight;
}

/** A diff's lines into `pre`: added and removed lines coloured (unified headers are not changes). */
function appendDiff(pre: HTMLElement, diff: string): void {
  for (const line of diff.split(/(?<=\n)/)) {
    const header = line.startsWith("+++ ") || line.startsWith("--- ") || line.startsWith("@@");
    const kind = header ? "meta" : line.startsWith("+") ? "added" : line.startsWith("-") ? "removed" : undefined;
    pre.append(kind ? h("span", { class: kind }, line) : line);
  }
}

function approvalQuestion(item: ApprovalItem): string {
  if (item.tool === "bash") return "Run this command?";
  if (item.tool === "write") return item.newFile ? `Create ${item.subject}?` : `Replace ${item.subject}?`;
  return `Edit ${item.subject}?`;
}

function approvalOutcome(item: ApprovalItem): string {
  switch (item.status) {
    case "allowed":
      return "Allowed once";
    case "applied":
      return "Accepted: applied in the editor and saved";
    case "allowedSession":
      return item.tool === "bash" ? "Allowed: commands run unasked for the rest of this session" : "Allowed: file changes are made unasked for the rest of this session";
    case "denied":
      return item.reason ? `${item.reviewable ? "Rejected" : "Denied"}: ${item.reason}` : item.reviewable ? "Rejected" : "Denied";
    case "withdrawn":
      return "Not answered: the answer was stopped";
    case "open":
      return "";
  }
}

/** A `pi/approve` question: the command (with where it runs) or the diff, and the answers. */
function renderApproval(item: ApprovalItem, element: HTMLElement): void {
  element.className = `approval-card status-${item.status}`;
  element.dataset.toolCallId = item.toolCallId;
  element.setAttribute("role", "group");
  element.setAttribute("aria-label", approvalQuestion(item));
  const header = h("div", { class: "header" }, h("span", { class: "question" }, approvalQuestion(item)));
  const body: HTMLElement[] = [];
  if (item.tool === "bash") {
    const command = h("pre", { class: "approval-command" });
    command.textContent = item.subject;
    body.push(command, h("div", { class: "where", title: item.where }, `in ${item.where}`));
  } else {
    body.push(h("div", { class: "where", title: item.where }, item.where));
    const diff = h("pre", { class: "approval-diff" });
    appendDiff(diff, item.diff ?? "");
    body.push(diff);
    if (item.diffTruncated) body.push(h("div", { class: "where" }, "The diff is too long to show in full."));
  }
  if (item.status !== "open") {
    const outcome = h("div", { class: "outcome", role: "status" });
    outcome.textContent = approvalOutcome(item);
    element.replaceChildren(header, ...body, outcome);
    return;
  }
  const sessionLabel = item.tool === "bash" ? "Allow bash for this session" : "Allow file changes for this session";
  const reason = h("input", {
    class: "reason",
    type: "text",
    placeholder: "Reason, if you deny (the model reads it)",
    "aria-label": "Reason for denying",
  });
  // A reviewable change is accepted by the editor itself (and shown in the diff editor).
  const actions = item.reviewable
    ? h(
        "div",
        { class: "actions" },
        h("button", { class: "allow", "data-decision": "applied" }, "Accept"),
        h("button", { class: "review-diff secondary" }, "Show diff"),
        h("button", { class: "allow-session secondary", "data-decision": "allowSession" }, sessionLabel),
        h("button", { class: "deny secondary", "data-decision": "deny" }, "Reject"),
      )
    : h(
        "div",
        { class: "actions" },
        h("button", { class: "allow", "data-decision": "allow" }, "Allow once"),
        h("button", { class: "allow-session secondary", "data-decision": "allowSession" }, sessionLabel),
        h("button", { class: "deny secondary", "data-decision": "deny" }, "Deny"),
      );
  element.replaceChildren(header, ...body, reason, actions);
}

/** Post the answer of the card `card` (its buttons are disabled until the host updates it). */
function answerApproval(card: HTMLElement, decision: string): void {
  const id = card.dataset.id;
  if (id === undefined || (decision !== "allow" && decision !== "allowSession" && decision !== "applied" && decision !== "deny")) return;
  const reason = card.querySelector<HTMLInputElement>("input.reason")?.value.trim() ?? "";
  card.querySelectorAll("button").forEach((button) => (button.disabled = true));
  post({ type: "approve", id, decision, ...(decision === "deny" && reason !== "" ? { reason } : {}) });
}

function renderNotice(item: NoticeItem, element: HTMLElement): void {
  element.className = `notice${item.level === "error" ? " error" : ""}`;
  element.setAttribute("role", item.level === "error" ? "alert" : "status");
  const text = h("span", { class: "text" });
  text.textContent = item.text;
  element.replaceChildren(text);
  if (item.detail !== undefined && item.detail !== "") {
    const body = h("div", { class: "detail-body" });
    setMarkdown(body, item.detail);
    element.append(h("details", { class: "detail" }, h("summary", {}, "Summary"), body));
  }
}

function elementFor(item: TranscriptItem): HTMLElement {
  switch (item.kind) {
    case "user":
      return h("div", { class: "message user" });
    case "assistant":
      return h("div", { class: "message assistant" });
    case "tool":
      return h("div", { class: "tool-card" });
    case "notice":
      return h("div", { class: "notice" });
    case "approval":
      return h("div", { class: "approval-card" });
  }
}

function render(item: TranscriptItem, element: HTMLElement, previous: TranscriptItem | undefined): void {
  switch (item.kind) {
    case "user":
      element.replaceChildren(...renderUser(item));
      break;
    case "assistant":
      renderAssistant(item, element);
      break;
    case "tool":
      renderTool(item, element, previous?.kind === "tool" ? previous : undefined);
      break;
    case "notice":
      renderNotice(item, element);
      break;
    case "approval":
      renderApproval(item, element);
      break;
  }
}

function upsert(item: TranscriptItem): void {
  const existing = shown.get(item.id);
  if (existing && existing.item.kind !== item.kind) {
    existing.element.remove();
    shown.delete(item.id);
  }
  const current = shown.get(item.id);
  const element = current?.element ?? elementFor(item);
  element.dataset.id = item.id;
  render(item, element, current?.item);
  dirty.delete(item.id);
  shown.set(item.id, { item, element });
  if (!current) transcript.append(element);
  empty.hidden = true;
}

function reset(items: TranscriptItem[]): void {
  shown.clear();
  dirty.clear();
  transcript.replaceChildren(empty);
  empty.hidden = items.length > 0;
  for (const item of items) upsert(item);
  follow = true;
  scrollToEnd();
}

function flush(): void {
  frame = undefined;
  for (const id of dirty) {
    const entry = shown.get(id);
    if (entry?.item.kind === "assistant") renderDirty(entry.item, entry.element);
  }
  dirty.clear();
  scrollToEnd();
}

function textDelta(message: Extract<HostMessage, { type: "textDelta" }>): void {
  let entry = shown.get(message.id);
  if (entry === undefined) {
    upsert({ kind: "assistant", id: message.id, blocks: [], streaming: true });
    entry = shown.get(message.id)!;
  }
  if (entry.item.kind !== "assistant") return;
  const blocks = entry.item.blocks;
  while (blocks.length <= message.block) blocks.push({ type: message.blockType, text: "" });
  blocks[message.block]!.text += message.text;
  dirty.add(message.id);
  frame ??= requestAnimationFrame(flush);
}

function toolOutput(message: Extract<HostMessage, { type: "toolOutput" }>): void {
  const entry = shown.get(message.id);
  if (entry?.item.kind !== "tool") return;
  const item = entry.item;
  const next = appendClipped(item.output, message.text);
  const updated: ToolItem = { ...item, output: next.output, clipped: item.clipped || next.clipped };
  const pre = entry.element.querySelector("pre.tool-output");
  if (next.clipped || pre === null || item.output === "") {
    upsert(updated);
  } else {
    const atEnd = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 24;
    pre.append(document.createTextNode(message.text));
    entry.item = updated;
    const lines = updated.output.split("\n").length - (updated.output.endsWith("\n") ? 1 : 0);
    const summary = entry.element.querySelector("details.output > summary");
    if (summary) summary.textContent = `Output · ${lines} line${lines === 1 ? "" : "s"}${updated.clipped ? " (last part)" : ""}`;
    if (atEnd) pre.scrollTop = pre.scrollHeight;
  }
  scrollToEnd();
}

// --- state: model and thinking pickers, buttons, title ------------------------------------------

let modelsKey = "";

function showState(state: ViewState): void {
  title.textContent = state.title;
  title.title = state.title;
  stopButton.hidden = !state.running;
  // The server refuses a model change while the session runs.
  modelSelect.disabled = state.running;
  document.body.classList.toggle("running", state.running);
  prompt.placeholder = state.running ? "Queue a follow-up… (Escape stops)" : "Ask Pi… (Enter to send, Shift+Enter for a new line)";
  const key = JSON.stringify([state.models, state.model]);
  if (key !== modelsKey) {
    modelsKey = key;
    const options = state.models.map((model) => h("option", { value: model.value }, model.label));
    if (state.model !== "" && !state.models.some((model) => model.value === state.model)) {
      options.unshift(h("option", { value: state.model }, state.model));
    }
    if (state.model === "") options.unshift(h("option", { value: "", disabled: true }, state.models.length ? "Default model" : "No models"));
    modelSelect.replaceChildren(...options);
  }
  // Set each time: a change the host refused goes back to the model that holds.
  modelSelect.value = state.model;
  const selected = modelSelect.selectedOptions[0];
  modelSelect.title = selected ? `Model: ${selected.textContent ?? ""}` : "Model";
  // A model without reasoning has thinking off; the server refuses a change while it runs.
  thinkingSelect.value = state.thinking;
  thinkingSelect.disabled = state.running || !state.reasoning;
  thinkingSelect.title = !state.reasoning
    ? "Thinking: off (this model does not reason)"
    : `Thinking: ${state.thinking === "" ? "the default level" : state.thinking}`;
}

// --- context meter --------------------------------------------------------------------------------

function percent(part: number, whole: number): string {
  return `${Math.max(0, Math.min(100, (part / whole) * 100)).toFixed(3)}%`;
}

function showUsage(usage: UsageView | null): void {
  if (usage === null || usage.contextWindow <= 0) {
    meter.hidden = true;
    return;
  }
  meter.hidden = false;
  const size = usage.contextWindow;
  // Past the window, segments shrink together so the bar still shows the mix.
  const scale = usage.total > size ? size / usage.total : 1;
  const segments = usage.categories.map((category) => {
    const segment = h("div", {
      class: "segment",
      "data-kind": category.kind,
      "data-tokens": String(category.tokens),
      title: `${category.label}: ${formatTokens(category.tokens)} tokens`,
    });
    segment.style.width = percent(category.tokens * scale, size);
    return segment;
  });
  const threshold = h("div", { class: "threshold", title: `Compaction at ${formatTokens(usage.threshold)} tokens` });
  threshold.style.left = percent(usage.threshold, size);
  meterBar.replaceChildren(...segments, threshold);
  const estimated = usage.estimated && usage.usageTokens === 0 ? "~" : "";
  meterSummary.textContent = `${formatTokens(usage.total)} / ${formatTokens(size)}`;
  const share = Math.round((usage.total / size) * 100);
  meter.title = [
    `Context: ${estimated}${formatTokens(usage.total)} of ${formatTokens(size)} tokens (${share}%)${basis(usage)}`,
    ...usage.categories.map((category) => `${category.label}: ${formatTokens(category.tokens)}`),
    `Compaction at ${formatTokens(usage.threshold)}`,
  ].join("\n");
  meter.classList.toggle("near", usage.total >= usage.threshold * 0.85 && usage.total < usage.threshold);
  meter.classList.toggle("over", usage.total >= usage.threshold);
}

// --- input ------------------------------------------------------------------------------------------

function saveDraft(): void {
  vscode.setState({ draft: prompt.value });
}

function fitPrompt(): void {
  prompt.style.height = "auto";
  prompt.style.height = `${Math.min(prompt.scrollHeight, 240)}px`;
}

function submit(): void {
  const text = prompt.value;
  if (text.trim() === "") return;
  const attachments = composer.take(text);
  post(attachments.length ? { type: "send", text, attachments } : { type: "send", text });
  prompt.value = "";
  fitPrompt();
  saveDraft();
  follow = true;
}

prompt.addEventListener("keydown", (event) => {
  if (composer.keydown(event)) return;
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing && !event.altKey) {
    event.preventDefault();
    submit();
  } else if (event.key === "Escape" && document.body.classList.contains("running")) {
    event.preventDefault();
    post({ type: "stop" });
  }
});
prompt.addEventListener("input", () => {
  fitPrompt();
  saveDraft();
});
sendButton.addEventListener("click", submit);
stopButton.addEventListener("click", () => post({ type: "stop" }));
attachButton.addEventListener("click", () => post({ type: "attachActiveFile" }));
newButton.addEventListener("click", () => post({ type: "newSession" }));
sessionsButton.addEventListener("click", () => post({ type: "sessions" }));
modelSelect.addEventListener("change", () => {
  if (modelSelect.value !== "") post({ type: "selectModel", value: modelSelect.value });
});
thinkingSelect.addEventListener("change", () => {
  const value = THINKING_LEVELS.find((level) => level === thinkingSelect.value);
  if (value !== undefined) post({ type: "selectThinking", value });
});

transcript.addEventListener("click", (event) => {
  const target = event.target instanceof Element ? event.target : null;
  if (target === null) return;
  const open = target.closest(".open-output");
  if (open !== null) {
    const card = open.closest<HTMLElement>(".tool-card");
    const toolCallId = card?.dataset.toolCallId;
    if (toolCallId) post({ type: "openOutput", toolCallId });
    return;
  }
  const answer = target.closest<HTMLElement>(".approval-card button[data-decision]");
  if (answer !== null) {
    const card = answer.closest<HTMLElement>(".approval-card");
    if (card !== null) answerApproval(card, answer.dataset.decision ?? "");
    return;
  }
  const made = target.closest<HTMLElement>(".tool-card button.review-change, .tool-card button.revert-change");
  if (made !== null) {
    const toolCallId = made.closest<HTMLElement>(".tool-card")?.dataset.toolCallId;
    if (toolCallId) post({ type: made.classList.contains("revert-change") ? "revertChange" : "reviewChange", toolCallId });
    return;
  }
  const review = target.closest<HTMLElement>(".approval-card button.review-diff");
  if (review !== null) {
    const id = review.closest<HTMLElement>(".approval-card")?.dataset.id;
    if (id) post({ type: "reviewDiff", id });
    return;
  }
  const restore = target.closest("button.restore-files");
  if (restore !== null) {
    const itemId = restore.closest<HTMLElement>(".message.user")?.dataset.id;
    if (itemId) post({ type: "restoreFiles", itemId });
    return;
  }
  const copy = target.closest("button.copy");
  if (copy !== null) {
    const code = copy.parentElement?.querySelector("code");
    void navigator.clipboard?.writeText(code?.textContent ?? "").then(() => {
      copy.textContent = "Copied";
      setTimeout(() => (copy.textContent = "Copy"), 1200);
    });
    return;
  }
  // Links: VS Code's webview host opens http(s) and mailto links itself (it listens for clicks
  // on the page and does not look at defaultPrevented), so the page does not ask the extension
  // to open them too: that opened every link twice. The sanitiser (webview/markdown.ts) leaves
  // only web and mail hrefs. preventDefault only keeps the page itself from navigating away.
  if (target.closest("a") !== null) event.preventDefault();
});

// Enter in a card's reason box denies with that reason.
transcript.addEventListener("keydown", (event) => {
  const target = event.target instanceof HTMLInputElement ? event.target : null;
  if (target === null || !target.classList.contains("reason") || event.key !== "Enter" || event.isComposing) return;
  const card = target.closest<HTMLElement>(".approval-card");
  if (card === null) return;
  event.preventDefault();
  answerApproval(card, "deny");
});

window.addEventListener("focus", () => {
  if (document.activeElement === document.body || document.activeElement === null) prompt.focus();
});

// --- host messages ---------------------------------------------------------------------------------

window.addEventListener("message", (event: MessageEvent) => {
  const message = parseHostMessage(event.data);
  if (message === undefined) return;
  switch (message.type) {
    case "reset":
      reset(message.items);
      break;
    case "upsert":
      upsert(message.item);
      scrollToEnd();
      break;
    case "textDelta":
      textDelta(message);
      break;
    case "toolOutput":
      toolOutput(message);
      break;
    case "state":
      showState(message.state);
      break;
    case "usage":
      showUsage(message.usage);
      break;
    case "setPrompt":
      prompt.value = message.text;
      fitPrompt();
      saveDraft();
      prompt.focus();
      break;
    case "focus":
      prompt.focus();
      break;
    case "completions":
      composer.completions(message.requestId, message.items);
      break;
    case "attach":
      composer.attach(message.attachment);
      prompt.focus();
      break;
  }
});

const saved = vscode.getState() as { draft?: unknown } | undefined;
if (saved && typeof saved.draft === "string") {
  prompt.value = saved.draft;
  fitPrompt();
}
post({ type: "ready" });

/** How the meter's total was reached, for its hover text. */
function basis(usage: UsageView): string {
  if (usage.usageTokens > 0) return `: the model's last reported ${formatTokens(usage.usageTokens)} plus an estimate of what followed`;
  return usage.estimated ? ", estimated (chars / 4)" : "";
}
