"""One game-agnostic games table; ladders and tournaments as rows.

* ``games`` serves every game: it gains ``game``, ``title``, the match (``params``,
  ``max_turns``), ``ranks`` and ``replay`` (a replay kept whole); ``config`` becomes
  ``header`` and ``snakes`` becomes ``entrants``; the Battlesnake-only ``ruleset`` and
  ``map`` columns move into ``params``.  Every row of ``halite_games`` becomes a row of
  ``games`` (its ``.hlt`` in ``replay``), and ``halite_games`` goes.
* ``ladders`` and ``tournaments`` held each one's whole state as a JSON document; they
  become rows: ``ladders``, ``ladder_entries``, ``ladder_games``, ``ladder_ratings`` and
  ``tournaments``, ``tournament_entrants``, ``tournament_games``.

The data written by Snakewar 0.1 is converted here, with its own frozen knowledge of the
two games that existed then (their parameter names), not with today's code.  The
conversion cannot be undone: ``downgrade`` refuses.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 12:00:00
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_JSON = sa.JSON(none_as_null=True)
_JSONB = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(), "postgresql")
_WHEN = sa.DateTime(timezone=True)
_BATCH = 500

# -- what Snakewar 0.1 wrote --------------------------------------------------------------

# Battlesnake's raw rules settings and the match parameters named after the API's.
_SETTINGS = {
    "foodSpawnChance": "foodSpawnChance",
    "minimumFood": "minimumFood",
    "damagePerTurn": "hazardDamagePerTurn",
    "shrinkEveryNTurns": "shrinkEveryNTurns",
}


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except ValueError:
        return None


def _battlesnake_params(config: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    params: dict[str, Any] = {
        "ruleset": str(config.get("ruleset", "standard")),
        "map": str(config.get("map", "standard")),
        "width": int(config.get("width", 11)),
        "height": int(config.get("height", 11)),
    }
    for raw, name in _SETTINGS.items():
        number = _int(settings[raw]) if raw in settings else None
        if number is not None:
            params[name] = number
    return params


def _battlesnake_title(params: Mapping[str, Any]) -> str:
    return f"{params['ruleset']} · {params['map']} · {params['width']}x{params['height']}"


def _halite_params(config: Mapping[str, Any], _settings: Mapping[str, Any]) -> dict[str, Any]:
    return {"width": int(config.get("width") or 0), "height": int(config.get("height") or 0)}


# A 0.1 ladder or tournament config (ruleset, map, width, height, params, ...) by game.
_ARENA_PARAMS: dict[str, Callable[[Mapping[str, Any], Mapping[str, Any]], dict[str, Any]]] = {
    "battlesnake": _battlesnake_params,
    "halite3": _halite_params,
}
_OLD_DEFAULT_GAME = "battlesnake"  # 0.1 wrote no "game" key for Battlesnake ladders


def _arena_config(config: Mapping[str, Any]) -> dict[str, Any]:
    game = str(config.get("game") or _OLD_DEFAULT_GAME)
    params = _ARENA_PARAMS[game](config, config.get("params") or {})
    return {
        "game": game,
        "params": params,
        "game_size": int(config.get("game_size", 2)),
        "timeout_ms": config.get("timeout_ms"),
        "max_turns": config.get("max_turns"),
    }


# -- the new tables -------------------------------------------------------------------


def _create_arena_tables() -> None:
    op.create_table(
        "ladders",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("params", _JSON, nullable=False),
        sa.Column("game_size", sa.Integer(), nullable=False),
        sa.Column("timeout_ms", sa.Integer(), nullable=True),
        sa.Column("max_turns", sa.Integer(), nullable=True),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("games_played", sa.Integer(), nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("updated_at", _WHEN, nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "ladder_entries",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("paused", sa.Boolean(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=True),
        sa.Column("sigma", sa.Float(), nullable=True),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"], ["ladders.id"], name="fk_ladder_entries_ladder_id", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("ladder_id", "name", name="uq_ladder_entries_name"),
    )
    op.create_table(
        "ladder_games",
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=100), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("seats", _JSON, nullable=False),
        sa.Column("placement", _JSON, nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("played_at", _WHEN, nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"], ["ladders.id"], name="fk_ladder_games_ladder_id", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("ladder_id", "number"),
    )
    op.create_table(
        "ladder_ratings",
        sa.Column("ladder_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("entrant", sa.String(length=100), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["ladder_id"], ["ladders.id"], name="fk_ladder_ratings_ladder_id", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("ladder_id", "number", "entrant"),
    )
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(length=100), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("game", sa.String(length=32), nullable=False),
        sa.Column("params", _JSON, nullable=False),
        sa.Column("timeout_ms", sa.Integer(), nullable=True),
        sa.Column("max_turns", sa.Integer(), nullable=True),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("format", sa.String(length=32), nullable=False),
        sa.Column("heat_size", sa.Integer(), nullable=False),
        sa.Column("best_of", sa.Integer(), nullable=False),
        sa.Column("advance", sa.Integer(), nullable=False),
        sa.Column("options", _JSON, nullable=False),
        sa.Column("created_at", _WHEN, nullable=False),
        sa.Column("updated_at", _WHEN, nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_table(
        "tournament_entrants",
        sa.Column("tournament_id", sa.String(length=100), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("seed_rank", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_entrants_tournament_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "position"),
        sa.UniqueConstraint("tournament_id", "name", name="uq_tournament_entrants_name"),
    )
    op.create_table(
        "tournament_games",
        sa.Column("tournament_id", sa.String(length=100), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=100), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("seats", _JSON, nullable=False),
        sa.Column("placement", _JSON, nullable=False),
        sa.Column("turns", sa.Integer(), nullable=False),
        sa.Column("played_at", _WHEN, nullable=False),
        sa.ForeignKeyConstraint(
            ["tournament_id"],
            ["tournaments.id"],
            name="fk_tournament_games_tournament_id",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tournament_id", "ordinal"),
    )


# -- the conversion -------------------------------------------------------------------


def _games_table() -> sa.TableClause:
    return sa.table(
        "games",
        sa.column("id", sa.String),
        sa.column("game", sa.String),
        sa.column("created_at", _WHEN),
        sa.column("updated_at", _WHEN),
        sa.column("status", sa.String),
        sa.column("seed", sa.BigInteger),
        sa.column("source", sa.Text),
        sa.column("title", sa.Text),
        sa.column("width", sa.Integer),
        sa.column("height", sa.Integer),
        sa.column("turns", sa.Integer),
        sa.column("params", _JSON),
        sa.column("timeout_ms", sa.Integer),
        sa.column("max_turns", sa.Integer),
        sa.column("entrants", _JSONB),
        sa.column("header", _JSON),
        sa.column("result", _JSON),
        sa.column("ranks", _JSON),
        sa.column("winner_name", sa.Text),
        sa.column("replay", sa.LargeBinary),
    )


def _upgrade_games(bind: sa.Connection) -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("game", sa.String(length=32), nullable=True))
        batch.add_column(sa.Column("title", sa.Text(), nullable=True))
        batch.add_column(sa.Column("params", _JSON, nullable=True))
        batch.add_column(sa.Column("max_turns", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("ranks", _JSON, nullable=True))
        batch.add_column(sa.Column("replay", sa.LargeBinary(), nullable=True))
        batch.alter_column("config", new_column_name="header", existing_type=_JSON)
        batch.alter_column("snakes", new_column_name="entrants", existing_type=_JSONB)
        batch.alter_column("timeout_ms", existing_type=sa.Integer(), nullable=True)
    old = sa.table(
        "games",
        sa.column("id", sa.String),
        sa.column("ruleset", sa.Text),
        sa.column("map", sa.Text),
        sa.column("width", sa.Integer),
        sa.column("height", sa.Integer),
        sa.column("header", _JSON),
    )
    games = _games_table()
    rows = bind.execute(sa.select(old.c.id, old.c.ruleset, old.c.map, old.c.width, old.c.height,
                                  old.c.header)).all()  # fmt: skip
    for game_id, ruleset, map_id, width, height, header in rows:
        config = dict((header or {}).get("config") or {})
        config.update(ruleset=ruleset, map=map_id, width=width, height=height)
        params = _battlesnake_params(config, config.get("settings") or {})
        bind.execute(
            sa.update(games)
            .where(games.c.id == game_id)
            .values(game=_OLD_DEFAULT_GAME, title=_battlesnake_title(params), params=params)
        )
    with op.batch_alter_table("games") as batch:
        batch.alter_column("game", existing_type=sa.String(length=32), nullable=False)
        batch.alter_column("title", existing_type=sa.Text(), nullable=False)
        batch.drop_column("ruleset")
        batch.drop_column("map")
        batch.create_index("ix_games_game_created_at", ["game", "created_at"])


def _upgrade_halite_games(bind: sa.Connection) -> None:
    halite = sa.table(
        "halite_games",
        sa.column("id", sa.String),
        sa.column("created_at", _WHEN),
        sa.column("source", sa.Text),
        sa.column("seed", sa.BigInteger),
        sa.column("width", sa.Integer),
        sa.column("height", sa.Integer),
        sa.column("players", _JSON),
        sa.column("ranks", _JSON),
        sa.column("scores", _JSON),
        sa.column("turns", sa.Integer),
        sa.column("replay", sa.LargeBinary),
    )
    games = _games_table()
    taken = set(bind.scalars(sa.select(games.c.id)))
    offset = 0
    while True:
        batch = bind.execute(sa.select(halite).order_by(halite.c.id).limit(_BATCH).offset(offset))
        rows = batch.mappings().all()
        if not rows:
            break
        offset += len(rows)
        for row in rows:
            if row["id"] in taken:
                continue
            players = [str(p) for p in row["players"]]
            ranks = [int(r) for r in row["ranks"]]
            winner = next((p for p, r in zip(players, ranks, strict=False) if r == 1), None)
            bind.execute(
                sa.insert(games).values(
                    id=row["id"],
                    game="halite3",
                    created_at=row["created_at"],
                    updated_at=row["created_at"],
                    status="complete",
                    seed=row["seed"],
                    source=row["source"],
                    title=f"{row['width']}x{row['height']} map",
                    width=row["width"],
                    height=row["height"],
                    turns=row["turns"],
                    params={"width": row["width"], "height": row["height"]},
                    timeout_ms=None,
                    max_turns=None,
                    entrants=[{"name": p, "source": "", "color": ""} for p in players],
                    header={
                        "seed": row["seed"],
                        "width": row["width"],
                        "height": row["height"],
                        "players": players,
                    },
                    result={"ranks": ranks, "scores": list(row["scores"]), "killed": {}},
                    ranks=ranks,
                    winner_name=winner if len(players) > 1 else None,
                    replay=row["replay"],
                )
            )
    op.drop_index("ix_halite_games_created_at", table_name="halite_games")
    op.drop_table("halite_games")


_OldRows = list[tuple[str, dt.datetime | None, dt.datetime | None, dict[str, Any]]]


def _read_old(bind: sa.Connection, name: str, key: str) -> _OldRows:
    """Every row of a 0.1 ``ladders`` or ``tournaments`` table (key, times, state)."""
    old = sa.table(
        name,
        sa.column(key, sa.String),
        sa.column("created_at", _WHEN),
        sa.column("updated_at", _WHEN),
        sa.column("state", _JSON),
    )
    return [(row[0], row[1], row[2], row[3]) for row in bind.execute(sa.select(old)).all()]


def _upgrade_ladders(bind: sa.Connection, old_rows: _OldRows, when: dt.datetime) -> None:
    ladders = sa.table(
        "ladders",
        sa.column("id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("game", sa.String),
        sa.column("params", _JSON),
        sa.column("game_size", sa.Integer),
        sa.column("timeout_ms", sa.Integer),
        sa.column("max_turns", sa.Integer),
        sa.column("seed", sa.BigInteger),
        sa.column("games_played", sa.Integer),
        sa.column("created_at", _WHEN),
        sa.column("updated_at", _WHEN),
    )
    entries = sa.table(
        "ladder_entries",
        *(sa.column(c) for c in ("ladder_id", "position", "name", "source", "paused")),
        *(sa.column(c) for c in ("failures", "note", "mu", "sigma", "games")),
    )
    games = sa.table(
        "ladder_games",
        *(sa.column(c) for c in ("ladder_id", "number", "game_id", "seed", "turns")),
        sa.column("seats", _JSON),
        sa.column("placement", _JSON),
        sa.column("played_at", _WHEN),
    )
    ratings = sa.table(
        "ladder_ratings", *(sa.column(c) for c in ("ladder_id", "number", "entrant", "mu", "sigma"))
    )
    for name, created, updated, state in old_rows:
        config = _arena_config(state["config"])
        played = list(state.get("games") or [])
        ladder_id = bind.execute(
            sa.insert(ladders)
            .values(
                name=name,
                seed=int(state.get("seed", 1)),
                games_played=len(played),
                created_at=created or when,
                updated_at=updated or when,
                **config,
            )
            .returning(ladders.c.id)
        ).scalar_one()
        board = state.get("leaderboard") or {}
        rated = board.get("ratings") or {}
        counts = board.get("games") or {}
        for position, entry in enumerate(state.get("entries") or []):
            rating = rated.get(entry["name"])
            bind.execute(
                sa.insert(entries).values(
                    ladder_id=ladder_id,
                    position=position,
                    name=entry["name"],
                    source=entry["source"],
                    paused=bool(entry.get("paused", False)),
                    failures=int(entry.get("failures", 0)),
                    note=str(entry.get("note", "")),
                    mu=None if rating is None else float(rating["mu"]),
                    sigma=None if rating is None else float(rating["sigma"]),
                    games=int(counts.get(entry["name"], 0)),
                )
            )
        numbers: dict[str, int] = {}
        for number, game in enumerate(played):
            numbers[game["game_id"]] = number
            bind.execute(
                sa.insert(games).values(
                    ladder_id=ladder_id,
                    number=number,
                    game_id=game["game_id"],
                    seed=int(game["seed"]),
                    seats=list(game["snakes"]),
                    placement=[list(group) for group in game["placement"]],
                    turns=int(game["turns"]),
                    played_at=updated or when,
                )
            )
        for entrant, points in (board.get("history") or {}).items():
            for point in points:
                found = numbers.get(point["game"])
                if found is None:
                    continue
                bind.execute(
                    sa.insert(ratings).values(
                        ladder_id=ladder_id,
                        number=found,
                        entrant=entrant,
                        mu=float(point["mu"]),
                        sigma=float(point["sigma"]),
                    )
                )


def _upgrade_tournaments(bind: sa.Connection, old_rows: _OldRows, when: dt.datetime) -> None:
    tournaments = sa.table(
        "tournaments",
        *(sa.column(c) for c in ("id", "name", "game", "timeout_ms", "max_turns", "seed")),
        *(sa.column(c) for c in ("format", "heat_size", "best_of", "advance")),
        sa.column("params", _JSON),
        sa.column("options", _JSON),
        sa.column("created_at", _WHEN),
        sa.column("updated_at", _WHEN),
    )
    entrants = sa.table(
        "tournament_entrants",
        *(sa.column(c) for c in ("tournament_id", "position", "name", "source", "seed_rank")),
    )
    games = sa.table(
        "tournament_games",
        *(sa.column(c) for c in ("tournament_id", "ordinal", "match_id", "number", "game_id")),
        *(sa.column(c) for c in ("seed", "turns")),
        sa.column("seats", _JSON),
        sa.column("placement", _JSON),
        sa.column("played_at", _WHEN),
    )
    for tid, created, updated, state in old_rows:
        config = _arena_config(state["config"])
        t = state["tournament"]
        bind.execute(
            sa.insert(tournaments).values(
                id=tid,
                name=state["name"],
                game=config["game"],
                params=config["params"],
                timeout_ms=config["timeout_ms"],
                max_turns=config["max_turns"],
                seed=int(state.get("seed", 1)),
                format=t["format"],
                heat_size=int(t["heat_size"]),
                best_of=int(t["best_of"]),
                advance=int(t["advance"]),
                options={
                    "grand_final_reset": bool(t.get("grand_final_reset", True)),
                    "swiss_rounds": t.get("swiss_rounds"),
                    "swiss_seed": t.get("seed"),
                },
                created_at=created or when,
                updated_at=updated or when,
            )
        )
        seeds = {name: rank for rank, name in enumerate(t["entrants"])}
        for position, snake in enumerate(state["snakes"]):
            bind.execute(
                sa.insert(entrants).values(
                    tournament_id=tid,
                    position=position,
                    name=snake["name"],
                    source=snake["source"],
                    seed_rank=seeds[snake["name"]],
                )
            )
        # The reports, in order, are the games in the order they were played.
        match_games: dict[str, list[dict[str, Any]]] = state.get("match_games") or {}
        used: dict[str, int] = {}
        ordinal = 0
        for report in t.get("reports") or []:
            match_id = report["match"]
            for placement in report["games"]:
                number = used.get(match_id, 0)
                used[match_id] = number + 1
                recorded = match_games.get(match_id, [])
                game = recorded[number] if number < len(recorded) else {}
                bind.execute(
                    sa.insert(games).values(
                        tournament_id=tid,
                        ordinal=ordinal,
                        match_id=match_id,
                        number=number,
                        game_id=str(game.get("game_id", "")),
                        seed=int(game.get("seed", 0)),
                        seats=list(game.get("seats") or [n for g in placement for n in g]),
                        placement=[list(group) for group in placement],
                        turns=int(game.get("turns", 0)),
                        played_at=updated or when,
                    )
                )
                ordinal += 1


def upgrade() -> None:
    """Convert games, Halite games, ladders and tournaments (see the module docstring)."""
    bind = op.get_bind()
    when = dt.datetime.now(dt.UTC)
    _upgrade_games(bind)
    _upgrade_halite_games(bind)
    # The old tables go first: the new ones reuse their names (and, on PostgreSQL, the
    # names of their constraints).
    old_ladders = _read_old(bind, "ladders", "name")
    old_tournaments = _read_old(bind, "tournaments", "id")
    op.drop_table("ladders")
    op.drop_table("tournaments")
    _create_arena_tables()
    _upgrade_ladders(bind, old_ladders, when)
    _upgrade_tournaments(bind, old_tournaments, when)


def downgrade() -> None:
    """Refuse: the conversion of revision 0005 cannot be undone."""
    raise RuntimeError(
        "revision 0005 converted games, ladders and tournaments to a new layout and "
        "cannot be undone; restore a backup of the database taken before upgrading"
    )
