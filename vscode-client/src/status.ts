/** The language status item: the server's state and its last rebuild (`pi/status`). */
import { createLanguageStatusItem, type LanguageStatusItem } from "./vscodeapi";

/** The parts of the `pi/status` result used here (docs/protocol.md). */
export interface ServerStatus {
  version?: string;
  root?: string;
  workingDirectories?: string[];
  rebuilds?: number;
  lastRebuild?: { ms?: number; reason?: string[] | null } | null;
}

export type ServerState = "starting" | "running" | "stopped" | "failed";

export interface StatusView {
  text: string;
  detail: string;
  busy: boolean;
  /** 0 information, 1 warning, 2 error (VS Code's LanguageStatusSeverity). */
  severity: 0 | 1 | 2;
}

function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter((part) => part !== "");
  return parts.length > 0 ? parts[parts.length - 1]! : path;
}

export function describeRebuild(last: ServerStatus["lastRebuild"]): string {
  if (!last) return "no rebuild yet";
  const ms = typeof last.ms === "number" ? `${Math.round(last.ms)} ms` : "? ms";
  const reason = last.reason;
  if (!reason) return `last rebuild: full load, ${ms}`;
  const names = reason.slice(0, 2).map(baseName).join(", ");
  const more = reason.length > 2 ? ` +${reason.length - 2}` : "";
  return `last rebuild: ${names}${more}, ${ms}`;
}

export function statusView(state: ServerState, status?: ServerStatus, error?: string): StatusView {
  switch (state) {
    case "starting":
      return { text: "pi-lsp: starting", detail: "", busy: true, severity: 0 };
    case "stopped":
      return { text: "pi-lsp: stopped", detail: "", busy: false, severity: 1 };
    case "failed":
      return { text: "pi-lsp: failed", detail: error ?? "see the output channel", busy: false, severity: 2 };
    case "running": {
      const folders = status?.workingDirectories?.length;
      const version = status?.version ? ` ${status.version}` : "";
      const parts = [describeRebuild(status?.lastRebuild)];
      if (typeof folders === "number") parts.push(`${folders} working ${folders === 1 ? "directory" : "directories"}`);
      return { text: `pi-lsp${version}`, detail: parts.join(" · "), busy: false, severity: 0 };
    }
  }
}

export class StatusItem {
  private readonly item: LanguageStatusItem;

  constructor() {
    this.item = createLanguageStatusItem("pi-lsp.status", { language: "markdown" });
    this.item.name = "pi-lsp";
    this.item.command = { title: "Show prompt", command: "pi-lsp.showResolvedPrompt" };
    this.show("starting");
  }

  show(state: ServerState, status?: ServerStatus, error?: string): void {
    const view = statusView(state, status, error);
    this.item.text = view.text;
    this.item.detail = view.detail;
    this.item.busy = view.busy;
    this.item.severity = view.severity;
  }

  dispose(): void {
    this.item.dispose();
  }
}
