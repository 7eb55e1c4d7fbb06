// Drive VS Code in the browser (code-server) as a person would, with playwright-core and the
// system's Chromium: open a context file, see its conflict in the Problems panel, hover it, fix
// it in the editor, then chat in the pi-lsp view. tests/e2e/test_code_server.py starts
// code-server and the scripted model, and runs this script:
//
//   node e2e/code-server-e2e.mjs CONFIG.json
//
// CONFIG holds the URL, the Chromium binary, the screenshot folder, the paths and the texts to
// look for (see the test). Every step prints one JSON line on stdout as it finishes:
//   {"step": name, "seconds": since start, "screenshot": file, ...what was seen}
// {"event": "partial-answer"} says the first half of the streamed answer is on screen (the test
// then lets the model send the rest). {"ask": name} asks the test to look at something itself
// (the server's processes around a restart); the driver waits for the test's one-line JSON
// answer on stdin and reports it with its step. On a failure the last line is
//   {"failed": step, "error": message, "screenshot": file}
// and the exit status is 1. Every wait names its own timeout; nothing sleeps for a fixed time
// except short settles after a key press.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { chromium } from "playwright-core";

const config = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const LONG = config.timeoutMs ?? 60_000; // a wait for the server or the model
const SHORT = Math.min(LONG, 20_000); // a wait for the workbench alone
const BROWSER_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const started = Date.now();
const seconds = () => Number(((Date.now() - started) / 1000).toFixed(1));
const emit = (record) => process.stdout.write(JSON.stringify(record) + "\n");
let shotNumber = 0;

const profile = fs.mkdtempSync(path.join(os.tmpdir(), "pi-lsp-e2e-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: config.chromium,
  args: BROWSER_ARGS,
  headless: true,
  viewport: { width: 1400, height: 900 },
});
const page = context.pages()[0] ?? (await context.newPage());
page.setDefaultTimeout(LONG);
const consoleErrors = [];
page.on("console", (message) => {
  if (message.type() === "error") consoleErrors.push(message.text().slice(0, 300));
});

async function screenshot(name) {
  shotNumber += 1;
  const file = path.join(config.shots, `${String(shotNumber).padStart(2, "0")}-${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

let current = "start";
async function step(name, body) {
  current = name;
  const seen = (await body()) ?? {};
  emit({ step: name, seconds: seconds(), screenshot: await screenshot(name), ...seen });
}

const oneLine = (text) => text.replace(/\s+/g, " ").trim();
const editorLines = () => page.locator(".monaco-editor .view-lines").first();
const markers = () => page.locator(".markers-panel .monaco-list-row", { hasText: config.problemText });

const answers = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
/** Ask the test (on stdout) and wait for its answer (one JSON line on stdin). */
async function ask(name, timeout) {
  emit({ ask: name });
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the test did not answer ${name} within ${timeout} ms`)), timeout);
  });
  try {
    const { value, done } = await Promise.race([answers.next(), late]);
    if (done) throw new Error(`the test closed stdin instead of answering ${name}`);
    const answer = JSON.parse(value);
    if (answer.error) throw new Error(`${name}: ${answer.error}`);
    return answer;
  } finally {
    clearTimeout(timer);
  }
}

/** The Problems panel's rows in order: a file row (level 1) before the findings on it (level 2). */
async function problemRows() {
  const rows = page.locator(".markers-panel .monaco-list-row");
  return rows.evaluateAll((nodes) =>
    nodes.map((node) => ({
      level: Number(node.getAttribute("aria-level")),
      text: node.innerText.replace(/\s+/g, " ").trim(),
      label: node.getAttribute("aria-label") ?? "",
    })),
  );
}

async function waitForFileToExist(file, timeout) {
  const deadline = Date.now() + timeout;
  while (!fs.existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${file} was never written`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return fs.readFileSync(file, "utf8");
}

async function waitForFile(file, text, timeout) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const content = fs.readFileSync(file, "utf8");
    if (content === text) return content;
    if (Date.now() > deadline) throw new Error(`${file} never held ${JSON.stringify(text)}; it holds ${JSON.stringify(content)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

let failed = false;
try {
  await step("workbench", async () => {
    await page.goto(config.url);
    await page.locator(".monaco-workbench").waitFor({ timeout: LONG });
    await page.locator(".explorer-folders-view .monaco-list-row").first().waitFor({ timeout: LONG });
    return { title: await page.title() };
  });

  await step("open-file", async () => {
    // Quick Open (Ctrl+P) with the path relative to the workspace folder.
    await page.locator(".monaco-workbench").click({ position: { x: 700, y: 400 } });
    await page.keyboard.press("Control+P");
    const input = page.locator(".quick-input-widget input.input");
    await input.waitFor({ timeout: SHORT });
    await input.fill(config.file.relative);
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "AGENTS.md" }).first().waitFor({ timeout: SHORT });
    await page.keyboard.press("Enter");
    await editorLines().filter({ hasText: config.file.conflictLine }).waitFor({ timeout: SHORT });
    return { tab: oneLine(await page.locator(".tabs-container .tab.active").first().innerText()) };
  });

  await step("problems", async () => {
    await editorLines().click();
    await page.keyboard.press("Control+Shift+M");
    await page.locator(".markers-panel").waitFor({ timeout: SHORT });
    await markers().first().waitFor({ timeout: LONG });
    const rows = await page.locator(".markers-panel .monaco-list-row").allInnerTexts();
    return { rows: rows.map(oneLine) };
  });

  if (config.trust) {
    const trust = config.trust;
    const untrusted = () => page.locator(".markers-panel .monaco-list-row", { hasText: trust.problemText });

    await step("untrusted", async () => {
      await untrusted().first().waitFor({ timeout: LONG });
      return { rows: await problemRows() };
    });

    const menuItems = () => page.locator(".context-view .monaco-menu .action-label");
    const openFixes = async () => {
      const row = untrusted().first();
      await row.hover();
      const bulb = row.locator(".actions .action-label.codicon-light-bulb:not(.disabled)").first();
      await bulb.waitFor({ timeout: LONG });
      await bulb.click();
      await menuItems().filter({ hasText: trust.fixTitle }).first().waitFor({ timeout: SHORT });
    };
    await step("trust-fix-offered", async () => {
      // Selecting the finding opens its file, and then (VS Code asks for fixes of open files
      // only) the row's light bulb turns on and lists the fixes.
      await untrusted().first().click();
      await openFixes();
      const offered = await menuItems().allInnerTexts();
      return { offered: offered.map(oneLine).filter((text) => text !== "") };
    });

    await step("trusted", async () => {
      // One click. Opening the file must not make the server publish its diagnostics again
      // (they are the ones computed from the same text): a publish that lands after the menu
      // opened would make VS Code drop the fix's command ("Actual command not found") and the
      // click would do nothing.
      await menuItems().filter({ hasText: trust.fixTitle }).first().click();
      await waitForFileToExist(trust.storePath, LONG);
      const written = fs.readFileSync(trust.storePath, "utf8");
      await untrusted().first().waitFor({ state: "detached", timeout: LONG });
      const rows = await problemRows();
      // Back to the conflicting file (the fix's file opened in front of it).
      await page.locator(".tabs-container .tab", { hasText: path.basename(config.file.relative) }).first().click();
      await editorLines().filter({ hasText: config.file.conflictLine }).waitFor({ timeout: SHORT });
      return { written, rows };
    });
  }

  if (config.restart) {
    await step("restart-palette", async () => {
      await editorLines().click();
      await page.keyboard.press("Control+Shift+P");
      const input = page.locator(".quick-input-widget input.input");
      await input.waitFor({ timeout: SHORT });
      await input.fill(`>${config.restart.title}`);
      const row = page.locator(".quick-input-list .monaco-list-row", { hasText: config.restart.title }).first();
      await row.waitFor({ timeout: SHORT });
      const rows = await page.locator(".quick-input-list .monaco-list-row").allInnerTexts();
      return { rows: rows.map(oneLine), before: await ask("server-before-restart", LONG) };
    });

    await step("restarted", async () => {
      await page.keyboard.press("Enter");
      await page.locator(".quick-input-widget input.input").waitFor({ state: "hidden", timeout: SHORT });
      // The old client's findings went with it; once a new server runs, its own come back.
      const started = await ask("server-replaced", LONG);
      await markers().first().waitFor({ timeout: LONG });
      return { started, answered: await ask("server-answered", LONG), rows: await problemRows() };
    });
  }

  await step("hover", async () => {
    // Hover the word's own element: the middle of the whole line may lie past its end.
    const word = page.locator(".monaco-editor .view-line span span", { hasText: config.file.hoverWord }).first();
    await word.hover();
    const hover = page.locator(".monaco-hover:visible", { hasText: config.hoverText }).first();
    try {
      await hover.waitFor({ timeout: SHORT });
    } catch {
      // A hover can be dismissed by a late repaint of the editor: move away and back once.
      await page.mouse.move(5, 5);
      await word.hover();
      await hover.waitFor({ timeout: SHORT });
    }
    return { hover: await hover.innerText() };
  });

  await step("fixed", async () => {
    // Put the hover away (it covers the lines below the hovered one), focus the editor, go to
    // the conflicting line (Ctrl+G), select it and type its replacement over it, save.
    await page.mouse.move(5, 5);
    await page.keyboard.press("Escape");
    await page.locator(".monaco-hover:visible").first().waitFor({ state: "detached", timeout: SHORT }).catch(() => undefined);
    const target = page.locator(".monaco-editor .view-line span span", { hasText: config.file.editWord }).first();
    await target.click();
    await page.keyboard.press("Control+G");
    const input = page.locator(".quick-input-widget input.input");
    await input.waitFor({ timeout: SHORT });
    await input.fill(`:${config.file.editLine}`); // Go to Line is Quick Open with a ":"
    await page.keyboard.press("Enter");
    await input.waitFor({ state: "hidden", timeout: SHORT });
    await page.keyboard.press("Home");
    await page.keyboard.press("Shift+End");
    await page.keyboard.type(config.file.replacement);
    await page.keyboard.press("Escape"); // a suggestion list, if one opened, must not eat the save
    await page.keyboard.press("Control+S");
    const saved = await waitForFile(config.file.path, config.file.expectedAfterSave, SHORT);
    await markers().first().waitFor({ state: "detached", timeout: LONG });
    const rows = await page.locator(".markers-panel .monaco-list-row").allInnerTexts();
    const message = await page.locator(".markers-panel .message-box-container").allInnerTexts();
    return { saved, rows: rows.map(oneLine), message: message.map(oneLine).join(" ") };
  });

  if (config.chat) {
    const chat = config.chat;
    const view = page.locator("iframe.webview").first().contentFrame().locator("#active-frame").contentFrame();

    await step("chat-open", async () => {
      // The activity bar entry of the pi-lsp container (title "pi-lsp").
      await page.locator('.part.activitybar .action-item a.action-label[aria-label^="pi-lsp"]').first().click();
      await view.locator("textarea#prompt").waitFor({ timeout: LONG });
      return {};
    });

    await step("chat-sent", async () => {
      await view.locator("textarea#prompt").fill(chat.prompt);
      await view.locator("textarea#prompt").press("Enter");
      await view.locator(".message.user", { hasText: chat.prompt }).first().waitFor({ timeout: SHORT });
      return {};
    });

    await step("tool-card", async () => {
      const card = view.locator(`.tool-card[data-tool-name="${chat.toolName}"]`).first();
      const output = card.locator("pre.tool-output", { hasText: chat.toolOutput });
      await output.waitFor({ state: "attached", timeout: LONG });
      // A finished run's output is folded away under its summary line, and the card may fold
      // it just after a first look (the run ending): unfold it until it stays open.
      const deadline = Date.now() + SHORT;
      while (!(await output.isVisible())) {
        if (Date.now() > deadline) throw new Error("the tool output stayed folded");
        const details = card.locator("details.output").first();
        if (!(await details.evaluate((node) => node.open).catch(() => false))) {
          await details.locator("summary").first().click();
        }
        await page.waitForTimeout(150);
      }
      return {
        toolCallId: await card.getAttribute("data-tool-call-id"),
        title: oneLine(await card.locator(".title").first().innerText()),
        output: await card.locator("pre.tool-output").first().innerText(),
      };
    });

    await step("answer-streaming", async () => {
      const answer = view.locator(".message.assistant .content", { hasText: chat.partial }).last();
      await answer.waitFor({ timeout: LONG });
      return { text: await answer.innerText() };
    });
    emit({ event: "partial-answer" }); // on screen and photographed: the model may go on now

    await step("answer", async () => {
      const answer = view.locator(".message.assistant .content", { hasText: chat.final }).last();
      await answer.waitFor({ timeout: LONG });
      return {
        text: await answer.innerText(),
        strong: await answer.locator("strong").allInnerTexts(),
        code: await answer.locator("code").allInnerTexts(),
        items: await answer.locator("li").allInnerTexts(),
        meter: oneLine(await view.locator("#context-meter .summary").innerText()),
        segments: await view.locator("#context-meter .segment").evaluateAll((nodes) => nodes.map((node) => node.dataset.kind)),
      };
    });
  }
  if (config.approval) {
    const approval = config.approval;
    const view = page.locator("iframe.webview").first().contentFrame().locator("#active-frame").contentFrame();

    await step("approval-asked", async () => {
      await view.locator("textarea#prompt").fill(approval.prompt);
      await view.locator("textarea#prompt").press("Enter");
      const card = view.locator(".approval-card.status-open").first();
      await card.waitFor({ timeout: LONG });
      return {
        question: oneLine(await card.locator(".question").innerText()),
        command: (await card.locator("pre.approval-command").innerText()).trim(),
      };
    });

    await step("approval-denied", async () => {
      const card = view.locator(".approval-card.status-open").first();
      await card.locator("input.reason").fill(approval.reason);
      await card.locator('button[data-decision="deny"]').click();
      const done = view.locator(".approval-card.status-denied").first();
      await done.waitFor({ timeout: LONG });
      await view.locator(".message.assistant .content", { hasText: approval.after }).last().waitFor({ timeout: LONG });
      return { outcome: oneLine(await done.locator(".outcome").innerText()) };
    });
  }

  if (config.models) {
    const models = config.models;
    const rowsOf = async () => (await page.locator(".quick-input-list .monaco-list-row").allInnerTexts()).map(oneLine);

    await step("model-picker", async () => {
      await page.keyboard.press("Control+Shift+P");
      const input = page.locator(".quick-input-widget input.input");
      await input.waitFor({ timeout: SHORT });
      await input.fill(`>${models.title}`);
      await page.locator(".quick-input-list .monaco-list-row", { hasText: models.title }).first().waitFor({ timeout: SHORT });
      await page.keyboard.press("Enter");
      await input.fill(models.search);
      await page.locator(".quick-input-list .monaco-list-row", { hasText: models.expect }).first().waitFor({ timeout: LONG });
      return { rows: await rowsOf() };
    });

    await step("all-models", async () => {
      const input = page.locator(".quick-input-widget input.input");
      await input.fill(models.allLabel);
      await page.locator(".quick-input-list .monaco-list-row", { hasText: models.allLabel }).first().waitFor({ timeout: SHORT });
      await page.keyboard.press("Enter");
      await input.fill(models.unreachable);
      await page.locator(".quick-input-list .monaco-list-row", { hasText: models.unreachable }).first().waitFor({ timeout: LONG });
      return { rows: await rowsOf() }; // left open for its screenshot: the last step
    });
  }
} catch (error) {
  failed = true;
  let file = null;
  try {
    file = await screenshot(`failed-${current}`);
  } catch {
    // the page is gone: nothing to take
  }
  const message = error instanceof Error ? error.message : String(error);
  emit({ failed: current, error: message, screenshot: file, consoleErrors: consoleErrors.slice(-10) });
} finally {
  await context.close().catch(() => undefined);
  fs.rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
