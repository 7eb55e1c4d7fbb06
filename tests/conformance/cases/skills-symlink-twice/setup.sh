mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
mk "$WS/shared-skills/alpha/SKILL.md" $'---\nname: alpha\ndescription: Alpha, reached through two symlinks.\n---\nbody\n'
mkdir -p "$WS/proj/.pi/skills"
ln -s ../../../shared-skills/alpha "$WS/proj/.pi/skills/alpha-link"
mkdir -p "$AGENT/skills"
ln -s "$WS/shared-skills/alpha" "$AGENT/skills/alpha-again"
mk "$AGENT/skills/beta/SKILL.md" $'---\nname: beta\ndescription: Beta, plus a sibling symlink to its folder.\n---\nbody\n'
ln -s beta "$AGENT/skills/beta-link"
mk "$AGENT/skills/gamma.md" $'---\nname: gamma\ndescription: Gamma root md, plus a symlink to it that sorts first.\n---\nbody\n'
ln -s gamma.md "$AGENT/skills/a-gamma.md"
