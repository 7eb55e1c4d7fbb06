mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
git -c init.defaultBranch=main init -q "$WS/main"
git -C "$WS/main" commit -q --allow-empty -m init
git -C "$WS/main" worktree add -q -b feat "$WS/main/worktrees/feat" 2>/dev/null
mk "$WS/main/AGENTS.md" $'MAIN agents (kept: the worktree file has another name)\n'
mk "$WS/main/worktrees/feat/CLAUDE.md" $'WORKTREE claude\n'
