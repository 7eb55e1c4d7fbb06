/** The Python extension's active interpreter, through its public API, when it is installed. */
import { getExtension, type Uri } from "./vscodeapi";

export const PYTHON_EXTENSION_ID = "ms-python.python";

/** The parts of the Python extension's API used here (both its current and its older form). */
export interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: Uri): { path: string } | undefined;
    resolveEnvironment(
      environment: { path: string } | string,
    ): Promise<{ executable?: { uri?: { fsPath: string } } } | undefined>;
  };
  settings?: {
    getExecutionDetails(resource?: Uri): { execCommand?: string[] | undefined };
  };
}

/** The interpreter path from the API object, or undefined if it does not tell. */
export async function interpreterFromApi(api: PythonExtensionApi, resource?: Uri): Promise<string | undefined> {
  const environments = api.environments;
  if (environments) {
    const active = environments.getActiveEnvironmentPath(resource);
    if (active) {
      const resolved = await environments.resolveEnvironment(active);
      const executable = resolved?.executable?.uri?.fsPath;
      if (executable) return executable;
    }
  }
  const execCommand = api.settings?.getExecutionDetails(resource).execCommand;
  // `execCommand` can be e.g. ["conda", "run", ...]: only a lone interpreter path is usable here.
  if (execCommand && execCommand.length === 1 && execCommand[0]) return execCommand[0];
  return undefined;
}

export async function activeInterpreter(resource?: Uri): Promise<string | undefined> {
  const extension = getExtension<PythonExtensionApi>(PYTHON_EXTENSION_ID);
  if (!extension) return undefined;
  const api = extension.isActive ? extension.exports : await extension.activate();
  return api ? interpreterFromApi(api, resource) : undefined;
}
