/**
 * Which process to start: the configured command, else `<python> -m pi_lsp serve` with the
 * configured interpreter, else the Python extension's active interpreter, else `python3`.
 * vscode-languageclient appends `--stdio` itself.
 */

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where the command came from, for the output channel and the status item. */
  source: "setting:server.command" | "setting:server.pythonPath" | "python-extension" | "default";
}

export interface CommandInputs {
  /** `pi-lsp.server.command` as configured (an array of strings, or a single string). */
  command: unknown;
  /** `pi-lsp.server.pythonPath` as configured. */
  pythonPath: unknown;
  /** The Python extension's active interpreter; only asked when the settings give nothing. */
  activeInterpreter: () => Promise<string | undefined>;
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
  return { command: DEFAULT_PYTHON, args: [...MODULE_ARGS], source: "default" };
}

/** The command line as a user would type it, for logs. */
export function formatCommand(command: ServerCommand): string {
  return [command.command, ...command.args].map((part) => (/\s/.test(part) ? JSON.stringify(part) : part)).join(" ");
}
