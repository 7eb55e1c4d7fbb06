/**
 * The server's process and everything it starts, ended together.
 *
 * A server that does not answer `shutdown` keeps running after the client gives up on it
 * ("Stopping the server timed out"); and a server that did stop may leave children (a tool's
 * shell, a wrapper's interpreter). On POSIX the server leads a process group of its own
 * (`detached`), and ending it kills that group and every process below the server with the
 * groups they lead (the server runs a tool's shell in a session of its own, so the group alone
 * would miss it); descendants are found in /proc on Linux, else with `ps`. On Windows
 * `taskkill /T` ends the tree below the pid.
 */
import { execFile, spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import * as fs from "node:fs";

const isWindows = process.platform === "win32";

/** How long a process may take to go once it has been killed (SIGKILL cannot be refused). */
const KILLED_EXIT_MS = 5_000;

/** Start `command` with pipes on stdin, stdout and stderr, as the leader of its own process group. */
export function spawnTree(command: string, args: readonly string[], options: SpawnOptions = {}): ChildProcess {
  return spawn(command, args, { ...options, stdio: "pipe", detached: !isWindows, windowsHide: true });
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves when `child` has exited (true), or after `ms` (false). */
export function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (hasExited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off("exit", onExit);
      resolve(hasExited(child));
    }, ms);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once("exit", onExit);
  });
}

/** Parent pid → child pids of every process, from /proc (Linux). */
function procChildren(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // it ended meanwhile
    }
    // "pid (command) state ppid …": the command may hold spaces and parentheses
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  return children;
}

/** Parent pid → child pids of every process, from `ps` (POSIX without /proc). */
function psChildren(): Promise<Map<number, number[]>> {
  return new Promise((resolve) =>
    execFile("ps", ["-A", "-o", "pid=", "-o", "ppid="], (error, stdout) => {
      const children = new Map<number, number[]>();
      if (!error) {
        for (const line of stdout.split("\n")) {
          const [pid, ppid] = line.trim().split(/\s+/).map(Number);
          if (pid && ppid !== undefined) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
        }
      }
      resolve(children);
    }),
  );
}

/** `pid` and every process below it, parents first. */
async function tree(pid: number): Promise<number[]> {
  const children = fs.existsSync("/proc/self/stat") ? procChildren() : await psChildren();
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(children.get(out[i]!) ?? []));
  return out;
}

function kill(target: number): void {
  try {
    process.kill(target, "SIGKILL");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error; // gone already
  }
}

/** Kill `pid`, the processes below it and the process groups they lead; what is gone already is fine. */
export async function killTree(pid: number): Promise<void> {
  if (isWindows) {
    return new Promise((resolve) => execFile("taskkill", ["/PID", String(pid), "/T", "/F"], () => resolve()));
  }
  const below = await tree(pid); // before killing: a killed parent's children move to init
  kill(-pid);
  for (const member of below) {
    kill(-member); // a group only if it leads one (no group has another leader's id)
    kill(member);
  }
}

/**
 * Give `child` `graceMs` to exit on its own, then kill its tree and wait for it to go.
 * Its group is ended either way (children it left behind go too). Resolves to whether it had
 * to be killed.
 */
export async function endTree(child: ChildProcess, graceMs: number): Promise<boolean> {
  const pid = child.pid;
  if (pid === undefined) return false; // it never started
  const left = await exited(child, graceMs);
  if (left && isWindows) return false; // taskkill needs the parent to find the tree
  await killTree(pid);
  if (!left) await exited(child, KILLED_EXIT_MS);
  return !left;
}
