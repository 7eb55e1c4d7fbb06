/**
 * `python -m pi_lsp serve` for the integration tests: started as the extension starts it
 * (resolveServerCommand, `--stdio`), with the test's HOME and without the runner's PI_*
 * variables, spoken to over a plain JSON-RPC connection, and stopped with shutdown + exit.
 */
import { spawn, type ChildProcess } from "node:child_process";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import {
  createProtocolConnection,
  StreamMessageReader,
  StreamMessageWriter,
  type ProtocolConnection,
} from "vscode-languageserver-protocol/node";
import { resolveServerCommand } from "../src/serverCommand";

export interface ServerUnderTest {
  readonly process: ChildProcess;
  readonly connection: ProtocolConnection;
  /** What the server wrote to stderr so far (its log). */
  stderr(): string;
  /** shutdown + exit, then the process is killed if it is still there. */
  stop(): Promise<void>;
}

export interface ServerOptions {
  python: string;
  /** The test's folder: HOME is `<tmp>/home`. */
  tmp: string;
  /** The workspace folder (named "ws"). */
  root: string;
  capabilities: object;
  initializationOptions: unknown;
  /** More environment (TMPDIR, …). */
  env?: Record<string, string>;
  /** Handlers to register before the connection listens. */
  handle?(connection: ProtocolConnection): void;
}

export async function startServer(options: ServerOptions): Promise<ServerUnderTest> {
  const command = await resolveServerCommand({ command: [], pythonPath: options.python, activeInterpreter: async () => undefined });
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("PI_")));
  env.HOME = path.join(options.tmp, "home");
  Object.assign(env, options.env);
  const child = spawn(command.command, [...command.args, "--stdio"], { env, stdio: ["pipe", "pipe", "pipe"] });
  let log = "";
  child.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  options.handle?.(connection);
  connection.listen();
  const uri = pathToFileURL(options.root).href;
  await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: uri,
    workspaceFolders: [{ uri, name: "ws" }],
    capabilities: options.capabilities,
    initializationOptions: options.initializationOptions,
  });
  connection.sendNotification("initialized", {});
  return {
    process: child,
    connection,
    stderr: () => log,
    async stop() {
      try {
        await connection.sendRequest("shutdown");
        await connection.sendNotification("exit").catch(() => undefined); // the server may be gone already
      } catch {
        // the server is gone already
      }
      connection.dispose();
      child.kill();
    },
  };
}
