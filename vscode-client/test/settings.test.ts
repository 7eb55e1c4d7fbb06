import * as fs from "node:fs";
import * as path from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { answerConfiguration, currentSettings } from "../src/config";
import { SERVER_KEYS, toServerSettings } from "../src/settings";
import { stub } from "./vscode-stub";

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "package.json"), "utf8"));
const properties: Record<string, { type: string; default: unknown; markdownDescription: string }> = manifest.contributes.configuration.properties;

const from = (values: Record<string, unknown>) => toServerSettings((key) => values[key]);

beforeEach(() => stub.reset());

describe("package.json declares the server's settings once", () => {
  it("has every server key of docs/protocol.md, plus the two client keys, nothing else", () => {
    expect(Object.keys(properties).sort()).toEqual(
      [...SERVER_KEYS.map((key) => `pi-lsp.${key}`), "pi-lsp.server.command", "pi-lsp.server.pythonPath"].sort(),
    );
  });

  it("declares the server's types and defaults", () => {
    expect(properties["pi-lsp.modelWindow"]).toMatchObject({ type: "integer", default: 128000, minimum: 1 });
    expect(properties["pi-lsp.debounceMs"]).toMatchObject({ type: "integer", default: 20, minimum: 0 });
    expect(properties["pi-lsp.severities"]).toMatchObject({ type: "object", default: {} });
    expect(properties["pi-lsp.agentDir"]).toMatchObject({ type: "string", default: "" });
    expect(properties["pi-lsp.rulesDocUrl"]).toMatchObject({ type: "string", default: "" });
    expect(properties["pi-lsp.judge"]).toMatchObject({ type: "boolean", default: false });
    expect(properties["pi-lsp.judgeModel"]).toMatchObject({ type: "string", default: "" });
    expect(properties["pi-lsp.judgeIdleMs"]).toMatchObject({ type: "integer", default: 5000, minimum: 0 });
  });

  it("lists the server keys in the order of docs/protocol.md's Settings table", () => {
    const protocol = fs.readFileSync(path.join(__dirname, "..", "..", "docs", "protocol.md"), "utf8");
    const table = protocol.split("\n## Settings\n")[1]!.split("\n## ")[0]!;
    const documented = [...table.matchAll(/^\| `(\w+)` \|/gm)].map((match) => match[1]!);
    expect(documented).toEqual(expect.arrayContaining([...SERVER_KEYS]));
    expect(documented.filter((key) => (SERVER_KEYS as readonly string[]).includes(key))).toEqual([...SERVER_KEYS]);
  });

  it("tells the user the judge is off by default, what it sends where, when it runs and that it costs", () => {
    const judge = properties["pi-lsp.judge"]!.markdownDescription;
    expect(judge).toMatch(/^Off by default\./);
    expect(judge).toContain("PI107");
    expect(judge).toMatch(/sends those pairs \(each instruction's text, its heading and its file's path.*\) to the model of `#pi-lsp\.judgeModel#`/);
    expect(judge).toMatch(/after you save a context file, or once the workspace has been quiet for `#pi-lsp\.judgeIdleMs#`, never per keystroke/);
    expect(judge).toMatch(/costs model calls/);
    expect(properties["pi-lsp.judgeModel"]!.markdownDescription).toMatch(/When empty: the model `pi-lsp chat` would use/);
    expect(properties["pi-lsp.judgeIdleMs"]!.markdownDescription).toMatch(/`0`: only after a save/);
  });
});

describe("settings → initializationOptions", () => {
  it("maps the declared defaults; empty strings and an empty map are left to the server", () => {
    expect(currentSettings()).toEqual({
      settings: {
        modelWindow: 128000,
        debounceMs: 20,
        fileBudgetMs: 4000,
        judge: false,
        judgeIdleMs: 5000,
        approvalMode: "never",
        approvalAllowCommands: [],
        approvalAllowPaths: [],
      },
      problems: [],
    });
  });

  it("passes every value of the right type", () => {
    stub.setConfiguration({
      "pi-lsp.agentDir": " /home/me/.pi/agent ",
      "pi-lsp.modelWindow": 200000,
      "pi-lsp.debounceMs": 0,
      "pi-lsp.fileBudgetMs": 1500,
      "pi-lsp.severities": { PI101: "error", "duplicate-instruction": "Off" },
      "pi-lsp.rulesDocUrl": "https://example.org/rules.md",
      "pi-lsp.judge": true,
      "pi-lsp.judgeModel": " anthropic/claude-haiku-4-5 ",
      "pi-lsp.judgeIdleMs": 0,
      "pi-lsp.approvalMode": "mutating",
      "pi-lsp.approvalAllowCommands": [" git status ", "", "npm test"],
      "pi-lsp.approvalAllowPaths": ["docs"],
      "pi-lsp.server.command": ["pi-lsp", "serve"],
    });
    expect(currentSettings()).toEqual({
      settings: {
        agentDir: "/home/me/.pi/agent",
        modelWindow: 200000,
        debounceMs: 0,
        fileBudgetMs: 1500,
        severities: { PI101: "error", "duplicate-instruction": "off" },
        rulesDocUrl: "https://example.org/rules.md",
        judge: true,
        judgeModel: "anthropic/claude-haiku-4-5",
        judgeIdleMs: 0,
        approvalMode: "mutating",
        approvalAllowCommands: ["git status", "npm test"],
        approvalAllowPaths: ["docs"],
      },
      problems: [],
    });
  });

  it("never sends client-only keys to the server", () => {
    stub.setConfiguration({ "pi-lsp.server.pythonPath": "/usr/bin/python3" });
    expect(Object.keys(currentSettings().settings)).not.toContain("server");
  });

  it.each([
    ["modelWindow", 0],
    ["modelWindow", 1.5],
    ["modelWindow", "128000"],
    ["modelWindow", -5],
    ["debounceMs", -1],
    ["debounceMs", true],
    ["fileBudgetMs", 0],
    ["fileBudgetMs", "4000"],
    ["agentDir", 42],
    ["rulesDocUrl", ["x"]],
    ["severities", "error"],
    ["severities", ["PI101"]],
    ["judge", "true"],
    ["judge", 1],
    ["judgeModel", 42],
    ["judgeIdleMs", -1],
    ["judgeIdleMs", 2.5],
    ["judgeIdleMs", "5000"],
    ["judgeIdleMs", false],
    ["approvalMode", "always"],
    ["approvalMode", true],
    ["approvalAllowCommands", "git status"],
    ["approvalAllowPaths", ["docs", 3]],
  ])("leaves out %s = %j and names it", (key, value) => {
    const { settings, problems } = from({ [key]: value });
    expect(settings).toEqual({});
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(`pi-lsp.${key}`);
  });

  it("keeps the good severities and reports each bad one", () => {
    const { settings, problems } = from({ severities: { PI101: "warning", PI102: "loud", PI103: 3 } });
    expect(settings).toEqual({ severities: { PI101: "warning" } });
    expect(problems).toEqual([
      'pi-lsp.severities.PI102: expected one of error, warning, information, hint, off, got "loud"',
      "pi-lsp.severities.PI103: expected one of error, warning, information, hint, off, got 3",
    ]);
  });

  it("names the judge's bad values as the server would refuse them", () => {
    expect(from({ judge: "yes", judgeIdleMs: -5 }).problems).toEqual([
      'pi-lsp.judge: expected true or false, got "yes"',
      "pi-lsp.judgeIdleMs: expected an integer ≥ 0, got -5",
    ]);
  });

  it("leaves an empty judgeModel to the server: the model `pi-lsp chat` would use", () => {
    expect(from({ judge: true, judgeModel: "  " })).toEqual({ settings: { judge: true }, problems: [] });
  });

  it("treats null and missing the same: the server's default", () => {
    expect(from({ agentDir: null, modelWindow: null, severities: null, judge: null, judgeIdleMs: null })).toEqual({ settings: {}, problems: [] });
  });
});

describe("answering workspace/configuration", () => {
  it("answers the pi-lsp section with the mapped settings, other sections as the editor does", () => {
    stub.setConfiguration({ "pi-lsp.modelWindow": "big", "pi-lsp.server.pythonPath": "/py" });
    const problems: string[][] = [];
    const scopes: (string | undefined)[] = [];
    const answers = answerConfiguration(
      [{ section: "pi-lsp", scopeUri: "file:///ws" }, { section: "files.exclude" }, {}],
      [{ modelWindow: "big", server: { pythonPath: "/py" } }, { "**/.git": true }],
      (scopeUri) => {
        scopes.push(scopeUri);
        return currentSettings();
      },
      (found) => problems.push(found),
    );
    expect(answers).toEqual([
      { debounceMs: 20, fileBudgetMs: 4000, judge: false, judgeIdleMs: 5000, approvalMode: "never", approvalAllowCommands: [], approvalAllowPaths: [] },
      { "**/.git": true },
      null,
    ]);
    expect(scopes).toEqual(["file:///ws"]);
    expect(problems).toEqual([['pi-lsp.modelWindow: expected an integer ≥ 1, got "big"']]);
  });
});
