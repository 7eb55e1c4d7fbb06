import { beforeEach, describe, expect, it } from "vitest";
import { formatTokens, PROMPT_SCHEME, PromptDocuments, renderPrompt, type PromptResult } from "../src/promptDocument";
import { stub } from "./vscode-stub";

beforeEach(() => stub.reset());

const result: PromptResult = {
  text: "You are an expert coding assistant.\n\n# Project Context\n\n## /ws/AGENTS.md\n\nUse pnpm.\n",
  tools: ["read", "bash", "edit", "write"],
  tokens: 12345,
  estimate: false,
  tokenizer: "cl100k_base",
  tokensByKind: { base: 9000, "context-file": 3000, tools: 345 },
};

describe("token figures", () => {
  it("groups thousands, marks estimates, says token for one", () => {
    expect(formatTokens(12345)).toBe("12,345 tokens");
    expect(formatTokens(12345, true)).toBe("~12,345 tokens");
    expect(formatTokens(1)).toBe("1 token");
    expect(formatTokens(undefined)).toBe("? tokens");
  });
});

describe("the prompt document", () => {
  it("puts the token budget in the title and the summary", () => {
    const rendered = renderPrompt(result, "/home/me/ws", 128000);
    expect(rendered.title).toBe("System prompt · ws · 12,345 tokens");
    expect(rendered.summary).toBe("pi-lsp: system prompt for ws: 12,345 tokens (9.6% of 128,000)");
  });

  it("opens with a header of the figures, then the prompt text unchanged", () => {
    const rendered = renderPrompt(result, "/home/me/ws", 128000);
    expect(rendered.text).toBe(
      [
        "<!-- pi-lsp: system prompt for /home/me/ws",
        "     12,345 tokens (9.6% of 128,000), tokenizer cl100k_base",
        "     by kind: base 9,000 tokens, context-file 3,000 tokens, tools 345 tokens",
        "     tools: read, bash, edit, write",
        "-->",
        "",
        "",
      ].join("\n") + result.text,
    );
    expect(rendered.text.endsWith(result.text)).toBe(true);
  });

  it("copes with a bare result (estimate, no kinds, no tools, no window)", () => {
    const rendered = renderPrompt({ text: "hi", tokens: 2, estimate: true }, "C:\\work\\proj");
    expect(rendered.title).toBe("System prompt · proj · ~2 tokens");
    expect(rendered.text).toBe("<!-- pi-lsp: system prompt for C:\\work\\proj\n     ~2 tokens\n-->\n\nhi");
  });

  it("is served read-only by the content provider under its own scheme", () => {
    const documents = new PromptDocuments();
    const uri = documents.set(renderPrompt(result, "/home/me/ws"), "/home/me/ws");
    expect(uri.scheme).toBe(PROMPT_SCHEME);
    expect(uri.path).toBe("/System prompt · ws · 12,345 tokens.md");
    expect(uri.query).toBe("cwd=%2Fhome%2Fme%2Fws");
    expect(documents.provideTextDocumentContent(uri)).toContain("Use pnpm.");
  });

  it("announces a changed text of an open document, not an unchanged one", () => {
    const documents = new PromptDocuments();
    const changed: string[] = [];
    documents.onDidChange((uri) => changed.push(uri.toString()));
    const first = documents.set(renderPrompt(result, "/ws"), "/ws");
    documents.set(renderPrompt(result, "/ws"), "/ws");
    expect(changed).toEqual([]);
    documents.set(renderPrompt({ ...result, text: "changed" }, "/ws"), "/ws");
    expect(changed).toEqual([first.toString()]);
  });

  it("says so when asked for a prompt it does not hold", () => {
    const documents = new PromptDocuments();
    expect(documents.provideTextDocumentContent(documents.uriFor(renderPrompt(result, "/x"), "/x"))).toMatch(/no longer available/);
  });
});
