/**
 * "Restart server" with a server that never stops by itself: the real vscode-languageclient
 * drives the extension's PiClient against test/fixtures/ignoresShutdown.mjs, which answers
 * `initialize` but never `shutdown`, ignores SIGTERM and keeps two children running (one in a
 * session of its own). After the restart the old server and its children must be gone, and
 * exactly one new server must run.
 */
import * as fs from "node:fs";
import Module from "node:module";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import * as vscode from "./vscode-stub";
import { stub } from "./vscode-stub";

// vscode-languageclient loads `vscode` with Node's require (vitest's alias does not reach it)
// and wires up far more of the editor than the stand-in has. It gets the stand-in, with an
// inert value for everything the stand-in lacks: this test is about processes, not the editor.
function inert(name: string): unknown {
  return new Proxy(function () {}, {
    get: (_, key) => {
      if (key === "then") return undefined; // not a promise
      if (key === Symbol.toPrimitive) return () => name;
      return key === "dispose" ? () => undefined : inert(`${name}.${String(key)}`);
    },
    apply: () => inert(`${name}()`),
    construct: () => inert(`new ${name}`) as object,
  });
}
function completed(target: Record<string | symbol, unknown>, name: string): Record<string | symbol, unknown> {
  return new Proxy(target, {
    get: (object, key) => {
      if (!(key in object)) return inert(`${name}.${String(key)}`);
      const value = object[key];
      const isNamespace = typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype;
      return isNamespace ? completed(value as Record<string | symbol, unknown>, String(key)) : value;
    },
  });
}
const editor = completed({ ...vscode, version: "1.100.0" }, "vscode");
const loader = Module as unknown as { _load(request: string, ...rest: unknown[]): unknown };
const load = loader._load;
loader._load = function (request: string, ...rest: unknown[]) {
  return request === "vscode" ? editor : load.call(this, request, ...rest);
};
/** The extension's modules, imported once `vscode` resolves. */
const extension = async () => ({ ...(await import("../src/client")), ...(await import("../src/vscodeapi")) });

const FIXTURE = path.join(__dirname, "fixtures", "ignoresShutdown.mjs");
const WAIT_MS = 30_000;

/** Whether a process is there (a zombie, dead but not yet reaped by its new parent, is not). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}

/** Whether `pid` goes within `ms` (a killed process's signal is delivered asynchronously). */
async function gone(pid: number, ms = 2000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; ) {
    if (!alive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return !alive(pid);
}

/** Each start of the fixture: its pid and its children's. */
function started(file: string): { server: number; children: number[] }[] {
  const text = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [server, ...children] = line.split(" ").map(Number);
      return { server: server!, children };
    });
}

describe("restarting a server that ignores shutdown", () => {
  const cleanup: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it(
    "kills the old server and its children, then starts exactly one new server",
    async () => {
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "pi-lsp-restart-"));
      const pids = path.join(tmp, "pids");
      const savedPidsFile = process.env.PIDS_FILE;
      process.env.PIDS_FILE = pids; // the server's environment is the extension host's
      cleanup.push(() => {
        if (savedPidsFile === undefined) delete process.env.PIDS_FILE;
        else process.env.PIDS_FILE = savedPidsFile;
        for (const { server, children } of started(pids)) {
          for (const pid of [server, ...children]) if (alive(pid)) process.kill(pid, "SIGKILL");
        }
        fs.rmSync(tmp, { recursive: true, force: true });
      });
      const { PiClient, createOutputChannel } = await extension();
      stub.reset();
      stub.setConfiguration({ "pi-lsp.server.command": [process.execPath, FIXTURE] });
      const output = createOutputChannel("pi-lsp");
      const states: string[] = [];
      const client = new PiClient(output, { onState: (state) => states.push(state), onPromptChanged: () => undefined });

      await client.start();
      expect(client.running).toBe(true);
      const [first] = started(pids);
      expect(first?.children).toHaveLength(2);
      expect([first!.server, ...first!.children].every(alive)).toBe(true);

      await client.restart();
      const [old, current, ...more] = started(pids);
      expect(alive(old!.server)).toBe(false); // gone before the new one started
      for (const child of old!.children) expect(await gone(child)).toBe(true);
      expect(more).toEqual([]);
      expect([current!.server, ...current!.children].every(alive)).toBe(true);
      expect(client.running).toBe(true);
      expect(states.slice(-2)).toEqual(["starting", "running"]);
      const warnings = (stub.channels.at(-1)?.lines ?? []).filter((line) => line.startsWith("warn"));
      expect(warnings.join("\n")).toMatch(/Stopping the server timed out/);
      expect(warnings.join("\n")).toContain(`the server (pid ${old!.server}) did not exit: killed it`);

      await client.stop();
      expect(alive(current!.server)).toBe(false);
      for (const child of current!.children) expect(await gone(child)).toBe(true);
      expect(started(pids)).toHaveLength(2); // nothing restarted it behind our back
    },
    WAIT_MS,
  );
});
