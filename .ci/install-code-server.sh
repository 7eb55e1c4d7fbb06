#!/usr/bin/env bash
# Install what the VS Code end-to-end test (tests/e2e/test_code_server.py) drives: Debian's
# Chromium and code-server 4.100.3 (VS Code 1.100.3, the last release that runs on Node 20),
# offline but for the npm registry and Debian's packages.
#
#   .ci/install-code-server.sh [DEST]
#
# DEST defaults to $PI_LSP_CODE_SERVER_DIR, else ~/.cache/pi-lsp/code-server-4.100.3 (where
# the test looks). When both are there already the script only checks them: about a second.
set -euo pipefail

VERSION=4.100.3
DEST=${1:-${PI_LSP_CODE_SERVER_DIR:-$HOME/.cache/pi-lsp/code-server-$VERSION}}
BIN=$DEST/node_modules/.bin/code-server
MANIFEST=$DEST/node_modules/code-server/package.json

missing_debs() {
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || echo "$pkg"
  done
}

apt_install() {
  local wanted
  wanted=$(missing_debs "$@")
  [ -z "$wanted" ] && return 0
  echo "install-code-server: apt-get install $(echo $wanted)"
  apt-get update -qq
  # shellcheck disable=SC2086  # one word per package
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $wanted >/dev/null
}

installed_version() {  # without running code-server, which writes a config file on any start
  [ -x "$BIN" ] && [ -f "$MANIFEST" ] && node -p "require(process.argv[1]).version" "$MANIFEST"
}

# The browser the test drives: playwright-core launches /usr/bin/chromium (it downloads none).
if [ "$(installed_version || true)" = "$VERSION" ]; then
  apt_install chromium
  echo "install-code-server: code-server $VERSION is in $DEST"
  exit 0
fi
# code-server's native modules (node-pty, @vscode/spdlog, kerberos, native-keymap...) build
# against these; ripgrep stands in for a download (below). One apt-get for all that is missing.
apt_install chromium build-essential pkg-config python3 libkrb5-dev libx11-dev libxkbfile-dev \
  libsecret-1-dev ripgrep
# node-gyp would download Node's headers; the nodejs package ships them in /usr/include/node.
if [ -z "${npm_config_nodedir:-}" ] && [ -f /usr/include/node/node.h ]; then
  export npm_config_nodedir=/usr
fi

# @vscode/ripgrep's postinstall downloads rg from GitHub, which is out of reach here. It first
# looks in its cache, $TMPDIR/vscode-ripgrep-cache-<its version>/, for the archive it would
# fetch: put Debian's rg there under that name.
case "$(uname -m)" in
  x86_64) RG_TARGET=x86_64-unknown-linux-musl ;;
  aarch64) RG_TARGET=aarch64-unknown-linux-musl ;;
  *) echo "install-code-server: no ripgrep archive name known for $(uname -m)" >&2; exit 1 ;;
esac
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/rg" "$WORK/vscode-ripgrep-cache-1.15.11"
cp "$(command -v rg)" "$WORK/rg/rg"
tar czf "$WORK/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-$RG_TARGET.tar.gz" -C "$WORK/rg" rg

mkdir -p "$DEST"
cd "$DEST"
[ -f package.json ] || echo '{"name": "pi-lsp-code-server", "version": "1.0.0", "private": true}' >package.json
echo "install-code-server: npm install code-server@$VERSION into $DEST (about 80 s)"
# --unsafe-perm: code-server's postinstall refuses to run as root without it.
# --yes: node-pty's postinstall runs `npx node-gyp`, which an npmrc with yes=false cancels.
TMPDIR=$WORK npm install "code-server@$VERSION" --unsafe-perm --yes --no-audit --no-fund \
  --loglevel=error
[ "$(installed_version)" = "$VERSION" ] || {
  echo "install-code-server: $BIN is not code-server $VERSION after the install" >&2
  exit 1
}
echo "install-code-server: code-server $VERSION installed in $DEST"
