import * as path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    // The editor API exists only inside VS Code: tests get a small stand-in.
    alias: { vscode: path.join(__dirname, "test", "vscode-stub.ts") },
  },
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
  },
});
