// Drive the chat view's page (dist/webview.js, dist/chat.css) in headless Chromium, as VS Code
// would host it: the page from src/chat/page.ts with its CSP, `acquireVsCodeApi` provided, host
// messages arriving as window `message` events. Prints one JSON object of what was observed;
// tests/e2e/test_webview_chromium.py makes the assertions.
//
//   node e2e/webview/run.mjs [--chromium /usr/bin/chromium]
import * as esbuild from "esbuild";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { chromium } from "playwright-core";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const argv = process.argv.slice(2);
const executablePath = argv.includes("--chromium") ? argv[argv.indexOf("--chromium") + 1] : "/usr/bin/chromium";
const ORIGIN = "https://webview.test";

// The page module is TypeScript: bundle it for Node once.
const scratch = mkdtempSync(join(tmpdir(), "pi-lsp-webview-"));
const pageModule = join(scratch, "page.mjs");
await esbuild.build({ entryPoints: [join(root, "src/chat/page.ts")], outfile: pageModule, bundle: true, platform: "node", format: "esm", logLevel: "error" });
const { chatHtml } = await import(pathToFileURL(pageModule).href);

const nonce = "Tn0nceForTheBrowserTest1";
const html = chatHtml({ cspSource: ORIGIN, nonce, scriptUri: `${ORIGIN}/dist/webview.js`, styleUri: `${ORIGIN}/dist/chat.css` });

const browser = await chromium.launch({ executablePath, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
const out = { dialogs: [], pageErrors: [], console: [], requests: [] };
try {
  const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
  page.on("dialog", async (dialog) => {
    out.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    await dialog.dismiss();
  });
  page.on("pageerror", (error) => out.pageErrors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") out.console.push(message.text());
  });
  await page.route("**/*", async (route) => {
    const url = new URL(route.request().url());
    out.requests.push(url.href);
    if (url.origin !== ORIGIN) return route.abort();
    if (url.pathname === "/index.html") return route.fulfill({ contentType: "text/html", body: html });
    const file = { "/dist/webview.js": "text/javascript", "/dist/chat.css": "text/css" }[url.pathname];
    if (file) return route.fulfill({ contentType: file, body: readFileSync(join(root, url.pathname.slice(1))) });
    return route.fulfill({ status: 404, body: "" });
  });
  await page.addInitScript(() => {
    window.__posted = [];
    window.__violations = [];
    document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
    let state;
    window.acquireVsCodeApi = () => ({
      postMessage: (message) => window.__posted.push(JSON.parse(JSON.stringify(message))),
      getState: () => state,
      setState: (value) => (state = value),
    });
  });
  await page.goto(`${ORIGIN}/index.html`);
  await page.waitForFunction(() => window.__posted.some((m) => m.type === "ready"));

  // Post a host message and wait until the page has handled it (message events run in order, so
  // a marker posted after it arrives after it).
  const host = (message) =>
    page.evaluate(
      (m) =>
        new Promise((resolve) => {
          const marker = `sync-${Math.random()}`;
          const done = (event) => {
            if (event.data !== marker) return;
            window.removeEventListener("message", done);
            resolve();
          };
          window.addEventListener("message", done);
          window.postMessage(m, "*");
          window.postMessage(marker, "*");
        }),
      message,
    );
  const frame = () => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
  const posted = () => page.evaluate(() => window.__posted);

  out.controls = await page.evaluate(() =>
    ["textarea#prompt", "button#send", "button#stop", "select#model", "select#thinking", "button#new-session", "button#sessions", "#transcript", "#context-meter"].filter(
      (selector) => document.querySelector(selector) !== null,
    ),
  );

  await host({
    type: "state",
    state: { running: true, title: "list the files", model: "anthropic/claude-x", thinking: "medium", reasoning: true, models: [{ value: "anthropic/claude-x", label: "Claude X · anthropic" }, { value: "openai/gpt-y", label: "GPT Y · openai" }] },
  });
  await host({ type: "reset", items: [] });
  await host({ type: "upsert", item: { kind: "user", id: "u1", text: "list the files <b>now</b>" } });
  await host({ type: "upsert", item: { kind: "assistant", id: "a1", blocks: [], streaming: true } });

  // A streamed answer: each piece is shown, in order, in the one message.
  const pieces = ["Hello ", "**world**, see [the docs](https://example.com/docs).", "\n\n```python\nprint('hi')\n```\n", "Done."];
  out.streamed = [];
  for (const piece of pieces) {
    await host({ type: "textDelta", id: "a1", block: 0, blockType: "text", text: piece });
    await frame();
    out.streamed.push(await page.evaluate(() => document.querySelector('.message.assistant[data-id="a1"] .content')?.textContent ?? null));
  }
  out.rendered = await page.evaluate(() => {
    const message = document.querySelector('.message.assistant[data-id="a1"]');
    return {
      strong: message.querySelector(".content strong")?.textContent ?? null,
      link: message.querySelector(".content a")?.getAttribute("href") ?? null,
      highlighted: message.querySelectorAll(".content pre code span[class^='hljs-']").length,
      copyButtons: message.querySelectorAll("pre button.copy").length,
      user: document.querySelector(".message.user .content")?.textContent ?? null,
      userBold: document.querySelectorAll(".message.user b").length,
      order: [...document.querySelectorAll("#transcript > [data-id]")].map((element) => element.dataset.id),
    };
  });

  // Clicking a link: VS Code's webview host opens it itself, so the page posts nothing for it
  // (no second open) and does not navigate.
  const postedBeforeClick = (await posted()).length;
  await page.click('.message.assistant[data-id="a1"] .content a');
  await frame();
  out.postedOnLinkClick = (await posted()).slice(postedBeforeClick);
  out.urlAfterClick = page.url();

  // "Restore files to this point" on the user message posts its item id.
  const postedBeforeRestore = (await posted()).length;
  await page.click('.message.user[data-id="u1"] button.restore-files');
  await frame();
  out.postedOnRestore = (await posted()).slice(postedBeforeRestore);

  // A hostile answer, streamed and then finished, and the same in thinking, a notice and tool output.
  const hostile = [
    "Look: <script>alert('script')</script>",
    "<img src=x onerror=alert('img')>",
    "[click me](javascript:alert('link'))",
    "[cmd](command:workbench.action.terminal.new) [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [file](file:///etc/passwd)",
    "<iframe src=\"https://evil.test\"></iframe>",
    "<a href=\"javascript:alert('raw')\">raw link</a>",
    "![pic](https://evil.test/x.png) ![dot](data:image/png;base64,iVBORw0KGgo=)",
    "<svg onload=alert('svg')></svg> <style>body{display:none}</style>",
  ].join("\n\n");
  await host({ type: "upsert", item: { kind: "assistant", id: "a2", blocks: [], streaming: true } });
  for (let index = 0; index < hostile.length; index += 37) {
    await host({ type: "textDelta", id: "a2", block: 0, blockType: "text", text: hostile.slice(index, index + 37) });
  }
  await host({ type: "textDelta", id: "a2", block: 1, blockType: "thinking", text: "<img src=x onerror=alert('thinking')>" });
  await frame();
  await host({
    type: "upsert",
    item: { kind: "assistant", id: "a2", streaming: false, blocks: [{ type: "thinking", text: "<img src=x onerror=alert('thinking')>" }, { type: "text", text: hostile }] },
  });
  await host({ type: "upsert", item: { kind: "notice", id: "n1", level: "error", text: "<img src=x onerror=alert('notice')>", detail: "<script>alert('detail')</script>" } });
  await host({ type: "upsert", item: { kind: "tool", id: "t0", name: "bash", summary: "<b>x</b>", status: "done", output: "<script>alert('tool')</script>", clipped: false, truncated: false } });
  await frame();
  out.thinkingCollapsed = await page.evaluate(() => {
    const details = document.querySelector('.message.assistant[data-id="a2"] details.thinking');
    return details !== null && !details.open;
  });
  await page.evaluate(() => document.querySelectorAll("details").forEach((d) => (d.open = true)));
  await page.waitForTimeout(150);
  out.hostile = await page.evaluate(() => {
    const transcript = document.getElementById("transcript");
    return {
      dangerous: [...transcript.querySelectorAll("script, iframe, img, svg:not(.icon):not(.icon *), style, object, embed, form, input")].map((e) => e.outerHTML),
      handlers: [...transcript.querySelectorAll("*")].flatMap((e) => [...e.attributes].filter((a) => a.name.startsWith("on")).map((a) => `${e.tagName} ${a.name}`)),
      styles: [...transcript.querySelectorAll("[style]")].map((e) => e.tagName),
      hrefs: [...transcript.querySelectorAll("a[href]")].map((a) => a.getAttribute("href")),
      text: document.querySelector('.message.assistant[data-id="a2"]').textContent,
      thinking: document.querySelector('.message.assistant[data-id="a2"] details.thinking')?.textContent ?? null,
      notice: document.querySelector('.notice.error[data-id="n1"]')?.textContent ?? null,
      toolOutput: document.querySelector('.tool-card[data-tool-call-id="t0"] pre.tool-output')?.textContent ?? null,
      bodyVisible: getComputedStyle(document.body).display !== "none",
    };
  });

  // Bare web addresses become links; file names do not.
  await host({ type: "upsert", item: { kind: "assistant", id: "a3", streaming: false, blocks: [{ type: "text", text: "Edit README.md, then see https://example.org/x or mail dev@example.org." }] } });
  out.linkified = await page.evaluate(() => [...document.querySelectorAll('[data-id="a3"] a')].map((a) => a.getAttribute("href")));
  // A mail link keeps only its address: no ?attach=, ?body= or ?cc= to fill the mail with.
  await host({
    type: "upsert",
    item: { kind: "assistant", id: "a4", streaming: false, blocks: [{ type: "text", text: "[mail](mailto:dev@example.org?attach=/etc/passwd&body=x) ![pic](mailto:a@b.c?cc=evil@x.y)" }] },
  });
  out.mailHrefs = await page.evaluate(() => [...document.querySelectorAll('[data-id="a4"] a')].map((a) => a.getAttribute("href")));

  // A tool card with live output, then its end with a truncated result.
  await host({ type: "upsert", item: { kind: "tool", id: "call-1", name: "bash", summary: "ls -la", status: "running", output: "", clipped: false, truncated: false } });
  out.toolLive = [];
  for (const text of ["a.txt\n", "b.txt\n", "c.txt\n"]) {
    await host({ type: "toolOutput", id: "call-1", text });
    out.toolLive.push(await page.evaluate(() => document.querySelector('.tool-card[data-tool-call-id="call-1"] pre.tool-output').textContent));
  }
  out.toolRunning = await page.evaluate(() => {
    const card = document.querySelector('.tool-card[data-tool-call-id="call-1"]');
    return { name: card.dataset.toolName, title: card.querySelector(".title").textContent, classes: card.className, truncated: card.querySelector(".truncated-mark") !== null };
  });
  await host({ type: "upsert", item: { kind: "tool", id: "call-1", name: "bash", summary: "ls -la", status: "done", output: "a.txt\nb.txt\nc.txt\n", clipped: false, truncated: true } });
  out.toolDone = await page.evaluate(() => {
    const card = document.querySelector('.tool-card[data-tool-call-id="call-1"]');
    return { classes: card.className, truncated: card.querySelector(".truncated-mark") !== null, output: card.querySelector("pre.tool-output").textContent };
  });
  await page.click('.tool-card[data-tool-call-id="call-1"] .open-output');
  // A `!` command of the user's (no tool run behind it) and a call still waiting have no output
  // panel to open: no button.
  await host({ type: "upsert", item: { kind: "tool", id: "bx1", name: "bash", summary: "ls", status: "done", output: "a\n", clipped: false, truncated: false, noRun: true } });
  await host({ type: "upsert", item: { kind: "tool", id: "p1", name: "read", summary: "a.txt", status: "pending", output: "", clipped: false, truncated: false } });
  out.openButtons = await page.evaluate(() =>
    Object.fromEntries(["call-1", "bx1", "p1"].map((id) => [id, document.querySelector(`.tool-card[data-tool-call-id="${id}"] .open-output`) !== null])),
  );
  await host({ type: "upsert", item: { kind: "tool", id: "p1", name: "read", summary: "a.txt", status: "running", output: "", clipped: false, truncated: false } });
  out.openButtons.p1Running = await page.evaluate(() => document.querySelector('.tool-card[data-tool-call-id="p1"] .open-output') !== null);
  await host({ type: "upsert", item: { kind: "tool", id: "e1", name: "edit", summary: "src/a.ts", status: "done", output: "Successfully replaced 1 block(s) in src/a.ts.\n-3 <old>\n+3 <new>\n", clipped: false, truncated: false } });
  out.editDiff = await page.evaluate(() => {
    const pre = document.querySelector('.tool-card[data-tool-call-id="e1"] pre.tool-output');
    return { text: pre.textContent, added: [...pre.querySelectorAll(".added")].map((e) => e.textContent), removed: [...pre.querySelectorAll(".removed")].map((e) => e.textContent) };
  });

  // The context meter.
  const usage = {
    contextWindow: 128000,
    threshold: 111616,
    total: 41200,
    estimated: false,
    usageTokens: 0,
    categories: [
      { kind: "systemPrompt", label: "System prompt", tokens: 3000 },
      { kind: "contextFiles", label: "Context files", tokens: 6000 },
      { kind: "skills", label: "Skills", tokens: 1200 },
      { kind: "tools", label: "Tools", tokens: 2000 },
      { kind: "messages", label: "Messages", tokens: 29000 },
      { kind: "summaries", label: "Summaries", tokens: 0 },
    ],
  };
  await host({ type: "usage", usage });
  out.meter = await page.evaluate(() => {
    const meter = document.getElementById("context-meter");
    const bar = meter.querySelector(".bar").getBoundingClientRect();
    const threshold = meter.querySelector(".threshold").getBoundingClientRect();
    return {
      hidden: meter.hidden,
      barWidth: bar.width,
      thresholdCenter: threshold.left + threshold.width / 2 - bar.left,
      summary: meter.querySelector(".summary").textContent,
      segments: [...meter.querySelectorAll(".segment")].map((segment) => ({
        kind: segment.dataset.kind,
        tokens: Number(segment.dataset.tokens),
        width: segment.getBoundingClientRect().width,
        title: segment.title,
      })),
    };
  });
  out.usage = usage;
  // The hover says what the total stands on: an estimate, or the model's own last count.
  out.meterTitles = { estimate: await page.getAttribute("#context-meter", "title") };
  await host({ type: "usage", usage: { ...usage, estimated: true, usageTokens: 39000 } });
  out.meterTitles.usage = await page.getAttribute("#context-meter", "title");
  await host({ type: "usage", usage: { ...usage, estimated: true, usageTokens: 0 } });
  out.meterTitles.chars = await page.getAttribute("#context-meter", "title");

  // Model picker, stop button, prompt keys.
  out.model = await page.evaluate(() => ({ value: document.getElementById("model").value, options: document.getElementById("model").options.length }));
  out.stopVisible = await page.isVisible("#stop");
  out.modelDisabledWhileRunning = await page.isDisabled("#model");
  await page.click("#stop");
  out.thinkingWhileRunning = await page.evaluate(() => ({ value: document.getElementById("thinking").value, disabled: document.getElementById("thinking").disabled }));
  const models = [{ value: "anthropic/claude-x", label: "Claude X · anthropic" }, { value: "openai/gpt-y", label: "GPT Y · openai" }];
  await host({ type: "state", state: { running: false, title: "list the files", model: "anthropic/claude-x", thinking: "medium", reasoning: true, models } });
  out.stopVisibleAfter = await page.isVisible("#stop");

  // The thinking picker: beside the model picker, styled like it; a pick is posted, and the page
  // shows the level the host says holds (after a refusal, the old one).
  const thinking = () =>
    page.evaluate(() => {
      const select = document.getElementById("thinking");
      return { value: select.value, disabled: select.disabled, title: select.title, label: select.getAttribute("aria-label"), visible: select.getBoundingClientRect().width > 0 };
    });
  out.thinkingLevels = await page.evaluate(() => [...document.querySelectorAll("#thinking option:not([disabled])")].map((option) => option.value));
  out.thinkingPlacement = await page.evaluate(() => {
    const model = document.getElementById("model");
    const select = document.getElementById("thinking");
    const a = model.getBoundingClientRect();
    const b = select.getBoundingClientRect();
    const look = (element) => {
      const style = getComputedStyle(element);
      return [style.fontSize, style.fontFamily, style.borderRadius, style.padding, style.color, style.backgroundColor, style.borderTopStyle];
    };
    return { sameRow: Math.abs(a.top + a.height / 2 - (b.top + b.height / 2)) < 2, afterModel: b.left >= a.right, sameLook: JSON.stringify(look(model)) === JSON.stringify(look(select)) };
  });
  out.thinkingIdle = await thinking();
  await page.selectOption("#thinking", "high");
  out.thinkingPicked = await thinking();
  await host({ type: "state", state: { running: false, title: "list the files", model: "anthropic/claude-x", thinking: "low", reasoning: true, models } });
  out.thinkingFromHost = await thinking();
  await host({ type: "state", state: { running: false, title: "list the files", model: "openai/gpt-y", thinking: "off", reasoning: false, models } });
  out.thinkingNoReasoning = await thinking();
  await host({ type: "state", state: { running: false, title: "list the files", model: "anthropic/claude-x", thinking: "", reasoning: true, models } });
  out.thinkingDefault = await thinking();
  await host({ type: "state", state: { running: false, title: "list the files", model: "anthropic/claude-x", thinking: "turbo", reasoning: true, models } });
  out.thinkingAfterBadState = await thinking();

  await page.selectOption("#model", "openai/gpt-y");
  await page.click("#prompt");
  await page.keyboard.type("first line");
  await page.keyboard.press("Shift+Enter");
  await page.keyboard.type("second line");
  out.promptBeforeSend = await page.inputValue("#prompt");
  await page.keyboard.press("Enter");
  out.promptAfterSend = await page.inputValue("#prompt");
  await page.click("#new-session");
  await page.click("#sessions");

  // Malformed host messages are ignored.
  const before = await page.evaluate(() => document.querySelectorAll("#transcript > [data-id]").length);
  await host({ type: "upsert", item: { kind: "evil", id: "x" } });
  await host({ type: "upsert", item: { kind: "user", id: "x2", text: 5 } });
  await host({ type: "reset", items: "nope" });
  await host("reset");
  out.ignoredMalformed = (await page.evaluate(() => document.querySelectorAll("#transcript > [data-id]").length)) === before;

  // setPrompt (a re-opened message) fills the box.
  await host({ type: "setPrompt", text: "edit me" });
  out.setPrompt = await page.inputValue("#prompt");

  // A reset (the view shown again) draws the whole transcript anew.
  await host({ type: "reset", items: [{ kind: "user", id: "r1", text: "again" }, { kind: "assistant", id: "r2", blocks: [{ type: "text", text: "*rebuilt*" }], streaming: false }] });
  out.afterReset = await page.evaluate(() => ({
    ids: [...document.querySelectorAll("#transcript > [data-id]")].map((e) => e.dataset.id),
    em: document.querySelector('[data-id="r2"] em')?.textContent ?? null,
  }));

  // Mentions: `@` asks the host after a pause, the answer is listed, a pick fills the box and
  // the picked file goes with the prompt; `/` lists templates and skills with descriptions.
  await host({ type: "setPrompt", text: "" });
  await page.click("#prompt");
  const asked = async (trigger) => {
    await page.waitForFunction((t) => window.__posted.some((m) => m.type === "complete" && m.trigger === t), trigger);
    return (await posted()).filter((m) => m.type === "complete" && m.trigger === trigger).at(-1);
  };
  await page.keyboard.type("explain @mai");
  const fileQuestion = await asked("@");
  out.mentionAsked = { trigger: fileQuestion.trigger, query: fileQuestion.query };
  await host({
    type: "completions",
    requestId: fileQuestion.requestId,
    items: [
      { label: "src/", insert: "src/", kind: "folder" },
      { label: "src/app/main.py", insert: "src/app/main.py", kind: "file" },
    ],
  });
  out.mentionList = await page.evaluate(() => ({
    visible: !document.getElementById("completions").hidden && document.getElementById("completions").getBoundingClientRect().height > 0,
    rows: [...document.querySelectorAll("#completions .completion")].map((row) => row.textContent),
  }));
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  out.mentionPicked = await page.inputValue("#prompt");
  out.mentionListAfterPick = await page.evaluate(() => document.getElementById("completions").hidden);
  await page.keyboard.type("please");
  await page.keyboard.press("Enter");
  out.mentionSent = (await posted()).filter((m) => m.type === "send").at(-1);

  await page.keyboard.type("/re");
  const commandQuestion = await asked("/");
  out.commandAsked = { trigger: commandQuestion.trigger, query: commandQuestion.query };
  await host({ type: "completions", requestId: commandQuestion.requestId, items: [{ label: "/review", insert: "/review", kind: "template", detail: "Review the staged change" }] });
  out.commandRow = await page.evaluate(() => ({
    label: document.querySelector("#completions .completion-label")?.textContent ?? null,
    detail: document.querySelector("#completions .completion-detail")?.textContent ?? null,
  }));
  await page.keyboard.press("Tab");
  out.commandPicked = await page.inputValue("#prompt");

  // A pasted image becomes a chip with its thumbnail; a selection from the editor a chip with
  // its lines; both go with the prompt, and the chips are gone once it is sent.
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
  await page.evaluate((data) => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], "shot.png", { type: "image/png" }));
    document.getElementById("prompt").dispatchEvent(new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true }));
  }, png);
  await page.waitForSelector(".chip-image");
  await host({ type: "attach", attachment: { kind: "selection", path: "/ws/src/b.py", startLine: 3, endLine: 4, text: "x = 2\ny = 3" } });
  out.chips = await page.evaluate(() => ({
    labels: [...document.querySelectorAll("#attachments .chip-label")].map((e) => e.textContent),
    thumb: document.querySelector("#attachments .chip-image img.thumb")?.getAttribute("src")?.slice(0, 22) ?? null,
    thumbLoaded: (document.querySelector("#attachments .chip-image img.thumb")?.naturalWidth ?? 0) > 0,
  }));
  await page.keyboard.type("what is this?");
  await page.keyboard.press("Enter");
  out.imageSent = (await posted()).filter((m) => m.type === "send").at(-1);
  out.chipsAfterSend = await page.evaluate(() => ({ hidden: document.getElementById("attachments").hidden, count: document.querySelectorAll("#attachments .chip").length }));
  out.pastedImage = png;
  // A sent prompt shows what it carried.
  await host({ type: "upsert", item: { kind: "user", id: "u9", text: "what is this?", attachments: ["b.py:3-4", "pasted image"] } });
  out.sentChips = await page.evaluate(() => [...document.querySelectorAll('[data-id="u9"] .chip-label')].map((e) => e.textContent));
  await page.click("#attach-file");

  // A reviewable edit question: Accept, Show diff, for the session, Reject; Accept and Show diff post.
  const review = { kind: "approval", id: "approval-r1", toolCallId: "call_r1", tool: "edit", subject: "notes.txt", where: "/ws/notes.txt", diff: "--- notes.txt\n+++ notes.txt\n@@ -1 +1 @@\n-two\n+TWO\n", reviewable: true, status: "open" };
  await host({ type: "upsert", item: review });
  out.reviewButtons = await page.evaluate(() => [...document.querySelectorAll('[data-id="approval-r1"] .actions button')].map((b) => b.textContent));
  const postedBeforeReview = (await posted()).length;
  await page.click('[data-id="approval-r1"] button.review-diff');
  await page.click('[data-id="approval-r1"] button[data-decision="applied"]');
  await frame();
  out.postedOnReview = (await posted()).slice(postedBeforeReview);
  await host({ type: "upsert", item: { ...review, status: "applied" } });
  out.reviewOutcome = await page.evaluate(() => document.querySelector('[data-id="approval-r1"] .outcome')?.textContent ?? null);

  // A finished edit's card offers Review diff and Revert (a running or failed one does not).
  await host({ type: "upsert", item: { kind: "tool", id: "call-e1", name: "edit", summary: "a.txt", status: "done", output: "-1 one\n+1 ONE", clipped: false, truncated: false } });
  await host({ type: "upsert", item: { kind: "tool", id: "call-e2", name: "edit", summary: "b.txt", status: "error", output: "Could not find the text", clipped: false, truncated: false } });
  out.madeButtons = await page.evaluate(() =>
    ["call-e1", "call-e2"].map((id) => [...document.querySelectorAll(`.tool-card[data-tool-call-id="${id}"] .header button:not(.open-output)`)].map((b) => b.textContent)),
  );
  const postedBeforeMade = (await posted()).length;
  await page.click('.tool-card[data-tool-call-id="call-e1"] button.review-change');
  await page.click('.tool-card[data-tool-call-id="call-e1"] button.revert-change');
  await frame();
  out.postedOnMade = (await posted()).slice(postedBeforeMade);

  out.posted = await posted();
  out.violations = await page.evaluate(() => window.__violations);
} finally {
  await browser.close();
  rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(JSON.stringify(out));
