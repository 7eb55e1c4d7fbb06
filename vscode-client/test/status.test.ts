import { describe, expect, it } from "vitest";
import { describeRebuild, statusView } from "../src/status";

describe("the language status item", () => {
  it("shows the server's version, its last rebuild and its working directories", () => {
    const view = statusView("running", {
      version: "0.1.0",
      workingDirectories: ["/ws", "/ws/pkg"],
      rebuilds: 3,
      lastRebuild: { ms: 12.4, reason: ["/ws/pkg/AGENTS.md"] },
    });
    expect(view).toEqual({
      text: "pi-lsp 0.1.0",
      detail: "last rebuild: AGENTS.md, 12 ms · 2 working directories",
      busy: false,
      severity: 0,
    });
  });

  it("names a full load and shortens long reasons", () => {
    expect(describeRebuild({ ms: 80, reason: null })).toBe("last rebuild: full load, 80 ms");
    expect(describeRebuild({ ms: 5, reason: ["/a/SKILL.md", "/b/AGENTS.md", "/c/x", "/d/y"] })).toBe(
      "last rebuild: SKILL.md, AGENTS.md +2, 5 ms",
    );
    expect(describeRebuild(null)).toBe("no rebuild yet");
  });

  it("shows starting as busy and a failure as an error with its reason", () => {
    expect(statusView("starting")).toMatchObject({ text: "pi-lsp: starting", busy: true });
    expect(statusView("stopped")).toMatchObject({ text: "pi-lsp: stopped", severity: 1 });
    expect(statusView("failed", undefined, "python3: ENOENT")).toMatchObject({ detail: "python3: ENOENT", severity: 2 });
  });
});
