mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
mk "$AGENT/AGENTS.override.md" $'GLOBAL override\n'
mk "$AGENT/AGENTS.md" $'GLOBAL agents (must not appear)\n'
mk "$AGENT/CLAUDE.md" $'GLOBAL claude (must not appear)\n'
mk "$WS/AGENTS.override.md" $'WS override'
mkdir -p "$WS/proj/AGENTS.override.md"
mk "$WS/proj/AGENTS.md" $'PROJ agents\n'
