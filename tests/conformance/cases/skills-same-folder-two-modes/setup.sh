mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
mk "$WS/proj/.agents/skills/dir-skill/SKILL.md" $'---\nname: dir-skill\ndescription: SKILL.md folder (found by both scans).\n---\nbody\n'
mk "$WS/proj/.agents/skills/group/nested.md" $'---\nname: nested\ndescription: Nested md (collected only by the .agents rules).\n---\nbody\n'
mk "$WS/proj/.agents/skills/top.md" $'---\nname: top\ndescription: Top-level md (collected only by the agent-dir rules).\n---\nbody\n'
# the agent dir's skills folder is the same folder (absolute link: survives the oracle's copy)
ln -s "$WS/proj/.agents/skills" "$AGENT/skills"
