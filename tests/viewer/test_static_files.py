"""The site's static files: the shared ones and every game's, present, offline and well-formed.

The server serves the shared files at ``/static/viewer/`` and each game's own (its
adapter's ``static_assets()``) at ``/static/<game>/``; the modules import one another by
those URLs, so the checks run on a copy of that tree (``static_site``).
"""

from __future__ import annotations

import re
import subprocess
from importlib import resources
from pathlib import Path

import pytest

from snakewar.viewer import ASSETS, static_dir
from tests.js_modules import static_folders


def shared_files() -> set[str]:
    root = static_dir()
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def site_files() -> list[tuple[str, Path]]:
    """Every static file as ``(URL under /static/, path)``, the shared ones and each game's."""
    return sorted(
        (f"{name}/{path.relative_to(folder).as_posix()}", path)
        for name, folder in static_folders().items()
        for path in folder.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    )


def test_every_shared_asset_exists_in_the_package() -> None:
    root = static_dir()
    for name in ASSETS:
        assert (root / name).is_file(), name
        assert (root / name).stat().st_size > 0, name
    assert resources.files("snakewar.viewer").joinpath("static", "player.js").is_file()
    # Nothing shipped is left out of ASSETS (the server and packagers rely on it).
    assert shared_files() == set(ASSETS)


def test_each_game_with_assets_has_a_viewer_page() -> None:
    games = {name for name in static_folders() if name != "viewer"}
    assert {"battlesnake", "halite3"} <= games
    for name in games:
        assert (static_folders()[name] / "board.html").is_file(), name


def test_the_files_load_nothing_from_elsewhere() -> None:
    for url, path in site_files():
        text = path.read_text(encoding="utf-8")
        # The SVG namespace is an identifier, not a download.
        urls = set(re.findall(r"https?://[^\s\"'`)]+", text)) - {"http://www.w3.org/2000/svg"}
        assert not urls, f"{url} refers to {urls}: the viewers must work offline"


def test_every_relative_import_resolves_as_served(static_site: Path) -> None:
    # A game's module imports the shared ones across folders (../viewer/player.js): they
    # resolve in the tree the server serves, not only in the game's own folder.
    for url, _ in site_files():
        path = static_site / url
        text = path.read_text(encoding="utf-8")
        targets = re.findall(r'from\s+"(\.\.?/[^"]+)"', text)
        targets += re.findall(r'(?:src|href)="(\.\.?/[^"]+|[\w-]+\.(?:js|css))"', text)
        for target in targets:
            assert (path.parent / target).resolve().is_file(), f"{url} refers to missing {target}"


@pytest.mark.parametrize("url", [url for url, _ in site_files() if url.endswith(".js")])
def test_module_parses(url: str, node: str, static_site: Path) -> None:
    done = subprocess.run([node, "--check", str(static_site / url)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
