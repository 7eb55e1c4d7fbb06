"""Image recognition and preparation for a model (spec §2.1 step 2–3, §2.0 re-normalization)."""

from __future__ import annotations

import base64
import io
import os
import struct
import zlib

import pytest
from PIL import Image, PngImagePlugin

from pi_lsp.tools.images import (
    MAX_IMAGE_BASE64_BYTES,
    NOT_CONVERTIBLE,
    TOO_LARGE,
    ImageLimits,
    InlineImage,
    OmittedImage,
    base64_size,
    dimension_hint,
    prepare_image,
    prepare_image_sync,
    sniff_image_mime,
)


def encode(image: Image.Image, image_format: str, **params: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format=image_format, **params)
    return out.getvalue()


def plain(size: tuple[int, int], image_format: str, mode: str = "RGB") -> bytes:
    return encode(Image.new(mode, size, "orange"), image_format)


def noise(size: tuple[int, int]) -> Image.Image:
    return Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))


def inline(result: InlineImage | OmittedImage) -> InlineImage:
    assert isinstance(result, InlineImage), result
    return result


def opened(result: InlineImage) -> Image.Image:
    image = Image.open(io.BytesIO(base64.b64decode(result.data)))
    image.load()
    return image


# --- sniffing ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("image_format", "mime_type"),
    [
        ("PNG", "image/png"),
        ("JPEG", "image/jpeg"),
        ("GIF", "image/gif"),
        ("WEBP", "image/webp"),
        ("BMP", "image/bmp"),
    ],
)
def test_each_supported_format_is_recognized(image_format: str, mime_type: str) -> None:
    assert sniff_image_mime(plain((5, 3), image_format)) == mime_type


@pytest.mark.parametrize(
    "header",
    [
        b"",
        b"plain text\n",
        b"\xff\xd8\xff\xf7rest",  # JPEG-LS
        b"\x89PNG\r\n\x1a\n",  # signature without any chunk
        b"BMW owners club\n" + b"." * 40,  # "BM" without a bitmap header
        b"RIFF\x00\x00\x00\x00WAVEfmt ",
    ],
)
def test_other_content_is_not_an_image(header: bytes) -> None:
    assert sniff_image_mime(header) is None


def test_animated_png_is_not_a_still_image() -> None:
    frames = [Image.new("RGB", (4, 4), color) for color in ("red", "blue")]
    apng = encode(frames[0], "PNG", save_all=True, append_images=frames[1:])
    assert b"acTL" in apng
    assert sniff_image_mime(apng) is None


def test_png_must_open_with_ihdr() -> None:
    png = plain((2, 2), "PNG")
    chunk = struct.pack(">I", 0) + b"tEXt" + struct.pack(">I", zlib.crc32(b"tEXt"))
    assert sniff_image_mime(png[:8] + chunk + png[8:]) is None


def test_png_whose_image_data_lies_beyond_the_sniffed_bytes_is_still_png() -> None:
    info = PngImagePlugin.PngInfo()
    info.add_text("comment", "x" * 10_000)
    png = encode(Image.new("RGB", (2, 2)), "PNG", pnginfo=info)
    assert png.index(b"IDAT") > 4100
    assert sniff_image_mime(png) == "image/png"


def test_bmp_header_fields_are_checked() -> None:
    bmp = bytearray(plain((2, 2), "BMP"))
    assert sniff_image_mime(bytes(bmp)) == "image/bmp"
    bmp[28:30] = struct.pack("<H", 7)  # no such bit depth
    assert sniff_image_mime(bytes(bmp)) is None


# --- normalizing and fitting ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("image_format", "mime_type"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("GIF", "image/gif"), ("WEBP", "image/webp")],
)
def test_images_within_limits_are_sent_untouched(image_format: str, mime_type: str) -> None:
    data = plain((30, 20), image_format)
    result = inline(prepare_image_sync(data, mime_type))
    assert (base64.b64decode(result.data), result.mime_type, result.hints) == (data, mime_type, ())


def test_jpg_alias_and_parameters_are_normalized() -> None:
    data = plain((3, 3), "JPEG")
    assert inline(prepare_image_sync(data, "Image/JPG; q=1")).mime_type == "image/jpeg"


def test_bmp_becomes_png_with_a_conversion_hint() -> None:
    result = inline(prepare_image_sync(plain((3, 2), "BMP"), "image/bmp"))
    assert result.mime_type == "image/png"
    assert result.hints == ("[Image converted from image/bmp to image/png.]",)
    assert opened(result).size == (3, 2)


def test_conversion_hint_names_the_final_format() -> None:
    big_bmp = encode(noise((2000, 2000)), "BMP")
    result = inline(prepare_image_sync(big_bmp, "image/bmp"))
    assert result.mime_type == "image/jpeg"
    assert result.hints[0] == "[Image converted from image/bmp to image/jpeg.]"


def test_wide_image_is_scaled_to_2000_wide() -> None:
    result = inline(prepare_image_sync(plain((3000, 40), "PNG"), "image/png"))
    assert result.mime_type == "image/png"
    assert opened(result).size == (2000, 27)
    assert result.hints == (
        "[Image: original 3000x40, displayed at 2000x27. "
        "Multiply coordinates by 1.50 to map to original image.]",
    )


def test_noisy_image_over_the_base64_budget_falls_back_to_jpeg() -> None:
    data = encode(noise((2000, 2000)), "PNG")
    assert base64_size(len(data)) >= MAX_IMAGE_BASE64_BYTES
    result = inline(prepare_image_sync(data, "image/png"))
    assert result.mime_type == "image/jpeg"
    assert len(result.data) < MAX_IMAGE_BASE64_BYTES
    assert opened(result).size == (2000, 2000)
    assert result.hints == (
        "[Image: original 2000x2000, displayed at 2000x2000. "
        "Multiply coordinates by 1.00 to map to original image.]",
    )


def test_dimensions_shrink_by_three_quarters_until_it_fits() -> None:
    limits = ImageLimits(max_base64_bytes=30_000)
    result = inline(
        prepare_image_sync(encode(noise((400, 400)), "PNG"), "image/png", limits=limits)
    )
    width, height = opened(result).size
    assert width == height
    assert width in (300, 225, 168, 126, 94, 70)  # 400 × 0.75ⁿ, rounded down each step
    assert len(result.data) < 30_000
    assert result.hints[-1].startswith(f"[Image: original 400x400, displayed at {width}x{width}.")


def test_image_that_never_fits_is_omitted() -> None:
    limits = ImageLimits(max_base64_bytes=8)
    assert prepare_image_sync(plain((50, 50), "PNG"), "image/png", limits=limits) == OmittedImage(
        TOO_LARGE
    )


def test_undecodable_image_is_omitted() -> None:
    broken = plain((4, 4), "PNG")[:40]
    assert prepare_image_sync(broken, "image/png") == OmittedImage(TOO_LARGE)
    assert prepare_image_sync(b"BM" + b"\x00" * 60, "image/bmp") == OmittedImage(NOT_CONVERTIBLE)


def test_without_auto_resize_only_the_format_is_normalized() -> None:
    wide = plain((3000, 40), "PNG")
    kept = inline(prepare_image_sync(wide, "image/png", auto_resize=False))
    assert (base64.b64decode(kept.data), kept.hints) == (wide, ())
    converted = inline(prepare_image_sync(plain((3000, 40), "BMP"), "image/bmp", auto_resize=False))
    assert converted.mime_type == "image/png"
    assert converted.hints == ("[Image converted from image/bmp to image/png.]",)
    assert opened(converted).size == (3000, 40)


def test_transparency_survives_a_resize() -> None:
    data = plain((2500, 10), "PNG", mode="RGBA")
    result = inline(prepare_image_sync(data, "image/png"))
    assert opened(result).mode == "RGBA"


def test_exif_orientation_is_applied_before_fitting() -> None:
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: rotate 90° clockwise to view
    data = encode(Image.new("RGB", (3000, 1000), "navy"), "JPEG", exif=exif)
    result = inline(prepare_image_sync(data, "image/jpeg"))
    assert opened(result).size == (667, 2000)
    assert result.hints[0].startswith("[Image: original 1000x3000, displayed at 667x2000.")


def test_scale_is_rounded_half_up_like_javascript() -> None:
    assert "Multiply coordinates by 1.13 " in dimension_hint((2250, 10), (2000, 9))
    assert "Multiply coordinates by 2.50 " in dimension_hint((5000, 10), (2000, 4))


async def test_async_entry_point_gives_the_same_result() -> None:
    data = plain((3000, 40), "PNG")
    assert inline(await prepare_image(data, "image/png")) == prepare_image_sync(data, "image/png")


def test_base64_size_counts_padding() -> None:
    assert [base64_size(n) for n in (0, 1, 2, 3, 4)] == [0, 4, 4, 4, 8]
