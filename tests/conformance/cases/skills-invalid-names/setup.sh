mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
long_name=$(printf 'n%.0s' $(seq 70))
long_desc=$(printf 'd%.0s' $(seq 1100))
mk "$AGENT/skills/a-upper/SKILL.md" $'---\nname: Invalid_Name\ndescription: Upper case and underscore.\n---\nbody\n'
mk "$AGENT/skills/b-long-name/SKILL.md" "---
name: $long_name
description: Name of 70 characters.
---
body
"
mk "$AGENT/skills/c-hyphen/SKILL.md" $'---\nname: -leading\ndescription: Leading hyphen.\n---\nbody\n'
mk "$AGENT/skills/d-double/SKILL.md" $'---\nname: a--b\ndescription: Consecutive hyphens.\n---\nbody\n'
mk "$AGENT/skills/e-xml/SKILL.md" $'---\nname: "x<y>&z"\ndescription: Name with XML characters.\n---\nbody\n'
mk "$AGENT/skills/f-long-desc/SKILL.md" "---
name: long-desc
description: $long_desc
---
body
"
mk "$AGENT/skills/g-empty-desc/SKILL.md" $'---\nname: empty-desc\ndescription: ""\n---\nbody\n'
mk "$AGENT/skills/h-blank-desc/SKILL.md" $'---\nname: blank-desc\ndescription: "   "\n---\nbody\n'
mk "$AGENT/skills/i-folder/SKILL.md" $'---\nname: other-name\ndescription: Name differs from the folder.\n---\nbody\n'
