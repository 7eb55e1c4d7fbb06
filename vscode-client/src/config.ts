/** The editor's `pi-lsp` section, read through the vscode wrapper and mapped for the server. */
import { toServerSettings, type MappedSettings } from "./settings";
import { getSection, SECTION, type Uri } from "./vscodeapi";

/** The server's settings for a scope (a folder or file of the workspace; none = the window). */
export function currentSettings(scope?: Uri): MappedSettings {
  const section = getSection(scope);
  return toServerSettings((key) => section.get(key));
}

/** The two client-only settings that choose the server process. */
export function serverSettings(): { command: unknown; pythonPath: unknown } {
  const section = getSection();
  return { command: section.get("server.command"), pythonPath: section.get("server.pythonPath") };
}

/** A `workspace/configuration` item, as the server sends it. */
export interface ConfigurationItem {
  section?: string;
  scopeUri?: string;
}

/**
 * Answers to `workspace/configuration`: the mapped settings for each `pi-lsp` item (the server
 * must not see client-only keys or values it would refuse), the editor's own answer otherwise.
 */
export function answerConfiguration(
  items: readonly ConfigurationItem[],
  editorAnswers: readonly unknown[],
  settingsFor: (scopeUri: string | undefined) => MappedSettings,
  onProblems: (problems: string[]) => void,
): unknown[] {
  return items.map((item, index) => {
    if (item.section !== SECTION) return editorAnswers[index] ?? null;
    const mapped = settingsFor(item.scopeUri);
    onProblems(mapped.problems);
    return mapped.settings;
  });
}
