"""Every Battlesnake map has a title for people and a default board, in the catalogue
and ``GET /api/maps`` (the new-game form lists the maps by these)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from snakewar.games.battlesnake.map_titles import DEFAULT_SIZE, default_size, map_title
from snakewar.games.battlesnake.rules.maps import BoardSizes, MapMeta, list_maps
from snakewar.server import ServerConfig, create_app


def test_the_maps_route_gives_each_map_a_title_and_a_default_size() -> None:
    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as client:
        maps = client.get("/api/maps").json()
    assert {m["id"] for m in maps} == {m.id for m in list_maps()}
    for game_map in maps:
        title = game_map["title"]
        assert title and "_" not in title and not title.startswith("hz"), game_map
        width, height = game_map["default_size"]
        sizes = game_map["sizes"]
        assert sizes == "any" or [width, height] in sizes, game_map
        # The reference's own name is still there, for those who know it.
        assert game_map["name"]
    titles = {m["id"]: m["title"] for m in maps}
    assert titles["arcade_maze"] == "Arcade Maze"
    assert titles["hz_islands_bridges_lg"] == "Islands and Bridges (large)"
    assert len(set(titles.values())) == len(titles), "two maps share a title"
    defaults = {m["id"]: m["default_size"] for m in maps}
    assert defaults["standard"] == defaults["hz_castle_wall"] == list(DEFAULT_SIZE)
    assert defaults["arcade_maze"] == [19, 21]
    assert defaults["hz_castle_wall_xl"] == [25, 25]


def test_a_map_named_by_its_id_elsewhere_gets_a_title_made_from_it() -> None:
    meta = MapMeta(
        id="hz_my_big_maze",
        name="hz_my_big_maze",
        description="",
        author="",
        version=1,
        min_players=1,
        max_players=2,
        sizes=BoardSizes.fixed((9, 9), (13, 13)),
    )
    assert map_title(meta) == "My Big Maze"
    assert default_size(meta) == (9, 9)
    assert map_title(MapMeta("x", "A Title", "", "", 1, 1, 2, BoardSizes.any())) == "A Title"
    assert default_size(MapMeta("x", "x", "", "", 1, 1, 2, BoardSizes.any())) == DEFAULT_SIZE
