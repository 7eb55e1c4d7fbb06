/**
 * The `pi-lsp.*` settings → what the server reads (docs/protocol.md, "Settings").
 *
 * One mapping serves both `initializationOptions` and the answer to `workspace/configuration`
 * for the section `pi-lsp`, so the server sees the same thing either way. Values the server
 * would refuse are left out (the server keeps its default) and reported as problems; an empty
 * string means "use the server's default". Client-only keys (`server.*`) never reach the server.
 */

export const SEVERITIES = ["error", "warning", "information", "hint", "off"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** What the server accepts; every key is optional (absent = the server's default). */
export interface ServerSettings {
  agentDir?: string;
  modelWindow?: number;
  debounceMs?: number;
  fileBudgetMs?: number;
  severities?: Record<string, Severity>;
  rulesDocUrl?: string;
  /** The model judge (tier 2 of the conflict check); off unless `true`. */
  judge?: boolean;
  /** `provider/id` (or `id`) for the judge; absent: the model `pi-lsp chat` would use. */
  judgeModel?: string;
  judgeIdleMs?: number;
  /** When the chat asks before a tool call (`pi/approve`); absent: never, as Pi. */
  approvalMode?: ApprovalMode;
  approvalAllowCommands?: string[];
  approvalAllowPaths?: string[];
}

export const APPROVAL_MODES = ["never", "bash", "mutating"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** The server's keys, in the order of docs/protocol.md. */
export const SERVER_KEYS = [
  "agentDir",
  "modelWindow",
  "debounceMs",
  "fileBudgetMs",
  "severities",
  "rulesDocUrl",
  "judge",
  "judgeModel",
  "judgeIdleMs",
  "approvalMode",
  "approvalAllowCommands",
  "approvalAllowPaths",
] as const;

export interface MappedSettings {
  settings: ServerSettings;
  /** One line per value left out, naming the setting. */
  problems: string[];
}

/** Reads one key of the `pi-lsp` section; `undefined` when unset. */
export type SettingGetter = (key: string) => unknown;

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);
}

function optionalString(key: string, value: unknown, problems: string[]): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    problems.push(`pi-lsp.${key}: expected a string, got ${describe(value)}`);
    return undefined;
  }
  const trimmed = value.trim();
  return trimmed === "" ? undefined : trimmed;
}

function integerAtLeast(key: string, value: unknown, minimum: number, problems: string[]): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < minimum) {
    problems.push(`pi-lsp.${key}: expected an integer ≥ ${minimum}, got ${describe(value)}`);
    return undefined;
  }
  return value;
}

function optionalBoolean(key: string, value: unknown, problems: string[]): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") {
    problems.push(`pi-lsp.${key}: expected true or false, got ${describe(value)}`);
    return undefined;
  }
  return value;
}

function severities(value: unknown, problems: string[]): Record<string, Severity> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value)) {
    problems.push(`pi-lsp.severities: expected an object, got ${describe(value)}`);
    return undefined;
  }
  const out: Record<string, Severity> = {};
  for (const [rule, severity] of Object.entries(value as Record<string, unknown>)) {
    const name = typeof severity === "string" ? severity.trim().toLowerCase() : severity;
    if (typeof name === "string" && (SEVERITIES as readonly string[]).includes(name)) {
      out[rule.trim()] = name as Severity;
    } else {
      problems.push(
        `pi-lsp.severities.${rule}: expected one of ${SEVERITIES.join(", ")}, got ${describe(severity)}`,
      );
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function stringList(key: string, value: unknown, problems: string[]): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string")) {
    problems.push(`pi-lsp.${key}: expected a list of strings, got ${describe(value)}`);
    return undefined;
  }
  return value.map((item: string) => item.trim()).filter((item) => item !== "");
}

/** Map the editor's settings to the server's; see the module comment. */
export function toServerSettings(get: SettingGetter): MappedSettings {
  const problems: string[] = [];
  const settings: ServerSettings = {};
  const agentDir = optionalString("agentDir", get("agentDir"), problems);
  if (agentDir !== undefined) settings.agentDir = agentDir;
  const modelWindow = integerAtLeast("modelWindow", get("modelWindow"), 1, problems);
  if (modelWindow !== undefined) settings.modelWindow = modelWindow;
  const debounceMs = integerAtLeast("debounceMs", get("debounceMs"), 0, problems);
  if (debounceMs !== undefined) settings.debounceMs = debounceMs;
  const fileBudgetMs = integerAtLeast("fileBudgetMs", get("fileBudgetMs"), 1, problems);
  if (fileBudgetMs !== undefined) settings.fileBudgetMs = fileBudgetMs;
  const severityMap = severities(get("severities"), problems);
  if (severityMap !== undefined) settings.severities = severityMap;
  const rulesDocUrl = optionalString("rulesDocUrl", get("rulesDocUrl"), problems);
  if (rulesDocUrl !== undefined) settings.rulesDocUrl = rulesDocUrl;
  const judge = optionalBoolean("judge", get("judge"), problems);
  if (judge !== undefined) settings.judge = judge;
  const judgeModel = optionalString("judgeModel", get("judgeModel"), problems);
  if (judgeModel !== undefined) settings.judgeModel = judgeModel;
  const judgeIdleMs = integerAtLeast("judgeIdleMs", get("judgeIdleMs"), 0, problems);
  if (judgeIdleMs !== undefined) settings.judgeIdleMs = judgeIdleMs;
  const mode = optionalString("approvalMode", get("approvalMode"), problems);
  if (mode !== undefined) {
    const known = APPROVAL_MODES.find((m) => m === mode);
    if (known !== undefined) settings.approvalMode = known;
    else problems.push(`pi-lsp.approvalMode: expected one of ${APPROVAL_MODES.join(", ")}, got ${describe(mode)}`);
  }
  const commands = stringList("approvalAllowCommands", get("approvalAllowCommands"), problems);
  if (commands !== undefined) settings.approvalAllowCommands = commands;
  const paths = stringList("approvalAllowPaths", get("approvalAllowPaths"), problems);
  if (paths !== undefined) settings.approvalAllowPaths = paths;
  return { settings, problems };
}

/** Settings whose change needs a new server process rather than a `didChangeConfiguration`. */
export const RESTART_KEYS = ["server.command", "server.pythonPath"] as const;
