/**
 * The `pi/session/tree` result (the JSON of `pi-lsp session tree --json`) as tree view nodes,
 * plain data only (sessionTree.ts hands them to the editor).
 *
 * Made to stay readable for a session of a thousand entries:
 * - a segment's entries are grouped into turns: a user message is a node whose children are
 *   what followed it (assistant messages, model changes…), and the tool results of an
 *   assistant message hang, collapsed, under that message;
 * - compactions and branch summaries stand at the top level with icons of their own and their
 *   summary in the tooltip;
 * - the segments forking off a segment's last entry become branch nodes after it (the one on
 *   the active path expanded, the others collapsed);
 * - when a segment has more than CHUNK_AFTER top-level nodes, all but the last KEEP_RECENT are
 *   folded into collapsed groups of CHUNK_SIZE ("Turns 1–25");
 * - the leaf is marked ("← leaf" and its own icon) and the nodes on the way to it are expanded;
 *   labels set with Pi's /label are shown as the description.
 */
import type { TreeItemSpec } from "./vscodeapi";

export const CHUNK_AFTER = 40;
export const KEEP_RECENT = 15;
export const CHUNK_SIZE = 25;

/** One entry as `pi/session/tree` describes it. */
export interface TreeEntry {
  id: string | null;
  parentId?: string | null;
  type: string;
  timestamp?: string | null;
  description: string;
  role?: string;
  toolNames?: string[];
  summary?: string;
  fromId?: string | null;
  firstKeptEntryId?: string | null;
  tokensBefore?: number | null;
  label?: string;
  leaf?: boolean;
  activePath?: boolean;
}

export interface TreeSegment {
  entries: TreeEntry[];
  children: TreeSegment[];
}

export interface SessionTreeResult {
  file?: string | null;
  sessionId?: string;
  cwd?: string;
  name?: string | null;
  leafId?: string | null;
  entryCount?: number;
  countsByType?: Record<string, number>;
  roots: TreeSegment[];
}

export interface SessionNode {
  spec: TreeItemSpec;
  children: SessionNode[];
  /** The entry the node stands for (navigation target); absent for groups. */
  entry?: TreeEntry;
  /** Entries below (itself included). */
  count: number;
  containsLeaf: boolean;
}

/** Escape text for Markdown (every ASCII punctuation a renderer might take as syntax). */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~=:]/g, (c) => `\\${c}`);
}

function figure(count: number): string {
  return count.toLocaleString("en-US");
}

/** The short text of an entry: its description without the type word the icon already shows. */
export function entryLabel(entry: TreeEntry): string {
  if (entry.type === "compaction") return `Compaction: ${entry.summary || "(empty summary)"}`;
  if (entry.type === "branch_summary") return `Branch summary: ${entry.summary || "(empty)"}`;
  const settings: Record<string, string> = { model_change: "Model", thinking_level_change: "Thinking" };
  if (entry.type in settings) {
    const value = entry.description.startsWith(`${entry.type} `) ? entry.description.slice(entry.type.length + 1) : entry.description;
    return `${settings[entry.type]}: ${value}`;
  }
  let text = entry.description;
  if (entry.type === "message" && entry.role) {
    const prefix = `${entry.role} `;
    if (text.startsWith(prefix)) text = text.slice(prefix.length);
    else if (text === entry.role) text = "";
    const quoted = /^"(.*)"(.*)$/.exec(text);
    if (quoted) text = `${quoted[1]}${quoted[2]}`;
    if (text.trim() === "") text = entry.role;
  }
  return text;
}

function entryIcon(entry: TreeEntry): { icon: string; iconColor?: string } {
  if (entry.leaf) return { icon: "debug-stackframe", iconColor: "charts.green" };
  switch (entry.type) {
    case "compaction":
      return { icon: "fold", iconColor: "charts.purple" };
    case "branch_summary":
      return { icon: "git-merge", iconColor: "charts.blue" };
    case "model_change":
      return { icon: "symbol-class" };
    case "thinking_level_change":
      return { icon: "lightbulb" };
    case "label":
      return { icon: "tag" };
    case "session_info":
      return { icon: "info" };
    case "custom":
    case "custom_message":
      return { icon: "extensions" };
  }
  if (entry.type !== "message") return { icon: "circle-small" };
  switch (entry.role) {
    case "user":
      return { icon: "account" };
    case "assistant":
      return entry.description.includes("[error") ? { icon: "warning", iconColor: "charts.yellow" } : { icon: "hubot" };
    case "toolResult":
      return entry.description.endsWith("[error]") ? { icon: "error", iconColor: "charts.red" } : { icon: "tools" };
    case "bashExecution":
      return { icon: "terminal" };
    default:
      return { icon: "comment" };
  }
}

function kindName(entry: TreeEntry): string {
  if (entry.type === "message") {
    const role = entry.role ?? "message";
    return { user: "User message", assistant: "Assistant message", toolResult: "Tool result", bashExecution: "Bash execution" }[role] ?? `${role} message`;
  }
  return { compaction: "Compaction", branch_summary: "Branch summary", model_change: "Model change", thinking_level_change: "Thinking level" }[entry.type] ?? entry.type;
}

/** The tooltip (Markdown, every piece of session text escaped). */
export function entryTooltip(entry: TreeEntry): string {
  const lines = [`**${escapeMarkdown(kindName(entry))}**${entry.id ? ` · \`${entry.id.replace(/`/g, "")}\`` : ""}`];
  const facts: string[] = [];
  if (entry.timestamp) facts.push(escapeMarkdown(entry.timestamp.replace("T", " ").replace(/\.\d+Z$/, "Z")));
  if (entry.leaf) facts.push("**leaf** (the conversation continues here)");
  else if (entry.activePath === false) facts.push("not on the active branch");
  if (entry.label) facts.push(`label: ${escapeMarkdown(entry.label)}`);
  if (facts.length > 0) lines.push(facts.join(" · "));
  if (entry.type === "compaction") {
    const parts: string[] = [];
    if (typeof entry.tokensBefore === "number") parts.push(`${figure(entry.tokensBefore)} tokens before`);
    if (entry.firstKeptEntryId) parts.push(`keeps from ${escapeMarkdown(entry.firstKeptEntryId)}`);
    if (parts.length > 0) lines.push(parts.join(" · "));
  }
  if (entry.type === "branch_summary" && entry.fromId) lines.push(`summarises the branch left at ${escapeMarkdown(entry.fromId)}`);
  const body =
    entry.type === "compaction" || entry.type === "branch_summary"
      ? `---\n\n${entry.summary ? escapeMarkdown(entry.summary) : "_(empty summary)_"}`
      : escapeMarkdown(entry.description);
  return `${lines.join("  \n")}\n\n${body}`;
}

class Ids {
  private anonymous = 0;
  entry(entry: TreeEntry): string {
    return entry.id ? `entry:${entry.id}` : `entry:?${++this.anonymous}`;
  }
  group(kind: string, first: SessionNode): string {
    return `${kind}:${first.spec.id}`;
  }
}

function entryNode(entry: TreeEntry, ids: Ids): SessionNode {
  const description: string[] = [];
  if (entry.label) description.push(`[${entry.label}]`);
  if (entry.leaf) description.push("← leaf");
  return {
    spec: {
      id: ids.entry(entry),
      label: entryLabel(entry),
      ...(description.length > 0 ? { description: description.join(" ") } : {}),
      tooltip: entryTooltip(entry),
      ...entryIcon(entry),
      collapsible: "none",
      contextValue: entry.leaf ? "entry.leaf" : "entry",
    },
    children: [],
    entry,
    count: 1,
    containsLeaf: entry.leaf === true,
  };
}

function addChild(parent: SessionNode, child: SessionNode): void {
  parent.children.push(child);
  parent.count += child.count;
  parent.containsLeaf ||= child.containsLeaf;
}

/** Expand what leads to the leaf; give a parent of nodes a count in its description. */
function settle(node: SessionNode): void {
  if (node.children.length === 0) return;
  node.spec.collapsible = node.containsLeaf ? "expanded" : "collapsed";
  if (node.entry) {
    const more = `+${node.count - 1}`;
    node.spec.description = node.spec.description ? `${node.spec.description} · ${more}` : more;
  }
}

interface Built {
  nodes: SessionNode[];
  turns: number;
}

function buildSegment(segment: TreeSegment, turnBase: number, ids: Ids): Built {
  const items: SessionNode[] = [];
  let turn: SessionNode | undefined;
  let assistant: SessionNode | undefined;
  let turns = 0;
  for (const entry of segment.entries) {
    const node = entryNode(entry, ids);
    const role = entry.type === "message" ? entry.role : undefined;
    if (role === "user") {
      turns += 1;
      items.push(node);
      turn = node;
      assistant = undefined;
    } else if (entry.type === "compaction" || entry.type === "branch_summary") {
      items.push(node);
      turn = undefined;
      assistant = undefined;
    } else if (role === "toolResult" && assistant !== undefined) {
      assistant.children.push(node);
    } else {
      if (turn !== undefined) turn.children.push(node);
      else items.push(node);
      assistant = role === "assistant" ? node : undefined;
    }
  }
  // Counts and the leaf, bottom up (a turn's count includes its assistants' tool results).
  const recount = (node: SessionNode): void => {
    node.children.forEach(recount);
    if (node.children.length > 0) {
      node.count = 1 + node.children.reduce((sum, child) => sum + child.count, 0);
      node.containsLeaf = node.entry?.leaf === true || node.children.some((child) => child.containsLeaf);
    }
    settle(node);
  };
  items.forEach(recount);

  let branchTurns = 0;
  for (const child of segment.children) {
    const built = buildSegment(child, turnBase + turns, ids);
    branchTurns = Math.max(branchTurns, built.turns);
    const first = child.entries[0];
    const onPath = first?.activePath === true;
    const branch: SessionNode = {
      spec: {
        id: "",
        label: first ? entryLabel(first) : "(empty branch)",
        tooltip: `**Branch** from \`${(segment.entries[segment.entries.length - 1]?.id ?? "?").replace(/`/g, "")}\`${onPath ? " · the active branch" : ""}`,
        icon: "git-branch",
        ...(onPath ? { iconColor: "charts.green" } : {}),
        collapsible: "collapsed",
        contextValue: "branch",
      },
      children: [],
      count: 0,
      containsLeaf: false,
    };
    for (const node of built.nodes) addChild(branch, node);
    branch.spec.id = built.nodes[0] ? ids.group("branch", built.nodes[0]) : `branch:empty${turnBase}`;
    branch.spec.description = `branch · ${figure(branch.count)} ${branch.count === 1 ? "entry" : "entries"}${onPath ? " · active" : ""}`;
    branch.spec.collapsible = onPath || branch.containsLeaf ? "expanded" : "collapsed";
    items.push(branch);
  }
  return { nodes: chunk(items, turnBase, ids), turns: turns + branchTurns };
}

/** Fold all but the most recent top-level nodes into groups when there are many. */
function chunk(items: SessionNode[], turnBase: number, ids: Ids): SessionNode[] {
  if (items.length <= CHUNK_AFTER) return items;
  const older = items.slice(0, items.length - KEEP_RECENT);
  const groups: SessionNode[] = [];
  let turn = turnBase;
  for (let start = 0; start < older.length; start += CHUNK_SIZE) {
    const members = older.slice(start, start + CHUNK_SIZE);
    const turnsHere = members.filter((node) => node.entry?.role === "user").length;
    const label = turnsHere > 0 ? `Turns ${turn + 1}–${turn + turnsHere}` : "Entries";
    turn += turnsHere;
    const group: SessionNode = {
      spec: { id: ids.group("group", members[0]!), label, icon: "list-unordered", collapsible: "collapsed", contextValue: "group" },
      children: [],
      count: 0,
      containsLeaf: false,
    };
    for (const node of members) addChild(group, node);
    const compactions = members.filter((node) => node.entry?.type === "compaction").length;
    group.spec.description = `${figure(group.count)} entries${compactions > 0 ? ` · ${compactions} ${compactions === 1 ? "compaction" : "compactions"}` : ""}`;
    group.spec.collapsible = group.containsLeaf ? "expanded" : "collapsed";
    groups.push(group);
  }
  return [...groups, ...items.slice(items.length - KEEP_RECENT)];
}

/** The top-level nodes of a tree result. */
export function buildSessionNodes(result: SessionTreeResult): SessionNode[] {
  const ids = new Ids();
  const nodes: SessionNode[] = [];
  let turns = 0;
  for (const root of result.roots ?? []) {
    const built = buildSegment(root, turns, ids);
    turns += built.turns;
    nodes.push(...built.nodes);
  }
  return nodes;
}

/** A few words for the view's title bar. */
export function treeDescription(result: SessionTreeResult): string {
  const parts: string[] = [];
  if (result.name) parts.push(result.name);
  if (typeof result.entryCount === "number") parts.push(`${figure(result.entryCount)} ${result.entryCount === 1 ? "entry" : "entries"}`);
  const compactions = result.countsByType?.compaction;
  if (compactions) parts.push(`${compactions} ${compactions === 1 ? "compaction" : "compactions"}`);
  return parts.join(" · ");
}
