mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
mk "$AGENT/skills/both/SKILL.md" $'---\nname: both\ndescription: USER both (loses to project).\n---\nbody\n'
mk "$AGENT/skills/triple/SKILL.md" $'---\nname: triple\ndescription: USER triple (loses).\n---\nbody\n'
mk "$AGENT/skills/user-only/SKILL.md" $'---\nname: user-only\ndescription: USER only.\n---\nbody\n'
mk "$WS/proj/.pi/skills/both/SKILL.md" $'---\nname: both\ndescription: PROJECT both (wins over user).\n---\nbody\n'
mk "$WS/proj/.pi/skills/triple/SKILL.md" $'---\nname: triple\ndescription: PROJECT triple (loses to CLI).\n---\nbody\n'
mk "$WS/proj/.pi/skills/proj-only/SKILL.md" $'---\nname: proj-only\ndescription: PROJECT only.\n---\nbody\n'
mk "$WS/cli/triple/SKILL.md" $'---\nname: triple\ndescription: CLI triple (wins).\n---\nbody\n'
mk "$WS/cli/solo.md" $'---\nname: solo\ndescription: CLI single-file skill.\n---\nbody\n'
