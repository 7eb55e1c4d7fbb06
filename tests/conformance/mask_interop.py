"""Keep the conversations of Pi's fixture sessions out of ``interop/``: rewrite in place.

``interop/<fixture>.messages.jsonl`` records what Pi sent when continuing Pi's own fixture
sessions (``fixtures/pi`` in the shared material): another project's conversation, whose tool
results quote Pi's system prompt and Pi's source files. Each stored message keeps its shape
(roles, content part types, tool-call ids and names) and holds every text as a digest
(:func:`tests.conformance.pi_prose.digest_texts`); ``test_session_interop`` digests what pi-lsp
sends the same way, and the sha256 of the unmasked messages in ``<fixture>.request.json`` keeps
the comparison byte-exact. Running it again changes nothing::

    python -m tests.conformance.mask_interop
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conformance.pi_prose import digest_texts

INTEROP = Path(__file__).resolve().parent / "interop"


def mask_messages_file(path: Path) -> bool:
    """Digest the texts of one ``.messages.jsonl``; True when the file changed."""
    before = path.read_text(encoding="utf-8")
    messages = [json.loads(line) for line in before.splitlines() if line]
    after = "".join(
        json.dumps(digest_texts(message), ensure_ascii=False, sort_keys=True) + "\n"
        for message in messages
    )
    if after == before:
        return False
    path.write_text(after, encoding="utf-8")
    return True


def main() -> None:
    for path in sorted(INTEROP.glob("*.messages.jsonl")):
        changed = mask_messages_file(path)
        print(f"{path.name}: {'masked' if changed else 'already masked'}")


if __name__ == "__main__":
    main()
