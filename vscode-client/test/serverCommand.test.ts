import { beforeEach, describe, expect, it, vi } from "vitest";
import { interpreterFromApi, activeInterpreter, PYTHON_EXTENSION_ID, type PythonExtensionApi } from "../src/python";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { commandArgv, findOnPath, formatCommand, resolveServerCommand } from "../src/serverCommand";
import { stub, Uri } from "./vscode-stub";

beforeEach(() => stub.reset());

describe("server command resolution order", () => {
  it("1. the configured command wins, and the Python extension is not asked", async () => {
    const activeInterpreter = vi.fn(async () => "/venv/bin/python");
    const resolved = await resolveServerCommand({
      command: ["/opt/pi-lsp/bin/pi-lsp", "serve", "--log-file", "/tmp/pi.log"],
      pythonPath: "/usr/bin/python3.12",
      activeInterpreter,
    });
    expect(resolved).toEqual({
      command: "/opt/pi-lsp/bin/pi-lsp",
      args: ["serve", "--log-file", "/tmp/pi.log"],
      source: "setting:server.command",
    });
    expect(activeInterpreter).not.toHaveBeenCalled();
  });

  it("2. else the configured interpreter runs the module", async () => {
    const resolved = await resolveServerCommand({ command: [], pythonPath: "/usr/bin/python3.12", activeInterpreter: async () => "/venv/bin/python" });
    expect(resolved).toEqual({ command: "/usr/bin/python3.12", args: ["-m", "pi_lsp", "serve"], source: "setting:server.pythonPath" });
  });

  it("3. else the Python extension's active interpreter", async () => {
    const resolved = await resolveServerCommand({ command: [], pythonPath: "  ", activeInterpreter: async () => "/venv/bin/python" });
    expect(resolved).toEqual({ command: "/venv/bin/python", args: ["-m", "pi_lsp", "serve"], source: "python-extension" });
  });

  it("4. else pi-lsp on the PATH", async () => {
    const bin = fs.mkdtempSync(path.join(os.tmpdir(), "pi-lsp-path-"));
    const program = path.join(bin, "pi-lsp");
    fs.writeFileSync(program, "#!/bin/sh\n", { mode: 0o755 });
    fs.writeFileSync(path.join(bin, "not-executable"), "", { mode: 0o644 });
    try {
      expect(findOnPath("pi-lsp", ["/nonexistent", bin].join(path.delimiter))).toBe(program);
      expect(findOnPath("not-executable", bin)).toBeUndefined();
      const resolved = await resolveServerCommand({
        command: [],
        pythonPath: "",
        activeInterpreter: async () => undefined,
        findOnPath: (name) => findOnPath(name, bin),
      });
      expect(resolved).toEqual({ command: program, args: ["serve"], source: "path" });
    } finally {
      fs.rmSync(bin, { recursive: true, force: true });
    }
  });

  it("5. else python3", async () => {
    const resolved = await resolveServerCommand({
      command: undefined,
      pythonPath: undefined,
      activeInterpreter: async () => undefined,
      findOnPath: () => undefined,
    });
    expect(resolved).toEqual({ command: "python3", args: ["-m", "pi_lsp", "serve"], source: "default" });
  });

  it("a Python extension that throws counts as none", async () => {
    const resolved = await resolveServerCommand({
      command: [],
      pythonPath: "",
      activeInterpreter: async () => {
        throw new Error("not ready");
      },
    });
    expect(resolved.source).not.toBe("python-extension");
  });

  it("reads a command given as one string, ignores unusable ones", () => {
    expect(commandArgv("pi-lsp  serve ")).toEqual(["pi-lsp", "serve"]);
    expect(commandArgv(["", "pi-lsp", "serve"])).toEqual(["pi-lsp", "serve"]);
    expect(commandArgv([])).toBeUndefined();
    expect(commandArgv("   ")).toBeUndefined();
    expect(commandArgv(["pi-lsp", 3])).toBeUndefined();
    expect(commandArgv({ command: "pi-lsp" })).toBeUndefined();
  });

  it("formats the command line for the log", () => {
    expect(formatCommand({ command: "/My Env/python", args: ["-m", "pi_lsp", "serve"], source: "default" })).toBe(
      '"/My Env/python" -m pi_lsp serve',
    );
  });
});

describe("the Python extension's API", () => {
  it("resolves the active environment to its executable", async () => {
    const api: PythonExtensionApi = {
      environments: {
        getActiveEnvironmentPath: () => ({ path: "/proj/.venv" }),
        resolveEnvironment: async () => ({ executable: { uri: { fsPath: "/proj/.venv/bin/python" } } }),
      },
    };
    expect(await interpreterFromApi(api)).toBe("/proj/.venv/bin/python");
  });

  it("falls back to the older settings API, only for a lone interpreter", async () => {
    expect(await interpreterFromApi({ settings: { getExecutionDetails: () => ({ execCommand: ["/usr/bin/python3"] }) } })).toBe("/usr/bin/python3");
    expect(await interpreterFromApi({ settings: { getExecutionDetails: () => ({ execCommand: ["conda", "run", "-n", "x", "python"] }) } })).toBeUndefined();
    expect(await interpreterFromApi({})).toBeUndefined();
  });

  it("is undefined without the extension, and activates it when needed", async () => {
    expect(await activeInterpreter()).toBeUndefined();
    const activate = vi.fn(async () => ({ settings: { getExecutionDetails: () => ({ execCommand: ["/x/python"] }) } }));
    stub.extensions.set(PYTHON_EXTENSION_ID, { isActive: false, exports: undefined, activate });
    expect(await activeInterpreter(Uri.file("/proj/a.md") as never)).toBe("/x/python");
    expect(activate).toHaveBeenCalledOnce();
  });
});
