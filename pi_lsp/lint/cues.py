"""Negation and rejection cues, one definition for every reader of choices.

The catalogue reading (:mod:`.choices`) and the convention shapes (:mod:`.conventions`) both
ask whether a clause opens negated ("Don't …", "We never …", "No …"), whether a negation
stands anywhere before a value, and which words right before a value reject it ("not …",
"instead of …", "turn off …"). The words are kept here so that the two readers agree.
"""

from __future__ import annotations

import re

_APOSTROPHE = "['\u2019]?"

#: a clause that opens with a negation: what it names is forbidden, not chosen
NEGATED_START = re.compile(
    r"^\W*+(?:(?:please|you|we)\s++)?"
    rf"(?:don{_APOSTROPHE}t|do not|never|avoid|must not|mustn{_APOSTROPHE}t|should not|"
    rf"shouldn{_APOSTROPHE}t|cannot|can{_APOSTROPHE}t|no longer|stop|no|omit|"
    # German "no" ("Keine Emojis in Antworten"), as a rule in German opens
    r"kein(?:e[nmrs]?+)?+)\b",
    re.IGNORECASE,
)
#: a negation anywhere in a stretch of a clause: no stance is read from a shape there
NEGATION = re.compile(
    rf"\b(?:not|no|never|don{_APOSTROPHE}t|do not|doesn{_APOSTROPHE}t|avoid|without|instead|"
    r"rather|nor|neither|exempt|stop)\b",
    re.IGNORECASE,
)
#: the words right before a value that reject it ("don't use npm", "not the past tense",
#: "instead of squashing"). "No" and "without" are left to each reader ("no changeset is
#: needed" waives a step and rejects nothing), and so are the verbs that switch a setting off
#: ("turn off strict mode"): before a tool they say something else ("never disable ESLint")
REJECTING = (
    rf"(?:don{_APOSTROPHE}t|do not|never|avoid|avoiding|must not|mustn{_APOSTROPHE}t|"
    rf"should not|shouldn{_APOSTROPHE}t|not|stop|instead of|rather than|cannot|"
    rf"can{_APOSTROPHE}t|in place of|replacing|replace|forbid|ban)"
)

#: the words that open an exception to a rule ("squash-merge, unless the PR is a release
#: branch, which uses a merge commit"; "use Vite, except for the legacy app on webpack"): what
#: the rest of the sentence names is allowed where the exception holds
EXCEPTION = re.compile(
    r"\b(?:unless|except|excepting|other\s++than|apart\s++from|aside\s++from|besides|"
    r"outside\s++of|save\s++for|with\s++the\s++exception\s++of|but\s++not\s++(?:for|in|when))\b",
    re.IGNORECASE,
)
