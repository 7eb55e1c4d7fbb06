/**
 * The chat view's HTML shell and its Content-Security-Policy. No editor API here, so the browser
 * test (tests/e2e/test_webview_chromium.py) serves exactly this page.
 */

/** A nonce for the page's script and style tags: 128 random bits. */
export function makeNonce(random: (bytes: Uint8Array) => Uint8Array = (bytes) => crypto.getRandomValues(bytes)): string {
  return Buffer.from(random(new Uint8Array(16))).toString("base64").replace(/[^A-Za-z0-9]/g, "");
}

export interface PageParts {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

function attr(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** The page's Content-Security-Policy. */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
  ].join("; ");
}

/** The chat page: a shell the script fills in (webview/main.ts). */
export function chatHtml(parts: PageParts): string {
  const nonce = attr(parts.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(parts.cspSource, parts.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" href="${attr(parts.styleUri)}">
<title>pi-lsp chat</title>
</head>
<body>
<div id="app"></div>
<script nonce="${nonce}" src="${attr(parts.scriptUri)}"></script>
</body>
</html>`;
}
