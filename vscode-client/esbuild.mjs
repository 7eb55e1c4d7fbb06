// Three outputs: src/extension.ts (with vscode-languageclient) into dist/extension.js (CommonJS,
// Node); the chat view's page script webview/main.ts (markdown-it, DOMPurify, highlight.js) into
// dist/webview.js (an IIFE for the browser); its style sheet webview/chat.css into dist/chat.css.
// The chat page loads only from dist/. `--production` minifies without sourcemaps; `--watch`
// rebuilds on change.
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");

const common = {
  bundle: true,
  sourcemap: !production,
  minify: production,
  logLevel: "warning",
};

const builds = [
  {
    ...common,
    entryPoints: ["src/extension.ts"],
    outfile: "dist/extension.js",
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["vscode"],
  },
  {
    ...common,
    entryPoints: ["webview/main.ts"],
    outfile: "dist/webview.js",
    platform: "browser",
    format: "iife",
    target: "chrome120",
  },
  {
    ...common,
    entryPoints: ["webview/chat.css"],
    outfile: "dist/chat.css",
    sourcemap: false,
  },
];

if (watch) {
  for (const options of builds) {
    const context = await esbuild.context(options);
    await context.watch();
  }
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
