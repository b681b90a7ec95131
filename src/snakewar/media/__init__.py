"""Offline media of a game: pictures as plain shapes, written as SVG, PNG, GIF or MP4.

A game draws one frame as a :class:`Scene` (pure: state in, shapes out, no I/O and no
imaging library); this module turns scenes into files.  The same scene gives the SVG
text and the raster frames, so a PNG and an SVG of one turn show the same picture.
Shapes are opaque (a game blends its own translucent colours against what lies under
them): a palette GIF keeps every colour exact that way.

Pillow (PNG, GIF) and PyAV (MP4) are the ``media`` extra; they are imported when a
raster is made, so the SVG needs neither.
"""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Literal
from xml.sax.saxutils import escape, quoteattr

from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    from PIL.Image import Image

    from snakewar.engine.protocol import MediaReplay

Format = Literal["png", "svg", "gif", "mp4", "html"]
"""The formats :func:`export_media` writes."""

FORMATS: tuple[Format, ...] = ("png", "svg", "gif", "mp4", "html")

MEDIA_TYPES: dict[str, str] = {
    "png": "image/png",
    "svg": "image/svg+xml",
    "gif": "image/gif",
    "mp4": "video/mp4",
    "html": "text/html; charset=utf-8",
}
"""Each format's media type (a download's ``Content-Type``)."""

MAX_FRAMES = 5000
"""The most frames an animation or a video is made of (a longer game is refused)."""

__all__ = [
    "FORMATS",
    "MAX_FRAMES",
    "MEDIA_TYPES",
    "Circle",
    "Format",
    "MediaError",
    "Polygon",
    "Polyline",
    "Rect",
    "Scene",
    "Shape",
    "Text",
    "encode_gif",
    "encode_mp4",
    "encode_png",
    "export_media",
    "rasterize",
    "style_refusal",
    "to_svg",
]


class MediaError(SnakewarError, ValueError):
    """A picture or video that cannot be made (missing library, bad size)."""


RGB = tuple[int, int, int]


def parse_color(text: str) -> RGB:
    """``#rgb`` or ``#rrggbb`` as an RGB triple.

    Raises:
        MediaError: anything else.
    """
    digits = text[1:] if text.startswith("#") else ""
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    try:
        if len(digits) != 6:
            raise ValueError(text)
        value = int(digits, 16)
    except ValueError:
        raise MediaError(f"not a hex colour: {text!r}") from None
    return (value >> 16) & 255, (value >> 8) & 255, value & 255


def hex_color(rgb: RGB) -> str:
    """The ``#rrggbb`` spelling of ``rgb``."""
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def blend(top: str, bottom: str, opacity: float) -> str:
    """``top`` drawn at ``opacity`` over ``bottom``, as one opaque colour."""
    a, b = parse_color(top), parse_color(bottom)
    mixed = tuple(round(x * opacity + y * (1 - opacity)) for x, y in zip(a, b, strict=True))
    return hex_color((mixed[0], mixed[1], mixed[2]))


@dataclass(frozen=True, slots=True)
class Rect:
    """A filled rectangle, corners rounded by ``radius`` (scene units)."""

    x: float
    y: float
    width: float
    height: float
    fill: str
    radius: float = 0.0


@dataclass(frozen=True, slots=True)
class Circle:
    """A filled circle."""

    cx: float
    cy: float
    r: float
    fill: str


@dataclass(frozen=True, slots=True)
class Polyline:
    """An open line of ``width``, with round joins and caps."""

    points: tuple[tuple[float, float], ...]
    stroke: str
    width: float


@dataclass(frozen=True, slots=True)
class Polygon:
    """A filled closed polygon."""

    points: tuple[tuple[float, float], ...]
    fill: str


@dataclass(frozen=True, slots=True)
class Text:
    """One line of text whose left end of the baseline's middle is at (x, y)."""

    x: float
    y: float
    text: str
    fill: str
    size: float


Shape = Rect | Circle | Polyline | Polygon | Text


@dataclass(frozen=True, slots=True)
class Scene:
    """A picture: ``width`` x ``height`` scene units of shapes, drawn in order."""

    width: float
    height: float
    shapes: tuple[Shape, ...] = field(default_factory=tuple)


def _f(n: float) -> str:
    return f"{n:.2f}".rstrip("0").rstrip(".")


def to_svg(scene: Scene, *, pixels: int | None = None) -> str:
    """The scene as a standalone SVG document (``pixels``: its width attribute)."""
    size = ""
    if pixels is not None:
        height = pixels * scene.height / scene.width
        size = f' width="{pixels}" height="{_f(height)}"'
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_f(scene.width)} '
        f'{_f(scene.height)}"{size}>',
    ]
    for shape in scene.shapes:
        if isinstance(shape, Rect):
            out.append(
                f'<rect x="{_f(shape.x)}" y="{_f(shape.y)}" width="{_f(shape.width)}" '
                f'height="{_f(shape.height)}" rx="{_f(shape.radius)}" fill="{shape.fill}"/>'
            )
        elif isinstance(shape, Circle):
            out.append(
                f'<circle cx="{_f(shape.cx)}" cy="{_f(shape.cy)}" r="{_f(shape.r)}" '
                f'fill="{shape.fill}"/>'
            )
        elif isinstance(shape, Polyline):
            points = " ".join(f"{_f(x)},{_f(y)}" for x, y in shape.points)
            out.append(
                f'<polyline points="{points}" fill="none" stroke="{shape.stroke}" '
                f'stroke-width="{_f(shape.width)}" stroke-linejoin="round" '
                'stroke-linecap="round"/>'
            )
        elif isinstance(shape, Polygon):
            points = " ".join(f"{_f(x)},{_f(y)}" for x, y in shape.points)
            out.append(f'<polygon points="{points}" fill="{shape.fill}"/>')
        else:
            out.append(
                f'<text x="{_f(shape.x)}" y="{_f(shape.y)}" font-size="{_f(shape.size)}" '
                f'font-family="sans-serif" dominant-baseline="middle" '
                f"fill={quoteattr(shape.fill)}>{escape(shape.text)}</text>"
            )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _pillow() -> None:
    try:
        import PIL  # noqa: F401
    except ImportError:
        raise MediaError("pictures need Pillow, the 'media' extra (pip install Pillow)") from None


def rasterize(scene: Scene, pixels: int, *, even: bool = False) -> Image:
    """The scene drawn ``pixels`` wide (RGB, no anti-aliasing: every colour exact).

    Args:
        scene: what to draw.
        pixels: the image's width; the height keeps the scene's proportions.
        even: round both sides down to even numbers (video encoders need them).

    Raises:
        MediaError: no Pillow, or a size too small to draw.
    """
    _pillow()
    from PIL import Image, ImageDraw, ImageFont

    scale = pixels / scene.width
    width, height = pixels, max(1, round(scene.height * scale))
    if even:
        width, height = width - width % 2, height - height % 2
    if width < 2 or height < 2:
        raise MediaError(f"an image {pixels} pixels wide is too small")
    image = Image.new("RGB", (width, height), parse_color("#ffffff"))
    draw = ImageDraw.Draw(image)

    def p(x: float, y: float) -> tuple[float, float]:
        return x * scale, y * scale

    for shape in scene.shapes:
        if isinstance(shape, Rect):
            box = (*p(shape.x, shape.y), *p(shape.x + shape.width, shape.y + shape.height))
            box = (box[0], box[1], box[2] - 1, box[3] - 1)
            if box[2] < box[0] or box[3] < box[1]:
                continue
            radius = shape.radius * scale
            if radius >= 1:
                draw.rounded_rectangle(box, radius=radius, fill=parse_color(shape.fill))
            else:
                draw.rectangle(box, fill=parse_color(shape.fill))
        elif isinstance(shape, Circle):
            cx, cy = p(shape.cx, shape.cy)
            r = shape.r * scale
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=parse_color(shape.fill))
        elif isinstance(shape, Polyline):
            points = [p(x, y) for x, y in shape.points]
            width_px = max(1, round(shape.width * scale))
            color = parse_color(shape.stroke)
            draw.line(points, fill=color, width=width_px, joint="curve")
            # Round caps, as the SVG's stroke-linecap (Pillow draws square ends).
            for x, y in (points[0], points[-1]):
                r = width_px / 2
                draw.ellipse((x - r, y - r, x + r, y + r), fill=color)
        elif isinstance(shape, Polygon):
            draw.polygon([p(x, y) for x, y in shape.points], fill=parse_color(shape.fill))
        else:
            size = max(6, round(shape.size * scale))
            font = ImageFont.load_default(size=size)
            draw.text(
                p(shape.x, shape.y),
                shape.text,
                fill=parse_color(shape.fill),
                font=font,
                anchor="lm",
            )
    return image


def encode_png(image: Image) -> bytes:
    """``image`` as a PNG file."""
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def encode_gif(images: Iterable[Image], fps: float) -> bytes:
    """An animated GIF of ``images`` at ``fps`` frames a second, looping.

    The frames are read one at a time (a generator keeps a long game's memory small).
    GIF frames last multiples of 10 ms, so ``fps`` is rounded to that.
    """
    from PIL import Image as PilImage

    def palette(image: Image) -> Image:
        # The scenes' colours are few and exact: an adaptive palette keeps every one.
        return image.convert("P", palette=PilImage.Palette.ADAPTIVE, colors=256)

    frames = iter(images)
    first = next(frames, None)
    if first is None:
        raise MediaError("no frame to write")
    duration = max(20, round(1000 / fps / 10) * 10)
    out = io.BytesIO()
    palette(first).save(
        out,
        format="GIF",
        save_all=True,
        append_images=(palette(image) for image in frames),
        duration=duration,
        loop=0,
        optimize=False,
        disposal=1,
    )
    return out.getvalue()


def encode_mp4(images: Iterable[Image], fps: int) -> bytes:
    """An H.264 MP4 (yuv420p, plays anywhere) of ``images`` at ``fps`` frames a second.

    The frames are read one at a time, as :func:`encode_gif` reads them.

    Raises:
        MediaError: no PyAV, or frames of odd or differing sizes.
    """
    try:
        import av
    except ImportError:
        raise MediaError("videos need PyAV, the 'media' extra (pip install av)") from None
    frames = iter(images)
    first = next(frames, None)
    if first is None:
        raise MediaError("no frame to write")
    width, height = first.size
    if width % 2 or height % 2:
        raise MediaError(f"video frames must have even sides, not {width}x{height}")
    out = io.BytesIO()
    with av.open(out, mode="w", format="mp4") as container:
        codec = "libx264" if "libx264" in av.codecs_available else "mpeg4"
        stream = container.add_stream(codec, rate=Fraction(fps))
        assert isinstance(stream, av.VideoStream)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        if codec == "libx264":
            # Near-lossless: the cells' flat colours come back within a few levels.
            stream.options = {"crf": "12", "preset": "veryfast"}
        for image in itertools.chain([first], frames):
            if image.size != (width, height):
                raise MediaError("video frames must share one size")
            frame = av.VideoFrame.from_image(image)  # type: ignore[no-untyped-call]
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return out.getvalue()


def fit_font(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters with an ellipsis (names in a scoreboard)."""
    return text if len(text) <= limit else text[: max(1, limit - 1)] + "…"


def style_refusal(game: str, option: str, value: str, known: Sequence[str]) -> str | None:
    """Why ``value`` is no ``option`` (``theme``, ``palette``) of ``game``'s media, else ``None``.

    An empty value is the game's default.
    """
    if not value or value in known:
        return None
    return f"{game} pictures have no {option} {value!r}; expected one of {', '.join(known)}"


def export_media(
    replay: MediaReplay,
    fmt: str,
    *,
    turn: int | None = None,
    size: int | None = None,
    fps: int = 10,
    scoreboard: bool = True,
    title: str = "replay",
) -> bytes:
    """The bytes of ``replay`` exported as ``fmt`` (:data:`FORMATS`).

    Args:
        replay: the game's frames (its adapter's ``media().load(...)``).
        fmt: png or svg (the frame of ``turn``), gif or mp4 (every frame), html.
        turn: the turn a png or svg shows.
        size: the picture's width in pixels (``None``: the replay's ``default_size``).
        fps: frames a second of a gif or mp4.
        scoreboard: draw the scoreboard beside the board.
        title: the HTML page's title.

    Raises:
        MediaError: an unknown format, a turn the replay does not have, too many
            frames, or the imaging libraries missing.
    """
    turns = replay.turns
    if size is None and replay.default_size is not None:
        size = replay.default_size
    if fmt in ("png", "svg"):
        if turn not in turns:
            raise MediaError(
                f"turn {turn} is not in the game (it has turns {turns[0]}..{turns[-1]})"
            )
        scene = replay.scene(turns.index(turn), scoreboard=scoreboard)
        pixels = size or max(2, round(scene.width))
        if fmt == "svg":
            return to_svg(scene, pixels=pixels).encode("utf-8")
        return encode_png(rasterize(scene, pixels))
    if fmt == "html":
        return replay.html(title).encode("utf-8")
    if fmt not in ("gif", "mp4"):
        raise MediaError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    if len(turns) > MAX_FRAMES:
        raise MediaError(f"the game has {len(turns)} frames; at most {MAX_FRAMES} are animated")
    scenes = (replay.scene(i, scoreboard=scoreboard) for i in range(len(turns)))
    images = (
        rasterize(scene, size or max(2, round(scene.width)), even=fmt == "mp4") for scene in scenes
    )
    return encode_gif(images, fps) if fmt == "gif" else encode_mp4(images, fps)
