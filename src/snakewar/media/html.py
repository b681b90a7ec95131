"""A viewer page made self-contained: its modules, its style and a replay inlined.

The site's viewers are pages of ES modules that import each other by relative URL
(a game's own under ``/static/<game>/``, the shared ones under ``/static/viewer/``).
Opened from ``file://`` those imports would be requests, which browsers refuse; so
every module is rewritten to import the others by a bare name, and an import map maps
each name to the module's text as a ``data:`` URL.  The replay goes in a plain-text
script element of id ``sw-inline-replay`` (``inline.html``), which the viewer reads
instead of showing its file picker.  The page then makes no request at all.
"""

from __future__ import annotations

import base64
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

from snakewar.media import MediaError

__all__ = ["REPLAY_ELEMENT", "inline_page", "shared_static"]

REPLAY_ELEMENT = "sw-inline-replay"
"""The id of the element holding the replay's text."""

_IMPORT = re.compile(r"""(\bfrom\s*|\bimport\s*)(["'])(\.{1,2}/[^"']+)\2""")
_TOKEN = re.compile(r"@@([A-Z]+)@@")
_SCRIPTS = Path(__file__).with_name("inline.html")
"""The elements that replace the page's module script (the replay, the import map, the
entry module), a file of their own: page markup stays out of the Python."""


class _Tags(HTMLParser):
    """The page's stylesheet links and module script: their tags' text and URLs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stylesheets: list[tuple[str, str]] = []
        self.module: tuple[str, str] | None = None
        self.title: str | None = None
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        text = self.get_starttag_text() or ""
        href, src = found.get("href"), found.get("src")
        if tag == "link" and found.get("rel") == "stylesheet" and href:
            self.stylesheets.append((text, href))
        elif tag == "script" and found.get("type") == "module" and src and not self.module:
            self.module = (text, src)
        self._in_title = tag == "title"

    def handle_data(self, data: str) -> None:
        if self._in_title and self.title is None:
            self.title = data

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False


def shared_static() -> Path:
    """The shared viewer modules' folder (served at ``/static/viewer/``)."""
    import snakewar.viewer

    return Path(snakewar.viewer.__file__).parent / "static"


def _url_of(path: Path, roots: dict[str, Path]) -> str:
    for name, root in roots.items():
        try:
            return f"{name}/{path.resolve().relative_to(root.resolve()).as_posix()}"
        except ValueError:
            continue
    raise MediaError(f"{path} is outside the viewer's folders")


def _path_of(url: str, roots: dict[str, Path]) -> Path:
    name, _, rest = url.partition("/")
    return roots[name] / rest


def _resolve(base: str, relative: str) -> str:
    parts = base.split("/")[:-1]
    for piece in relative.split("/"):
        if piece == "..":
            parts.pop()
        elif piece != ".":
            parts.append(piece)
    return "/".join(parts)


def _modules(entry: str, roots: dict[str, Path]) -> dict[str, str]:
    """Every module ``entry`` imports, by its URL under the roots, imports rewritten."""
    out: dict[str, str] = {}
    todo = [entry]
    while todo:
        url = todo.pop()
        if url in out:
            continue
        path = _path_of(url, roots)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise MediaError(f"cannot read the viewer's module {path}: {exc}") from None

        def bare(match: re.Match[str], url: str = url) -> str:
            target = _resolve(url, match.group(3))
            todo.append(target)
            return f"{match.group(1)}{match.group(2)}@sw/{target}{match.group(2)}"

        out[url] = _IMPORT.sub(bare, text)
    return out


def inline_page(
    page: Path, game: str, game_static: Path, replay: str, name: str, title: str
) -> str:
    """The viewer page ``page`` with its style, modules and ``replay`` inlined.

    Args:
        page: the viewer's HTML page (in ``game_static``).
        game: the game's name, its static folder's URL (``/static/<game>/``).
        game_static: the game's static folder.
        replay: the replay file's text, as the viewer reads a dropped file.
        name: the replay's name, shown by the viewer.
        title: the page's title.

    Raises:
        MediaError: a page or module that cannot be read.
    """
    roots = {game: game_static, "viewer": shared_static()}
    try:
        text = page.read_text(encoding="utf-8")
    except OSError as exc:
        raise MediaError(f"cannot read the viewer page {page}: {exc}") from None
    page_url = _url_of(page, roots)
    tags = _Tags()
    tags.feed(text)
    if tags.module is None:
        raise MediaError(f"{page} has no module script to inline")
    # Each stylesheet in its place, in order: the later ones override the earlier.
    for tag, href in tags.stylesheets:
        css_path = _path_of(_resolve(page_url, href), roots)
        try:
            css = css_path.read_text(encoding="utf-8")
        except OSError as exc:
            raise MediaError(f"cannot read the viewer's style {css_path}: {exc}") from None
        css = css.replace("</", "<\\/")  # a "</style" inside would end the element
        text = text.replace(tag, f"<style>\n{css}\n</style>", 1)
    tag, src = tags.module
    entry = _resolve(page_url, src)
    modules = _modules(entry, roots)
    imports = {
        f"@sw/{url}": "data:text/javascript;base64,"
        + base64.b64encode(source.encode("utf-8")).decode("ascii")
        for url, source in sorted(modules.items())
    }
    values = {
        "ELEMENT": REPLAY_ELEMENT,
        "NAME": html.escape(name, quote=True),
        # JSON in a script element: "</" or "<!--" would end or bend the element; in JSON
        # a "<" is only ever inside a string, where "\u003c" reads back the same.
        "REPLAY": replay.replace("<", "\\u003c"),
        "IMPORTS": json.dumps({"imports": imports}).replace("<", "\\u003c"),
        "ENTRY": f"@sw/{entry}",
    }
    # One pass, so that no value's text is taken for a token.
    scripts = _TOKEN.sub(lambda m: values[m.group(1)], _SCRIPTS.read_text(encoding="utf-8"))
    end = text.index(">", text.index("/", text.index(tag) + len(tag))) + 1  # its end tag
    text = text[: text.index(tag)] + scripts + text[end:]
    if tags.title is not None:
        text = text.replace(tags.title, html.escape(title), 1)
    return text
