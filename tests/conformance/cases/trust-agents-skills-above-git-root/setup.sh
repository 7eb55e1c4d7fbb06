mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
git -c init.defaultBranch=main init -q "$WS/repo"
mk "$WS/.agents/skills/above-root/SKILL.md" $'---\nname: above-root\ndescription: Above the git root (never loaded).\n---\nbody\n'
mk "$WS/repo/.agents/skills/at-root/SKILL.md" $'---\nname: at-root\ndescription: At the git root (loaded).\n---\nbody\n'
mk "$WS/repo/pkg/.agents/skills/in-cwd/SKILL.md" $'---\nname: in-cwd\ndescription: In the cwd (loaded).\n---\nbody\n'
