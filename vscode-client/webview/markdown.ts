/**
 * Model text → safe HTML. markdown-it with raw HTML off (tags in the text come out as text),
 * links only to web pages and mail, images shown as links (the page loads nothing from outside),
 * code highlighted by highlight.js (a few common languages), and everything passed through
 * DOMPurify with a short allow-list as a second fence.
 */
import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import MarkdownIt from "markdown-it";
import { isSafeLink, safeHref } from "../src/chat/protocol";

const LANGUAGES = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
hljs.registerAliases(["sh", "zsh", "console"], { languageName: "bash" });
hljs.registerAliases(["html", "svg"], { languageName: "xml" });
hljs.registerAliases(["py"], { languageName: "python" });
hljs.registerAliases(["ts", "tsx"], { languageName: "typescript" });
hljs.registerAliases(["js", "jsx", "mjs", "cjs"], { languageName: "javascript" });
hljs.registerAliases(["yml"], { languageName: "yaml" });
hljs.registerAliases(["rs"], { languageName: "rust" });
hljs.registerAliases(["md"], { languageName: "markdown" });
hljs.registerAliases(["patch"], { languageName: "diff" });

function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

const md = new MarkdownIt({
  html: false,
  linkify: true,
  breaks: false,
  highlight(code, lang) {
    const name = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
    if (name !== "" && hljs.getLanguage(name)) {
      try {
        return hljs.highlight(code, { language: name, ignoreIllegals: true }).value;
      } catch {
        // fall through to plain text
      }
    }
    return escapeHtml(code);
  },
});

// Bare addresses become links only with their scheme ("README.md" is not a web site).
md.linkify.set({ fuzzyLink: false });

// Only web and mail links become links; anything else (javascript:, data:, vscode:, file:,
// relative paths) stays text.
md.validateLink = (url: string) => isSafeLink(url);

// Images are not loaded: an image becomes a link to it (or its alt text).
md.renderer.rules.image = (tokens, index) => {
  const token = tokens[index]!;
  const src = String(token.attrGet("src") ?? "");
  const alt = token.content || "image";
  const href = safeHref(src);
  return href !== undefined ? `<a href="${escapeHtml(href)}">${escapeHtml(alt)}</a>` : escapeHtml(alt);
};

const ALLOWED_TAGS = [
  "a", "b", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i",
  "li", "ol", "p", "pre", "s", "span", "strong", "sub", "sup", "table", "tbody", "td", "th", "thead", "tr", "ul",
];

DOMPurify.addHook("afterSanitizeAttributes", (node) => {
  if (node.tagName === "A") {
    // Web pages, and mail addresses without their query (no `?attach=…`): VS Code opens these
    // links itself when they are clicked (webview/main.ts), so what stays here is what opens.
    const href = safeHref(node.getAttribute("href") ?? "");
    if (href === undefined) {
      node.removeAttribute("href");
    } else {
      node.setAttribute("href", href);
      node.setAttribute("title", href);
    }
  }
  // Only highlight.js's own classes and markdown-it's language class.
  const classes = node.getAttribute("class");
  if (classes !== null) {
    const kept = classes.split(/\s+/).filter((name) => /^(hljs(-[\w-]+)?|language-[\w+#.-]+)$/.test(name));
    if (kept.length > 0) node.setAttribute("class", kept.join(" "));
    else node.removeAttribute("class");
  }
});

/** Safe HTML for `text` as Markdown. */
export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(md.render(text), {
    ALLOWED_TAGS,
    ALLOWED_ATTR: ["href", "title", "class", "start", "align"],
    ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
  });
}
