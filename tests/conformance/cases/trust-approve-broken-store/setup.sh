mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
mk "$AGENT/trust.json" $'{ "this is": not json\n'
mk "$AGENT/APPEND_SYSTEM.md" $'GLOBAL APPEND (used when the project is untrusted)'
mk "$WS/proj/.pi/APPEND_SYSTEM.md" $'PROJECT APPEND (used only when trusted)'
mk "$WS/proj/.pi/skills/proj-skill/SKILL.md" $'---\nname: proj-skill\ndescription: Project skill (listed only when trusted).\n---\nbody\n'
