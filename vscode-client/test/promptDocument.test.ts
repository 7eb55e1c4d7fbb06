import { beforeEach, describe, expect, it } from "vitest";
import {
  cwdsToRefresh,
  formatTokens,
  PROMPT_SCHEME,
  promptLinks,
  PromptDocuments,
  renderPrompt,
  type PromptResult,
} from "../src/promptDocument";
import { registerDocumentLinkProvider } from "../src/vscodeapi";
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
    expect(uri.path).toBe("/System prompt · ws.md");
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
    expect(documents.provideTextDocumentContent(documents.uriFor("/x"))).toMatch(/no longer available/);
  });
});

describe("a live prompt document", () => {
  it("keeps one URI per cwd, so a new rendering with other figures updates the open document", () => {
    const documents = new PromptDocuments();
    const changed: string[] = [];
    documents.onDidChange((uri) => changed.push(uri.toString()));
    const first = documents.set(renderPrompt(result, "/ws", 128000), "/ws");
    const second = documents.set(renderPrompt({ ...result, tokens: 20000, text: "more" }, "/ws", 128000), "/ws");
    expect(second.toString()).toBe(first.toString());
    expect(changed).toEqual([first.toString()]);
    expect(documents.provideTextDocumentContent(first)).toContain("20,000 tokens (15.6% of 128,000)");
  });

  it("refreshes the held cwds a pi/systemPromptChanged names, changed or removed", () => {
    expect(cwdsToRefresh({ cwds: ["/a", "/b"], removed: ["/c"], reason: null }, ["/b", "/c", "/d"])).toEqual(["/b", "/c"]);
    expect(cwdsToRefresh({ cwds: "nope" }, ["/a"])).toEqual([]);
    // A folder below a working directory follows its prompt; a sibling with a shared prefix does not.
    expect(cwdsToRefresh({ cwds: ["/ws"], removed: [] }, ["/ws/src", "/wsx", "/"])).toEqual(["/ws/src"]);
    expect(cwdsToRefresh({ cwds: ["/"] }, ["/ws"])).toEqual(["/ws"]);
    expect(cwdsToRefresh({ cwds: ["C:\\ws"] }, ["C:\\ws\\src"])).toEqual(["C:\\ws\\src"]);
    expect(cwdsToRefresh(null, ["/a"])).toEqual([]);
  });

  it("holds a cwd until its document is closed", () => {
    const documents = new PromptDocuments();
    const uri = documents.set(renderPrompt(result, "/ws"), "/ws");
    documents.set(renderPrompt(result, "/other"), "/other");
    expect(documents.heldCwds().sort()).toEqual(["/other", "/ws"]);
    documents.forget(uri);
    expect(documents.heldCwds()).toEqual(["/other"]);
  });
});

describe("links from the prompt to its sources", () => {
  const text = "Base.\n\n# Project Context\n\n## /ws/AGENTS.md\n\n  Use pnpm.\n\nRun tests.\nSkill line";
  const spans = [
    { kind: "base", startLine: 0, endLine: 0 },
    { kind: "context-file", startLine: 6, endLine: 8, source: { path: "/ws/AGENTS.md", startLine: 0, endLine: 2 } },
    { kind: "skill", startLine: 9, endLine: 9, source: { path: "/ws/.pi/skills/x/SKILL.md", startLine: 3 } },
    "junk",
  ];

  it("maps each non-empty line of a context-file span to its own source line, under the header", () => {
    const lines = ["h0", "h1", ...text.split("\n")];
    expect(promptLinks(spans, 2, lines)).toEqual([
      { line: 8, startCharacter: 2, endCharacter: 11, path: "/ws/AGENTS.md", targetLine: 0 },
      { line: 10, startCharacter: 0, endCharacter: 10, path: "/ws/AGENTS.md", targetLine: 2 },
      { line: 11, startCharacter: 0, endCharacter: 10, path: "/ws/.pi/skills/x/SKILL.md", targetLine: 3 },
    ]);
  });

  it("clamps to the source's last line and stops at the document's end", () => {
    const links = promptLinks([{ kind: "context-file", startLine: 0, endLine: 5, source: { path: "/a.md", startLine: 4, endLine: 5 } }], 0, ["a", "b", "c"]);
    expect(links.map((link) => link.targetLine)).toEqual([4, 5, 5]);
  });

  it("serves the links of a held document through the link provider, as file#L<line> targets", () => {
    const documents = new PromptDocuments();
    const rendered = renderPrompt({ text, tokens: 10, spans }, "/ws");
    const uri = documents.set(rendered, "/ws");
    registerDocumentLinkProvider(PROMPT_SCHEME, (u) => documents.links(u));
    const links = stub.linkProviders.get(PROMPT_SCHEME)!.provideDocumentLinks({ uri });
    expect(links).toHaveLength(3);
    const documentLines = rendered.text.split("\n");
    expect(documentLines[links[0]!.range.startLine]).toBe("  Use pnpm.");
    expect(links[0]!.target!.toString()).toBe("file:///ws/AGENTS.md#L1");
    expect(links[1]!.target!.toString()).toBe("file:///ws/AGENTS.md#L3");
    expect(links[0]!.tooltip).toBe("/ws/AGENTS.md:1");
  });
});
