"""Images for a model: recognizing them by content, and making them fit what providers accept.

Pi 0.85.0 rules, shared by ``read`` and by the re-normalization of any tool's images:

* Recognition looks at the first bytes only (the extension is irrelevant): JPEG (but not JPEG-LS),
  PNG (an ``IHDR`` first, and not animated), GIF, WEBP, and BMP with a believable header.
* PNG, JPEG, GIF and WEBP are sent as they are; anything else (BMP) is converted to PNG first.
* With auto-resize on, an image must fit 2000 × 2000 px and stay under 4.5 MiB once base64-encoded.
  Too big: scale it into the box, then try PNG and JPEG at quality 80, 85, 70, 55 and 40, and if
  none fits, shrink both sides by 0.75 and try again, down to 1 × 1.
* The text that goes with the image carries one hint line per change (conversion, then scaling).

The Pillow work is blocking; :func:`prepare_image` runs it in a worker thread.
"""

from __future__ import annotations

import asyncio
import base64
import io
import math
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from PIL import Image, ImageOps

from pi_lsp.tools.base import ImageContent

#: How much of a file the content sniffing looks at.
SNIFF_BYTES = 4100

MAX_IMAGE_WIDTH = 2000
MAX_IMAGE_HEIGHT = 2000
#: Upper bound (exclusive) for the base64 text of an image: 4.5 MiB.
MAX_IMAGE_BASE64_BYTES = 4_718_592
JPEG_QUALITIES = (80, 85, 70, 55, 40)
SHRINK_FACTOR = 0.75

NOT_CONVERTIBLE = "[Image omitted: could not be converted to a supported inline image format.]"
TOO_LARGE = "[Image omitted: could not be resized below the inline image size limit.]"
MODEL_CANNOT_SEE_IMAGES = (
    "[Current model does not support images. The image will be omitted from this request.]"
)

# Formats providers take inline, by the mime type a caller may give them.
_INLINE_MIME_TYPES = {
    "image/png": "image/png",
    "image/jpeg": "image/jpeg",
    "image/jpg": "image/jpeg",
    "image/gif": "image/gif",
    "image/webp": "image/webp",
}
# Containers whose EXIF orientation Pi honours when it re-encodes.
_EXIF_ORIENTED_FORMATS = {"JPEG", "WEBP"}


# --- recognizing an image ------------------------------------------------------------------------


def sniff_image_mime(header: bytes) -> str | None:
    """The image mime type the leading bytes of a file announce, or ``None`` for anything else."""
    header = header[:SNIFF_BYTES]
    if header.startswith(b"\xff\xd8\xff"):
        return None if header[3:4] == b"\xf7" else "image/jpeg"  # FF D8 FF F7 is JPEG-LS
    if header.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png" if _is_still_png(header) else None
    if header.startswith(b"GIF"):
        return "image/gif"
    if header.startswith(b"RIFF") and header[8:12] == b"WEBP":
        return "image/webp"
    if header.startswith(b"BM"):
        return "image/bmp" if _has_bmp_header(header) else None
    return None


def _is_still_png(header: bytes) -> bool:
    """Walk the PNG chunks in view: ``IHDR`` first, and no ``acTL`` (animation) before ``IDAT``."""
    pos = 8
    first = True
    while True:
        if pos + 8 > len(header):
            return False  # not even one chunk header
        length, kind = struct.unpack_from(">i4s", header, pos)
        pos += 8
        if length < 0 or (first and kind != b"IHDR"):
            return False
        if kind == b"IDAT":
            return True
        if kind == b"acTL":
            return False
        first = False
        pos += length + 4  # chunk data and CRC
        if pos + 8 >= len(header):
            return True  # the rest lies beyond what was sniffed


_BMP_DIB_HEADER_SIZES = {12, 40, 52, 56, 64, 108, 124}
_BMP_BITS_PER_PIXEL = {1, 2, 4, 8, 16, 24, 32}


def _has_bmp_header(header: bytes) -> bool:
    """``BM`` with a known DIB header size, sane dimensions, one plane and a real bit depth."""
    if len(header) < 26:
        return False
    pixel_offset, dib_size = struct.unpack_from("<II", header, 10)
    if dib_size not in _BMP_DIB_HEADER_SIZES or pixel_offset < 14 + dib_size:
        return False
    if dib_size == 12:
        width, height, planes, bits = struct.unpack_from("<HHHH", header, 18)
    elif len(header) >= 30:
        width, height, planes, bits = struct.unpack_from("<iiHH", header, 18)
    else:
        return False
    return width > 0 and height != 0 and planes == 1 and bits in _BMP_BITS_PER_PIXEL


# --- preparing an image for the model ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ImageLimits:
    """The box and the base64 budget an image has to fit."""

    max_width: int = MAX_IMAGE_WIDTH
    max_height: int = MAX_IMAGE_HEIGHT
    max_base64_bytes: int = MAX_IMAGE_BASE64_BYTES


DEFAULT_LIMITS = ImageLimits()


@dataclass(frozen=True, slots=True)
class InlineImage:
    """An image ready for the model, with the hint lines that explain what was done to it."""

    data: str  # base64
    mime_type: str
    hints: tuple[str, ...] = ()

    def content(self) -> ImageContent:
        return ImageContent(self.data, self.mime_type)


@dataclass(frozen=True, slots=True)
class OmittedImage:
    """An image that cannot be sent; ``message`` is the line the model reads instead."""

    message: str


async def prepare_image(
    data: bytes,
    mime_type: str,
    *,
    auto_resize: bool = True,
    limits: ImageLimits = DEFAULT_LIMITS,
) -> InlineImage | OmittedImage:
    """Normalize (and, with ``auto_resize``, fit) an image in a worker thread."""
    return await asyncio.to_thread(
        prepare_image_sync, data, mime_type, auto_resize=auto_resize, limits=limits
    )


def prepare_image_sync(
    data: bytes,
    mime_type: str,
    *,
    auto_resize: bool = True,
    limits: ImageLimits = DEFAULT_LIMITS,
) -> InlineImage | OmittedImage:
    """The blocking work behind :func:`prepare_image`."""
    declared = _base_mime_type(mime_type)
    inline_mime = _INLINE_MIME_TYPES.get(declared)
    converted_from: str | None = None
    if inline_mime is None:
        png = _convert_to_png(data)
        if png is None:
            return OmittedImage(NOT_CONVERTIBLE)
        data, inline_mime, converted_from = png, "image/png", declared
    if not auto_resize:
        hints = _conversion_hints(converted_from, inline_mime)
        return InlineImage(_b64(data), inline_mime, hints)
    fitted = _fit(data, inline_mime, limits)
    if fitted is None:
        return OmittedImage(TOO_LARGE)
    hints = _conversion_hints(converted_from, fitted.mime_type)
    if fitted.was_resized:
        hints += (dimension_hint(fitted.original_size, fitted.size),)
    return InlineImage(_b64(fitted.data), fitted.mime_type, hints)


def dimension_hint(original: tuple[int, int], shown: tuple[int, int]) -> str:
    """The line telling the model how shown coordinates map back to the original image."""
    scale = Decimal(original[0] / shown[0]).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return (
        f"[Image: original {original[0]}x{original[1]}, displayed at {shown[0]}x{shown[1]}. "
        f"Multiply coordinates by {scale} to map to original image.]"
    )


def _conversion_hints(converted_from: str | None, mime_type: str) -> tuple[str, ...]:
    if converted_from is None or converted_from == mime_type:
        return ()
    return (f"[Image converted from {converted_from} to {mime_type}.]",)


def _base_mime_type(mime_type: str) -> str:
    return mime_type.split(";", 1)[0].strip().lower()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def base64_size(num_bytes: int) -> int:
    """Length of the base64 text for ``num_bytes`` of binary data (with padding)."""
    return (num_bytes + 2) // 3 * 4


# --- Pillow ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Fitted:
    data: bytes
    mime_type: str
    original_size: tuple[int, int]
    size: tuple[int, int]
    was_resized: bool


# Modes PNG stores as they are; others (CMYK, YCbCr, …) go through RGB(A).
_PNG_MODES = {"1", "L", "LA", "I", "I;16", "P", "RGB", "RGBA"}


def _convert_to_png(data: bytes) -> bytes | None:
    """Re-encode any image Pillow can decode as PNG; ``None`` when it cannot be decoded."""
    try:
        with Image.open(io.BytesIO(data)) as opened:
            opened.load()
            image = opened if opened.mode in _PNG_MODES else _rgb_or_rgba(opened)
            return _encode(image, "PNG")
    except Exception:  # any decoder failure means the format is not usable
        return None


def _fit(data: bytes, mime_type: str, limits: ImageLimits) -> _Fitted | None:
    """The image itself if it fits ``limits``, else the first re-encoding that does, else None."""
    try:
        image = _decode(data)
        original = image.size
        if _within(original, len(data), limits):
            return _Fitted(data, mime_type, original, original, was_resized=False)
        image = _rgb_or_rgba(image)
        for size in _shrinking_sizes(_scale_into_box(original, limits)):
            for encoded, encoded_mime in _encodings(image.resize(size, Image.Resampling.LANCZOS)):
                if base64_size(len(encoded)) < limits.max_base64_bytes:
                    return _Fitted(encoded, encoded_mime, original, size, was_resized=True)
    except Exception:  # undecodable or unencodable: the image cannot be sent
        return None
    return None


def _decode(data: bytes) -> Image.Image:
    """Decode fully (a broken file fails here) and apply the EXIF orientation of JPEG and WEBP."""
    with Image.open(io.BytesIO(data)) as opened:
        opened.load()
        if opened.format in _EXIF_ORIENTED_FORMATS:
            return ImageOps.exif_transpose(opened)
        return opened.copy()


def _within(size: tuple[int, int], num_bytes: int, limits: ImageLimits) -> bool:
    width, height = size
    return (
        width <= limits.max_width
        and height <= limits.max_height
        and base64_size(num_bytes) < limits.max_base64_bytes
    )


def _scale_into_box(size: tuple[int, int], limits: ImageLimits) -> tuple[int, int]:
    """Scale down, keeping the aspect ratio, until both sides fit (JavaScript rounding)."""
    width, height = size
    if width > limits.max_width:
        height = max(1, _js_round(height * limits.max_width / width))
        width = limits.max_width
    if height > limits.max_height:
        width = max(1, _js_round(width * limits.max_height / height))
        height = limits.max_height
    return width, height


def _js_round(value: float) -> int:
    return math.floor(value + 0.5)


def _shrinking_sizes(size: tuple[int, int]) -> Iterator[tuple[int, int]]:
    """``size``, then each side times 0.75 (rounded down, at least 1) until 1 × 1."""
    width, height = size
    while True:
        yield width, height
        if width == 1 and height == 1:
            return
        width = max(1, math.floor(width * SHRINK_FACTOR))
        height = max(1, math.floor(height * SHRINK_FACTOR))


def _encodings(image: Image.Image) -> Iterator[tuple[bytes, str]]:
    """PNG first, then JPEG at each quality step (encoded only when asked for)."""
    yield _encode(image, "PNG"), "image/png"
    opaque = image if image.mode == "RGB" else image.convert("RGB")
    for quality in JPEG_QUALITIES:
        yield _encode(opaque, "JPEG", quality=quality), "image/jpeg"


def _rgb_or_rgba(image: Image.Image) -> Image.Image:
    """The image as 8-bit RGB, or RGBA when it has any transparency."""
    has_alpha = image.mode in {"RGBA", "LA", "PA", "RGBa", "La"} or "transparency" in image.info
    target = "RGBA" if has_alpha else "RGB"
    return image if image.mode == target else image.convert(target)


def _encode(image: Image.Image, image_format: str, *, quality: int | None = None) -> bytes:
    out = io.BytesIO()
    if quality is None:
        image.save(out, format=image_format)
    else:
        image.save(out, format=image_format, quality=quality)
    return out.getvalue()
