"""Masking what looks like a credential in text that is about to be sent to a model.

pi-lsp sends a model the text of files the user did not write for it (the model judge sends
sentences of context files), and such files sometimes hold a key pasted in by mistake.
:func:`mask_credentials` replaces every run that looks like one with :data:`MASK` before the
text leaves the machine:

* provider and service keys by their shape: ``sk-…`` (OpenAI, Anthropic ``sk-ant-…``),
  GitHub ``ghp_`` / ``gho_`` / ``ghu_`` / ``ghs_`` / ``ghr_`` and ``github_pat_…``, Slack
  ``xoxb-`` / ``xoxp-`` …, AWS access key ids ``AKIA…`` / ``ASIA…``, ``Bearer <token>``;
* PEM private keys, from ``-----BEGIN … PRIVATE KEY-----`` to the matching ``END`` line (or to
  the end of the text when it is cut off);
* the value of a ``password`` / ``passwd`` / ``secret`` / ``token`` / ``api_key`` /
  ``access_key`` assignment (``DB_PASSWORD=…``, ``"api_key": "…"``): after ``=``
  any value; after ``:`` a value that looks like a credential rather than a word (quoted, or
  with digits and letters), so "Secrets: keep them in Vault" stays as written;
* any other run of 32 or more key characters (letters, digits, ``+ / _ -``) that mixes
  letters and digits, does not merely repeat a few characters, and is either hex digits (a
  digest, a UUID) or has a stretch of 16 without a separator (random keys, base64 blobs);
  paths and names of words joined by ``_`` or ``-`` stay.

This is a guard against accidents, not a scanner: it masks by shape, so a credential of a
shape it does not know gets through, and a harmless value of a known shape is masked. Every
pattern is linear in its input (possessive runs, bounded look-arounds; the PEM end is found
with ``str.find``), and the whole mask is two passes over the text.
"""

from __future__ import annotations

import math
import re

__all__ = ["MASK", "mask_credentials"]

#: What a masked credential becomes (brackets so it reads as a placeholder, not a word).
MASK = "[secret]"

#: Credentials known by their shape; a match is masked whole.
_KNOWN = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    r"sk-[A-Za-z0-9_-]{16,}+"
    r"|gh[pousr]_[A-Za-z0-9]{20,}+"
    r"|github_pat_[A-Za-z0-9_]{20,}+"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}+"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"
    r"|[Bb]earer[ \t]++[A-Za-z0-9._~+/-]{8,}+=*+"
    r")"
)
#: The first line of a PEM private key (its end is looked for with ``str.find``).
_PEM_BEGIN = re.compile(r"-----BEGIN[A-Z ]{0,40}PRIVATE KEY-----")
_PEM_END = "-----END"
#: ``<name>[suffix] = value`` / ``"<name>": "value"``: group ``sep`` is ``=`` or ``:``,
#: ``quote`` an opening quote of the value, ``value`` the value.
_ASSIGNED = re.compile(
    r"(?i:password|passwd|secret|token|api[_-]?key|access[_-]?key)"
    r"(?:[_-]?+[A-Za-z]{1,12}+){0,2}+"
    r"[\"']?+[ \t]*+(?P<sep>[:=])(?!=)[ \t]*+(?P<quote>[\"']?+)"
    r"(?P<value>[^\s\"'`<>,;]++)"
)
#: A long run of key characters (``=`` padding after it), at the start of a run only.
_LONG_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{32,}+={0,2}+")
#: bits per character below which a long run is a repetition rather than a key
_ENTROPY = 3.0
#: the value after ``:`` is a credential when it is at least this long (and mixes classes)
_COLON_VALUE = 8


def _entropy(text: str) -> float:
    counts: dict[str, int] = {}
    for char in text:
        counts[char] = counts.get(char, 0) + 1
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


_HEX = frozenset("0123456789abcdefABCDEF/_-")
_SEPARATOR = re.compile(r"[/_-]")


def _mixed(text: str) -> bool:
    return any(c.isdigit() for c in text) and any(c.isalpha() for c in text)


def _random_run(run: str) -> bool:
    """Whether a long run looks random: letters and digits mixed, a high entropy, and a
    stretch of 16 or more characters without a separator, or hex digits only (a UUID, a
    digest) — not a path or a name of words joined by separators."""
    core = run.rstrip("=")
    digits = sum(c.isdigit() for c in core)
    if digits < 2 or len(core) - digits < 2 or _entropy(core) < _ENTROPY:
        return False
    if all(c in _HEX for c in core):
        return True
    return max(len(part) for part in _SEPARATOR.split(core)) >= 16


def _assigned(match: re.Match[str]) -> str:
    value = match["value"]
    if match["sep"] == ":" and not (
        match["quote"] or (len(value) >= _COLON_VALUE and _mixed(value))
    ):
        return match[0]
    return match[0][: match.start("value") - match.start()] + MASK


def _long_run(match: re.Match[str]) -> str:
    return MASK if _random_run(match[0]) else match[0]


def _mask_pem(text: str) -> str:
    out: list[str] = []
    at = 0
    while (begin := _PEM_BEGIN.search(text, at)) is not None:
        out.append(text[at : begin.start()])
        out.append(MASK)
        end = text.find(_PEM_END, begin.end())
        if end < 0:
            return "".join(out)
        close = text.find("-----", end + len(_PEM_END))
        at = len(text) if close < 0 else close + len("-----")
    out.append(text[at:])
    return "".join(out)


def mask_credentials(text: str) -> str:
    """``text`` with every run that looks like a credential replaced by :data:`MASK` (see
    the module text); text without one comes back as it was."""
    if "-----BEGIN" in text:
        text = _mask_pem(text)
    text = _KNOWN.sub(MASK, text)
    text = _ASSIGNED.sub(_assigned, text)
    return _LONG_RUN.sub(_long_run, text)
