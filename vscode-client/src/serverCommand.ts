/**
 * Which process to start: the configured command, else `<python> -m pi_lsp serve` with the
 * configured interpreter, else with the Python extension's active interpreter, else `pi-lsp
 * serve` when `pi-lsp` is on the PATH, else `python3 -m pi_lsp serve`.
 * vscode-languageclient appends `--stdio` itself.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where the command came from, for the output channel and the status item. */
  source: "setting:server.command" | "setting:server.pythonPath" | "python-extension" | "path" | "default";
}

export interface CommandInputs {
  /** `pi-lsp.server.command` as configured (an array of strings, or a single string). */
  command: unknown;
  /** `pi-lsp.server.pythonPath` as configured. */
  pythonPath: unknown;
  /** The Python extension's active interpreter; only asked when the settings give nothing. */
  activeInterpreter: () => Promise<string | undefined>;
  /** Where an executable of that name is on the PATH (default: a search of `process.env.PATH`). */
  findOnPath?: (name: string) => string | undefined;
}

export const SERVER_PROGRAM = "pi-lsp";

/** The first executable file `name` in the PATH's folders. */
export function findOnPath(name: string, searchPath = process.env.PATH ?? ""): string | undefined {
  for (const folder of searchPath.split(path.delimiter)) {
    if (folder === "") continue;
    const candidate = path.join(folder, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export const DEFAULT_PYTHON = "python3";
export const MODULE_ARGS = ["-m", "pi_lsp", "serve"];

/** `["pi-lsp", "serve"]` or `"pi-lsp serve"` → argv; anything else → undefined. */
export function commandArgv(value: unknown): string[] | undefined {
  let parts: unknown[];
  if (typeof value === "string") parts = value.trim().split(/\s+/);
  else if (Array.isArray(value)) parts = value;
  else return undefined;
  if (!parts.every((part) => typeof part === "string")) return undefined;
  const argv = (parts as string[]).filter((part) => part.trim() !== "");
  return argv.length > 0 ? argv : undefined;
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export async function resolveServerCommand(inputs: CommandInputs): Promise<ServerCommand> {
  const argv = commandArgv(inputs.command);
  if (argv !== undefined) {
    return { command: argv[0]!, args: argv.slice(1), source: "setting:server.command" };
  }
  const configured = nonEmpty(inputs.pythonPath);
  if (configured !== undefined) {
    return { command: configured, args: [...MODULE_ARGS], source: "setting:server.pythonPath" };
  }
  let active: string | undefined;
  try {
    active = nonEmpty(await inputs.activeInterpreter());
  } catch {
    active = undefined; // a Python extension that fails to answer is as good as none
  }
  if (active !== undefined) {
    return { command: active, args: [...MODULE_ARGS], source: "python-extension" };
  }
  const program = (inputs.findOnPath ?? findOnPath)(SERVER_PROGRAM);
  if (program !== undefined) {
    return { command: program, args: ["serve"], source: "path" };
  }
  return { command: DEFAULT_PYTHON, args: [...MODULE_ARGS], source: "default" };
}

/** The command line as a user would type it, for logs. */
export function formatCommand(command: ServerCommand): string {
  return [command.command, ...command.args].map((part) => (/\s/.test(part) ? JSON.stringify(part) : part)).join(" ");
}
