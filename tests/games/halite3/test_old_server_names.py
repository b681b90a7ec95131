"""Halite III's server parts moved into its package still import from the server's modules.

For one release, with a :class:`DeprecationWarning` naming the new home; the server's
modules themselves no longer import the game.
"""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    ("old", "new", "name"),
    [
        ("snakewar.server.decoding", "snakewar.games.halite3.decoding", "decode_document"),
        ("snakewar.server.decoding", "snakewar.games.halite3.decoding", "gzipped_document"),
        ("snakewar.server.decoding", "snakewar.games.halite3.decoding", "played_upload"),
        ("snakewar.server.decoding", "snakewar.games.halite3.decoding", "MAX_UPLOAD_BYTES"),
        ("snakewar.server.decoding", "snakewar.games.halite3.decoding", "MAX_DOCUMENT_BYTES"),
        ("snakewar.server.decoding", "snakewar.games.halite3.decoding", "MAX_DOCUMENT_ELEMENTS"),
        ("snakewar.server.schemas", "snakewar.games.halite3.routes.schemas", "ProgramGameOut"),
        (
            "snakewar.server.schemas",
            "snakewar.games.halite3.routes.schemas",
            "HaliteReplayDocumentOut",
        ),
    ],
)
def test_a_moved_name_still_imports_from_the_server_with_a_warning(
    old: str, new: str, name: str
) -> None:
    shim = importlib.import_module(old)
    moved = importlib.import_module(new)
    vars(shim).pop(name, None)  # looked up afresh: the first lookup warns
    with pytest.warns(DeprecationWarning, match=rf"{old}\.{name} moved to {new}\.{name}"):
        assert getattr(shim, name) is getattr(moved, name)
    assert name not in shim.__all__ and name in moved.__all__
    assert name in dir(shim)
    with pytest.raises(AttributeError):
        _ = shim.no_such_name
