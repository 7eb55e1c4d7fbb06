import * as fs from "node:fs";
import * as path from "node:path";
import { expect, it } from "vitest";

// vsce packs vscode-client/LICENSE; it must stay the repository's license, word for word.
it("ships the repository's license", () => {
  const read = (...parts: string[]) => fs.readFileSync(path.join(__dirname, ...parts), "utf8");
  expect(read("..", "LICENSE")).toBe(read("..", "..", "LICENSE"));
  expect(JSON.parse(read("..", "package.json")).license).toBe("MIT");
});
