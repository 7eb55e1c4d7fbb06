mk() { mkdir -p "$(dirname "$1")"; printf '%s' "$2" > "$1"; }
mk "$AGENT/skills/a-crlf-bom/SKILL.md" $'\xef\xbb\xbf---\r\nname: crlf-bom\r\ndescription: CRLF and BOM skill.\r\n---\r\nbody\r\n'
mk "$AGENT/skills/b-literal/SKILL.md" $'---\nname: literal\ndescription: |\n  Line one\n  Line two\n\n  After a blank line\n---\nbody\n'
mk "$AGENT/skills/c-folded/SKILL.md" $'---\nname: folded\ndescription: >-\n  Folded one\n  folded two\n---\nbody\n'
mk "$AGENT/skills/d-single/SKILL.md" $'---\nname: single\ndescription: \'It\'\'s: quoted\'\n---\nbody\n'
mk "$AGENT/skills/e-double/SKILL.md" $'---\nname: double\ndescription: "Tab\\there, caf\\u00e9"\n---\nbody\n'
mk "$AGENT/skills/f-unicode/SKILL.md" $'---\nname: unicode\ndescription: Ünïcödé — 日本語 😀\n---\nbody\n'
