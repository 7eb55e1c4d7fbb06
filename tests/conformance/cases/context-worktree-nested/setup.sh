mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
git -c init.defaultBranch=main init -q "$WS/main"
git -C "$WS/main" commit -q --allow-empty -m init
git -C "$WS/main" worktree add -q -b feat "$WS/main/worktrees/feat" 2>/dev/null
mk "$WS/AGENTS.md" $'OUTER agents (kept)\n'
mk "$WS/main/AGENTS.md" $'MAIN agents (suppressed by the worktree copy)\n'
mk "$WS/main/worktrees/feat/AGENTS.md" $'WORKTREE agents\n'
mk "$WS/main/worktrees/feat/src/AGENTS.md" $'SRC agents\n'
