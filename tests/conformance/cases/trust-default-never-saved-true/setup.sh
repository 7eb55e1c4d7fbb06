mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
mk "$AGENT/settings.json" $'{\n  "defaultProjectTrust": "never"\n}\n'
mk "$AGENT/APPEND_SYSTEM.md" $'GLOBAL APPEND (used when the project is untrusted)'
mk "$WS/proj/.pi/APPEND_SYSTEM.md" $'PROJECT APPEND (used only when trusted)'
mk "$WS/proj/.pi/skills/proj-skill/SKILL.md" $'---\nname: proj-skill\ndescription: Project skill (listed only when trusted).\n---\nbody\n'
python3 -c 'import json,os,sys; json.dump({os.path.realpath(sys.argv[1]): True}, open(sys.argv[2],"w"), indent=2)' "$WS/proj" "$AGENT/trust.json"
