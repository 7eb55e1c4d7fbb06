"""How content reaches a model: the text a text-only model receives for a tool result (spec §13)."""

from __future__ import annotations

from collections.abc import Iterable

from pi_lsp.tools.base import Content, ImageContent, TextContent

TOOL_IMAGE_OMITTED = "(tool image omitted: model does not support images)"
USER_IMAGE_OMITTED = "(image omitted: model does not support images)"
NO_TOOL_OUTPUT = "(no tool output)"
SEE_ATTACHED_IMAGE = "(see attached image)"


def drop_images_for_text_model(blocks: Iterable[Content], placeholder: str) -> list[TextContent]:
    """Replace image blocks by ``placeholder``; a run of consecutive images becomes one."""
    out: list[TextContent] = []
    previous_was_image = False
    for block in blocks:
        if isinstance(block, ImageContent):
            if not previous_was_image:
                out.append(TextContent(placeholder))
            previous_was_image = True
        else:
            out.append(block)
            previous_was_image = False
    return out


def tool_result_text(blocks: Iterable[Content], model_supports_images: bool = False) -> str:
    """The ``role: tool`` message text an OpenAI-compatible model receives for a result."""
    blocks = list(blocks)
    if model_supports_images:
        texts = [b.text for b in blocks if isinstance(b, TextContent)]
        if texts:
            return "\n".join(texts)
        return SEE_ATTACHED_IMAGE if blocks else NO_TOOL_OUTPUT
    texts = [b.text for b in drop_images_for_text_model(blocks, TOOL_IMAGE_OMITTED)]
    return "\n".join(texts) if texts else NO_TOOL_OUTPUT
