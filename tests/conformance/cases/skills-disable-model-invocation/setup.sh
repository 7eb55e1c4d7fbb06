mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
dmi() { mk "$AGENT/skills/$1/SKILL.md" "---
name: $1
description: disable-model-invocation is $2
disable-model-invocation: $2
---
body
"; }
dmi bool-true 'true'
dmi bool-cap-true 'True'
dmi string-true '"true"'
dmi yes-word 'yes'
dmi one '1'
dmi bool-false 'false'
