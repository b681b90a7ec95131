"""Stored games of every game: rows of ``games``, their ``frames`` and ``game_calls``.

A game is stored as it runs (:meth:`SqlGameRepository.begin`, :meth:`~SqlGameRepository.add_frame`,
:meth:`~SqlGameRepository.finish`) or at once when it is over
(:meth:`~SqlGameRepository.save_played`).  Its data stays in the game's own JSON shapes
(:class:`~snakewar.engine.protocol.GameData`); the game's adapter turns it back into a
replay file.

On PostgreSQL every write that changes what a spectator sees (a game begun, a frame
added, a game finished or aborted) also notifies the channel :data:`NOTIFY_CHANNEL`
with ``<game id>:<event>`` (the frame's turn, ``end``, or ``status``), in the same
transaction: the notification is delivered when the write is committed, to every
process listening (:mod:`snakewar.storage.events`), whichever process wrote it.  SQLite
has no notifications: readers there poll.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, cast

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from snakewar.engine.protocol import (
    Entrant,
    Frame,
    GameData,
    MatchSpec,
    PlayedGame,
    StoredGame,
)
from snakewar.errors import ConflictError, NotFoundError, TooLargeError, choices_text
from snakewar.storage.database import Database, StoreError, now, utc
from snakewar.storage.models import (
    GAME_STATUSES,
    MAX_ID_LENGTH,
    FrameModel,
    GameCallsModel,
    GameLogModel,
    GameModel,
    GameStatus,
)
from snakewar.storage.quota import UPLOAD_SOURCE, hold_quota

__all__ = [
    "FINISHED_STATUSES",
    "MAX_FAILURE_LENGTH",
    "MAX_LIST_LIMIT",
    "MAX_LOG_LENGTH",
    "MAX_REPLAY_BYTES",
    "NOTIFY_CHANNEL",
    "GameExistsError",
    "GameNotFoundError",
    "GameRow",
    "SqlGameRepository",
]

FINISHED_STATUSES: Final = tuple(status for status in GAME_STATUSES if status.finished)

NOTIFY_CHANNEL: Final = "snakewar_games"
"""The PostgreSQL channel the game writes notify (``<game id>:<turn|end|status>``)."""

MAX_LIST_LIMIT: Final = 1000
"""The most games :meth:`SqlGameRepository.latest` returns at once."""

MAX_REPLAY_BYTES: Final = 32 * 1024 * 1024
"""The largest replay file kept whole (a ``.hlt``)."""

MAX_FAILURE_LENGTH: Final = 1000
"""The longest failure reason kept per entrant (the start of it)."""

MAX_LOG_LENGTH: Final = 256 * 1024
"""The longest log kept per seat (its end: what a bot wrote last says most)."""


class GameExistsError(StoreError, ConflictError):
    """Raised when a game id is stored already."""


class GameNotFoundError(NotFoundError):
    """Raised when no game with the given id is stored."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        super().__init__(f"no stored game with id {game_id!r}")


@dataclass(frozen=True, slots=True)
class GameRow:
    """One stored game's columns (a plain value: no database session behind it).

    ``created_at`` and ``updated_at`` are timezone-aware (UTC); ``turns`` is the number
    of turns stored; ``entrants`` has ``name``, ``source`` and ``color`` per seat;
    ``header`` and ``result`` are the game's own JSON (``result`` ``None`` while it
    runs); ``replay_size`` is the length of a replay kept whole (0 when none);
    ``failure`` why an aborted game ended without a result, when that is known;
    ``attempt`` how many times it was played again from turn 0 (:meth:`restart`).
    """

    id: str
    game: str
    created_at: dt.datetime
    updated_at: dt.datetime
    status: GameStatus
    seed: int
    source: str
    title: str
    width: int
    height: int
    turns: int
    params: dict[str, Any] | None
    timeout_ms: int | None
    max_turns: int | None
    entrants: list[dict[str, str]]
    header: dict[str, Any]
    result: dict[str, Any] | None
    ranks: list[int] | None
    winner_name: str | None
    replay_size: int
    owner_id: int | None = None
    failure: str | None = None
    attempt: int = 0

    @property
    def finished(self) -> bool:
        """Whether the game is over (complete, aborted or cancelled)."""
        return self.status != GameStatus.RUNNING

    def spec(self) -> MatchSpec | None:
        """The match it played (for a rematch); ``None`` for a game read from a file."""
        if self.params is None:
            return None
        return MatchSpec(
            game=self.game,
            entrants=tuple(Entrant(str(e["source"]), str(e["name"])) for e in self.entrants),
            params=dict(self.params),
            timeout_ms=self.timeout_ms,
            max_turns=self.max_turns,
            source=self.source,
        )


class SqlGameRepository:
    """The stored games of a :class:`~snakewar.storage.database.Database`."""

    def __init__(self, db: Database) -> None:
        self._db = db

    # -- writing --

    def begin(
        self,
        listing: StoredGame,
        data: GameData,
        *,
        spec: MatchSpec | None = None,
        created_at: dt.datetime | None = None,
        owner_id: int | None = None,
        lease: tuple[str, dt.datetime] | None = None,
        again: bool = False,
    ) -> GameRow:
        """Store a game that starts now (status ``running``): its header and first frames.

        ``owner_id`` is the user who started it (``None``: the server itself); ``lease``
        the server that plays it and until when it vouches for it (:meth:`renew_leases`).
        ``again``: the game is played again from its start (its worker died): a row
        kept from the earlier try is started afresh (:meth:`restart`) instead of refused.

        Doing it again does nothing more: when the game is stored already exactly as this
        call stores it (the same listing, header, frames, owner and lease holder, still
        running, no turn further), it is an earlier try of this very call whose answer
        was lost with the connection (:func:`~snakewar.storage.retried` tries again),
        and that row is the answer.

        Raises:
            GameExistsError: if another game with this id is stored already (not ``again``).
            StoreError: for a bad id.
        """
        if again and self.restart(listing.id, lease):
            with self._db.session() as session:
                row = session.get(GameModel, _check_id(listing.id))
                if row is not None:
                    row.header = dict(data.header)
                    _insert_frames(session, row.id, list(data.frames))
                    row.turns = data.frames[-1].turn if data.frames else 0
                    row.updated_at = now()
                    session.flush()
                    return _row(row)
        try:
            return self._insert(
                listing, data, GameStatus.RUNNING, spec, created_at, owner_id=owner_id, lease=lease
            )
        except GameExistsError:
            begun = self._begun_already(listing, data, spec, owner_id, lease)
            if begun is None:
                raise
            return begun

    def _begun_already(
        self,
        listing: StoredGame,
        data: GameData,
        spec: MatchSpec | None,
        owner_id: int | None,
        lease: tuple[str, dt.datetime] | None,
    ) -> GameRow | None:
        """The game as an earlier try of the same :meth:`begin` stored it (else ``None``).

        The lease holder is part of the match: another server (or Ray actor) beginning
        a game of the same id, even with the same content, is refused as before.
        """
        expected = _listing_values(listing, data, spec)
        with self._db.session() as session:
            row = session.get(GameModel, _check_id(listing.id))
            if (
                row is None
                or row.status != GameStatus.RUNNING
                or row.owner_id != owner_id
                or row.server_id != (lease[0] if lease is not None else None)
                or any(_json(getattr(row, key)) != _json(expected[key]) for key in _BEGUN_KEYS)
            ):
                return None
            stored = session.scalars(
                sa.select(FrameModel.turn).where(FrameModel.game_id == row.id)
            ).all()
            if sorted(stored) != [frame.turn for frame in data.frames]:
                return None
            if lease is not None:
                row.lease_until = _aware(lease[1])
            return _row(row)

    def add_frame(self, game_id: str, frame: Frame) -> None:
        """Store one more frame of a running game.

        Storing a frame that is stored already does nothing, so a retry is safe.

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: if the frame would leave a gap (turn 5 before turn 4), or the
                game is no longer running.
        """
        _check_frame(frame)
        with self._db.session() as session:
            game = _get(session, _check_id(game_id))
            if frame.turn <= game.turns:
                return  # stored already: idempotent
            if game.status != GameStatus.RUNNING:
                raise StoreError(
                    f"game {game_id!r} is {game.status}; frames are added to running games only"
                )
            if frame.turn > game.turns + 1:
                raise StoreError(
                    f"turn {frame.turn} of game {game_id!r} would leave a gap: "
                    f"expected turn {game.turns + 1} (frames are stored in order)"
                )
            _insert_frames(session, game_id, [frame])
            game.turns = frame.turn
            game.updated_at = now()
            _notify(session, game_id, frame.turn)

    def add_calls(self, game_id: str, turn: int, calls: Sequence[Mapping[str, Any]]) -> None:
        """Store calls made on turn ``turn`` of a game (added to those stored already).

        ``calls`` are JSON objects as the game's referee records them (the request
        inspector's data); a turn may get several rounds (``/start``, then ``/move``).
        Storing the round that ends the turn's list again does nothing, so a retry
        after a lost connection stores it once.

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: for a bad turn.
        """
        game_id = _check_id(game_id)
        _check_count("turn", turn, 0, 2**31 - 1)
        new = [dict(call) for call in calls]
        with self._db.session() as session:
            _require(session, game_id)
            # The turn's row made if it is missing (never a second one, even when another
            # try of this call made it meanwhile), then held while its list grows.
            _insert_missing(
                session, GameCallsModel, [{"game_id": game_id, "turn": turn, "calls": []}]
            )
            row = session.get(
                GameCallsModel, (game_id, turn), with_for_update=True, populate_existing=True
            )
            assert row is not None
            stored = list(row.calls)
            if new and stored[len(stored) - len(new) :] == _json(new):
                # A round's records (its kind, each snake's request, reply and timing)
                # end the list already: an earlier try of this call, whose answer was
                # lost with the connection.  Two rounds of one turn differ in kind.
                return
            # A new list, so that the JSON column sees the change.
            row.calls = [*stored, *new]

    def calls(self, game_id: str, turn: int) -> list[dict[str, Any]]:
        """The calls stored for turn ``turn`` of a game (empty: none kept).

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: for a bad turn.
        """
        game_id = _check_id(game_id)
        _check_count("turn", turn, 0, 2**62)
        with self._db.session() as session:
            _require(session, game_id)
            row = session.get(GameCallsModel, (game_id, turn))
            return [] if row is None else list(row.calls)

    def log(self, game_id: str, seat: int) -> str | None:
        """What a finished game logged about seat ``seat`` (``None``: no log).

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: for a bad seat.
        """
        game_id = _check_id(game_id)
        _check_count("seat", seat, 0, 1024)
        with self._db.session() as session:
            _require(session, game_id)
            row = session.get(GameLogModel, (game_id, seat))
            return None if row is None else row.log

    def finish(self, game_id: str, status: str, played: PlayedGame | None = None) -> GameRow:
        """Mark a game finished; with ``played``, store its result and any missing frames.

        The header is stored again from ``played`` (what was learnt during the game stays).
        A game that ``played`` keeps as one replay file, with no frames of its own (a
        game whose replay is one document), drops the frames streamed while it ran: the
        file holds them all, and keeping both would store every game twice.  A game stopped without
        ``played`` (cancelled, aborted) keeps its frames: they are all there is of it.

        Args:
            game_id: the game.
            status: ``complete`` (needs ``played``), ``aborted`` or ``cancelled``.
            played: the finished game, when it was played to its end.

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: for a bad status, or a game with fewer frames than stored.
        """
        _check_finished_status(status)
        if status == GameStatus.COMPLETE and played is None:
            raise StoreError(f"game {game_id!r} has no result; status 'complete' needs one")
        with self._db.session() as session:
            game = _get(session, _check_id(game_id))
            if played is not None and played.data.replay is not None and not played.data.frames:
                session.execute(sa.delete(FrameModel).where(FrameModel.game_id == game_id))
            if played is not None:
                frames = played.data.frames
                if frames and frames[-1].turn < game.turns:
                    raise StoreError(
                        f"game {game_id!r} has {frames[-1].turn} turns but {game.turns} are "
                        "stored; expected the whole game"
                    )
                _insert_frames(session, game_id, [f for f in frames if f.turn > game.turns])
                created = game.created_at
                for key, value in _played_values(played, status).items():
                    setattr(game, key, value)
                game.created_at = created
                _save_logs(session, game_id, played)
            else:
                game.status = status
            game.updated_at = now()
            session.flush()
            _notify(session, game_id, "end")
            return _row(game)

    def save_played(
        self,
        played: PlayedGame,
        *,
        status: str = GameStatus.COMPLETE,
        created_at: dt.datetime | None = None,
        owner_id: int | None = None,
        quota: int | None = None,
    ) -> bool:
        """Store a whole finished game at once; ``False`` if its id is stored already.

        ``quota`` (bytes; ``None``: no cap) caps what ``owner_id`` stores of uploads,
        this game's replay file included (:mod:`snakewar.storage.quota`), checked in
        the transaction that stores it.

        Raises:
            StoreError: for a bad id or status, or a replay file over
                :data:`MAX_REPLAY_BYTES`.
            QuotaExceededError: if the game would take its owner past ``quota``.
        """
        _check_finished_status(status)
        try:
            self._insert(
                played.stored(),
                played.data,
                status,
                played.spec,
                created_at,
                played,
                owner_id=owner_id,
                quota=quota,
            )
        except GameExistsError:
            return False
        return True

    def _insert(
        self,
        listing: StoredGame,
        data: GameData,
        status: str,
        spec: MatchSpec | None,
        created_at: dt.datetime | None,
        played: PlayedGame | None = None,
        *,
        owner_id: int | None = None,
        quota: int | None = None,
        lease: tuple[str, dt.datetime] | None = None,
    ) -> GameRow:
        game_id = _check_id(listing.id)
        created = now() if created_at is None else _aware(created_at)
        values = _listing_values(listing, data, spec)
        if played is not None:
            values.update(_played_values(played, status))
        values["status"] = status
        values["owner_id"] = owner_id
        if lease is not None:
            # With the row, in its transaction: a retried begin knows its own row by it.
            values["server_id"], values["lease_until"] = lease[0], _aware(lease[1])
        exists = GameExistsError(f"a game with id {game_id!r} is stored already")
        try:
            with self._db.session() as session:
                if owner_id is not None and listing.source == UPLOAD_SOURCE:
                    hold_quota(session, owner_id, len(data.replay or b""), quota)
                if session.get(GameModel, game_id) is not None:
                    raise exists
                game = GameModel(id=game_id, created_at=created, updated_at=created, **values)
                session.add(game)
                session.flush()
                _insert_frames(session, game_id, list(data.frames))
                if played is not None:
                    _save_logs(session, game_id, played)
                _notify(session, game_id, "end" if GameStatus(status).finished else game.turns)
                return _row(game)
        except IntegrityError:
            # Another writer stored the same id between our check and our insert.
            raise exists from None

    def set_status(self, game_id: str, status: str) -> None:
        """Set a game's status.

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: for a status that is not one of :data:`GAME_STATUSES`.
        """
        _check_status(status)
        with self._db.session() as session:
            game = _get(session, _check_id(game_id))
            game.status = status
            game.updated_at = now()
            _notify(session, game_id, "end" if GameStatus(status).finished else "status")

    def restart(self, game_id: str, lease: tuple[str, dt.datetime] | None = None) -> bool:
        """Forget what a running game played so far: it is played again from turn 0.

        Its frames, calls and logs are deleted and its turn count reset; it stays
        ``running`` (with ``lease``, held anew).  Returns ``False`` when the game is not
        stored or no longer running (nothing is changed then).
        """
        game_id = _check_id(game_id)
        with self._db.session() as session:
            game = session.get(GameModel, game_id)
            if game is None or game.status != GameStatus.RUNNING:
                return False
            session.execute(sa.delete(FrameModel).where(FrameModel.game_id == game_id))
            session.execute(sa.delete(GameCallsModel).where(GameCallsModel.game_id == game_id))
            session.execute(sa.delete(GameLogModel).where(GameLogModel.game_id == game_id))
            game.turns = 0
            game.failure = None
            game.attempt += 1
            game.updated_at = now()
            if lease is not None:
                game.server_id, game.lease_until = lease[0], _aware(lease[1])
            # Its followers elsewhere must start over: the frames they hold are gone.
            _notify(session, game_id, "restart")
        return True

    def abort(self, game_id: str, reason: str) -> None:
        """Mark a game ``aborted`` and keep why (its frames stay, to be watched).

        Raises:
            GameNotFoundError: if the game is not stored.
        """
        with self._db.session() as session:
            game = _get(session, _check_id(game_id))
            game.status = GameStatus.ABORTED
            game.failure = _text(reason)[:MAX_FAILURE_LENGTH]
            game.updated_at = now()
            _notify(session, game_id, "end")

    def renew_leases(self, server_id: str, game_ids: Sequence[str], until: dt.datetime) -> int:
        """Say that ``server_id`` still plays ``game_ids`` until ``until``; how many were."""
        if not game_ids:
            return 0
        with self._db.session() as session:
            result = session.execute(
                sa.update(GameModel)
                .where(GameModel.id.in_(list(game_ids)), GameModel.status == GameStatus.RUNNING)
                .values(server_id=server_id, lease_until=_aware(until))
                .execution_options(synchronize_session=False)
            )
            return cast(CursorResult[Any], result).rowcount

    def abort_expired(self, when: dt.datetime | None = None) -> int:
        """Mark ``aborted`` every running game whose lease ran out (or that has none).

        Servers sharing a database renew the leases of the games they play; a game
        whose server died (or that an older Snakewar left running) stops being renewed,
        and the next server to look aborts it.  Its frames stay, so it can be watched.
        """
        when = now() if when is None else _aware(when)
        with self._db.session() as session:
            return _abort(
                session,
                "its server or worker stopped vouching for it (its lease ran out): it died, "
                "or lost the database for longer than a lease",
                GameModel.status == GameStatus.RUNNING,
                sa.or_(GameModel.lease_until.is_(None), GameModel.lease_until < when),
            )

    def mark_running_as_aborted(self) -> int:
        """Mark every ``running`` game ``aborted``; return how many there were.

        Called when a server starts: a game still running then was cut off by a crash
        or a restart.  Its frames stay, so it can still be watched and exported.
        """
        with self._db.session() as session:
            return _abort(
                session,
                "it was running when a server started",
                GameModel.status == GameStatus.RUNNING,
            )

    def delete(self, game_id: str) -> None:
        """Delete a game, its frames and its calls.

        Raises:
            GameNotFoundError: if the game is not stored.
        """
        game_id = _check_id(game_id)
        with self._db.session() as session:
            session.execute(sa.delete(FrameModel).where(FrameModel.game_id == game_id))
            session.execute(sa.delete(GameCallsModel).where(GameCallsModel.game_id == game_id))
            session.execute(sa.delete(GameLogModel).where(GameLogModel.game_id == game_id))
            result = session.execute(sa.delete(GameModel).where(GameModel.id == game_id))
            if not cast(CursorResult[Any], result).rowcount:
                raise GameNotFoundError(game_id)

    # -- reading --

    def get(self, game_id: str) -> GameRow | None:
        """The stored game ``game_id``, or ``None`` if there is none."""
        if not _valid_id(game_id):
            return None
        with self._db.session() as session:
            found = session.execute(_summary_query().where(GameModel.id == game_id)).first()
            return None if found is None else _summary_row(found)

    def latest(
        self,
        limit: int = 50,
        offset: int = 0,
        *,
        status: str | None = None,
        game: str | None = None,
    ) -> list[GameRow]:
        """Stored games, newest first.

        Args:
            limit: at most this many (1 to :data:`MAX_LIST_LIMIT`).
            offset: skip this many of the newest first.
            status: only games with this status.
            game: only games of this game (its registry key).

        Raises:
            StoreError: for a bad limit, offset or status.
        """
        _check_count("limit", limit, 1, MAX_LIST_LIMIT)
        _check_count("offset", offset, 0, 2**62)
        query = _summary_query()
        if status is not None:
            _check_status(status)
            query = query.where(GameModel.status == status)
        if game is not None:
            query = query.where(GameModel.game == game)
        query = (
            query.order_by(GameModel.created_at.desc(), GameModel.id.desc())
            .limit(limit)
            .offset(offset)
        )
        with self._db.session() as session:
            return [_summary_row(found) for found in session.execute(query)]

    def count(self, *, status: str | None = None, game: str | None = None) -> int:
        """How many games are stored (with ``status`` and of ``game``, if given)."""
        query = sa.select(sa.func.count()).select_from(GameModel)
        if status is not None:
            _check_status(status)
            query = query.where(GameModel.status == status)
        if game is not None:
            query = query.where(GameModel.game == game)
        with self._db.session() as session:
            return int(session.scalar(query) or 0)

    def count_running_owned(
        self,
        owner_id: int,
        *,
        excluding: Collection[str] = (),
        when: dt.datetime | None = None,
    ) -> int:
        """How many of ``owner_id``'s games are running now, whichever server plays them.

        Web replicas sharing a database count a user's live games here, so one user's
        cap holds across them.  A game whose lease ran out (its server died) no longer
        counts; ``excluding``: the games the caller already counts itself.
        """
        when = now() if when is None else _aware(when)
        query = (
            sa.select(sa.func.count())
            .select_from(GameModel)
            .where(
                GameModel.status == GameStatus.RUNNING,
                GameModel.owner_id == owner_id,
                GameModel.lease_until >= when,
            )
        )
        if excluding:
            query = query.where(GameModel.id.not_in(list(excluding)))
        with self._db.session() as session:
            return int(session.scalar(query) or 0)

    def frames(self, game_id: str, offset: int = 0, limit: int | None = None) -> list[Any]:
        """A game's frames (what viewers draw) from turn ``offset`` on, in turn order.

        Args:
            game_id: the game.
            offset: the first turn (>= 0); past the last frame gives an empty list.
            limit: at most this many frames (>= 1), or all.

        Raises:
            GameNotFoundError: if the game is not stored.
            StoreError: for a bad offset or limit.
        """
        game_id = _check_id(game_id)
        _check_count("offset", offset, 0, 2**62)
        if limit is not None:
            _check_count("limit", limit, 1, 2**62)
        query = (
            sa.select(FrameModel.frame)
            .where(FrameModel.game_id == game_id, FrameModel.turn >= offset)
            .order_by(FrameModel.turn)
        )
        if limit is not None:
            query = query.limit(limit)
        with self._db.session() as session:
            _require(session, game_id)
            return list(session.scalars(query))

    def frame_count(self, game_id: str) -> int:
        """How many frames a game has.

        Raises:
            GameNotFoundError: if the game is not stored.
        """
        game_id = _check_id(game_id)
        query = sa.select(sa.func.count()).where(FrameModel.game_id == game_id)
        with self._db.session() as session:
            _require(session, game_id)
            return int(session.scalar(query) or 0)

    def data(self, game_id: str, *, views: bool = False) -> GameData:
        """A game's data, for its adapter to export: header, replay lines, result, replay.

        Args:
            game_id: the game.
            views: also read each frame's view (not needed to export a replay).

        Raises:
            GameNotFoundError: if the game is not stored.
        """
        game_id = _check_id(game_id)
        columns = [FrameModel.turn, FrameModel.replay_line]
        if views:
            columns.append(FrameModel.frame)
        query = sa.select(*columns).where(FrameModel.game_id == game_id).order_by(FrameModel.turn)
        with self._db.session() as session:
            game = _get(session, game_id)
            frames = tuple(
                Frame(found[0], found[2] if views else {}, found[1])
                for found in session.execute(query)
            )
            return GameData(game.header, frames, game.result, game.replay)


# -- helpers ---------------------------------------------------------------------------


def _notify(session: Session, game_id: str, event: int | str) -> None:
    """Notify :data:`NOTIFY_CHANNEL` of ``event`` on ``game_id`` at commit (PostgreSQL only).

    ``pg_notify`` in the write's own transaction: it is delivered when, and only if, the
    write is committed, so a listener that reads the database on waking sees the write.
    """
    if session.get_bind().dialect.name != "postgresql":
        return
    session.execute(sa.select(sa.func.pg_notify(NOTIFY_CHANNEL, f"{game_id}:{event}")))


def _abort(session: Session, reason: str, *conditions: sa.ColumnElement[bool]) -> int:
    """Mark ``aborted`` the games that meet ``conditions``; how many there were.

    ``reason`` is kept as each one's failure, unless it has one already.
    """
    statement = (
        sa.update(GameModel)
        .where(*conditions)
        .values(
            status=GameStatus.ABORTED,
            updated_at=now(),
            failure=sa.func.coalesce(GameModel.failure, reason),
        )
        .execution_options(synchronize_session=False)
    )
    if session.get_bind().dialect.name != "postgresql":
        return cast(CursorResult[Any], session.execute(statement)).rowcount
    # Their ids, to tell each game's spectators that it ended.
    aborted = list(session.scalars(statement.returning(GameModel.id)))
    for game_id in aborted:
        _notify(session, game_id, "end")
    return len(aborted)


def _listing_values(listing: StoredGame, data: GameData, spec: MatchSpec | None) -> dict[str, Any]:
    frames = data.frames
    colors = [*listing.colors, *[""] * len(listing.entrants)]
    failures = [*listing.failures, *[""] * len(listing.entrants)]
    return {
        "game": _text(listing.game),
        "seed": int(listing.seed),
        "source": _text(listing.source),
        "title": _text(listing.title),
        "width": int(listing.width),
        "height": int(listing.height),
        "turns": frames[-1].turn if frames else listing.turns,
        "params": dict(spec.params) if spec is not None else None,
        "timeout_ms": spec.timeout_ms if spec is not None else None,
        "max_turns": spec.max_turns if spec is not None else None,
        "entrants": [
            _entrant_values(e, colors[seat], failures[seat])
            for seat, e in enumerate(listing.entrants)
        ],
        "header": dict(data.header),
        "result": dict(data.result) if data.result is not None else None,
        "replay": _replay(data.replay),
    }


def _entrant_values(entrant: Entrant, color: str, failure: str) -> dict[str, str]:
    values = {"name": _text(entrant.name), "source": _text(entrant.source), "color": _text(color)}
    if failure:
        values["failure"] = _text(failure)[:MAX_FAILURE_LENGTH]
    return values


def _save_logs(session: Session, game_id: str, played: PlayedGame) -> None:
    """Store each seat's log (replacing any): a finished game's, written once."""
    session.execute(sa.delete(GameLogModel).where(GameLogModel.game_id == game_id))
    for result in played.results:
        if result.log:
            log = _text(result.log)[-MAX_LOG_LENGTH:]
            session.add(GameLogModel(game_id=game_id, seat=result.seat, log=log))


def _played_values(played: PlayedGame, status: str) -> dict[str, Any]:
    values = _listing_values(played.stored(), played.data, played.spec)
    values.update(
        status=status,
        ranks=[r.rank for r in played.results],
        winner_name=_text(played.winner) if played.winner is not None else None,
        turns=played.turns,
        stats=_stats(played),
    )
    if played.spec is None:
        # A game stored while it ran keeps the match it was started with.
        for key in ("params", "timeout_ms", "max_turns"):
            del values[key]
    return values


def _stats(played: PlayedGame) -> list[dict[str, float]] | None:
    """Each seat's secondary statistics (``None``: the game recorded none)."""
    stats = [
        {str(key): float(value) for key, value in r.stats.items() if _finite(value)}
        for r in played.results
    ]
    return stats if any(stats) else None


def _finite(value: object) -> bool:
    # JSON has no NaN or infinity, and a statistic is a number.
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and float(value) == float(value)
        and abs(float(value)) != float("inf")
    )


def _replay(data: bytes | None) -> bytes | None:
    if data is not None and len(data) > MAX_REPLAY_BYTES:
        raise TooLargeError(
            f"replay of {len(data)} bytes is too large; expected at most {MAX_REPLAY_BYTES}"
        )
    return None if data is None else bytes(data)


def _check_status(status: object) -> None:
    if status not in GAME_STATUSES:
        raise StoreError(
            f"game status {status!r} is not known; "
            f"expected one of {choices_text([s.value for s in GAME_STATUSES])}"
        )


def _check_finished_status(status: object) -> None:
    _check_status(status)
    if status not in FINISHED_STATUSES:
        raise StoreError(
            f"finish status {status!r} is not a finished status; expected one of "
            f"{choices_text([s.value for s in FINISHED_STATUSES])}"
        )


def _valid_id(game_id: object) -> bool:
    return isinstance(game_id, str) and 0 < len(game_id) <= MAX_ID_LENGTH


def _check_id(game_id: object) -> str:
    if not _valid_id(game_id):
        raise StoreError(
            f"game id {game_id!r} is not valid; expected a non-empty string of at most "
            f"{MAX_ID_LENGTH} characters"
        )
    return cast(str, game_id)


def _check_count(name: str, value: object, minimum: int, maximum: int) -> None:
    if type(value) is not int or not minimum <= value <= maximum:
        raise StoreError(
            f"{name} {value!r} is not valid; expected an integer from {minimum} to {maximum}"
        )


def _check_frame(frame: object) -> None:
    if not isinstance(frame, Frame) or frame.turn < 0:
        raise StoreError(f"frame {frame!r} is not valid; expected a Frame with turn >= 0")


def _aware(when: object) -> dt.datetime:
    if not isinstance(when, dt.datetime) or when.tzinfo is None:
        raise StoreError(f"created_at {when!r} is not valid; expected a timezone-aware datetime")
    return when.astimezone(dt.UTC)


def _get(session: Session, game_id: str) -> GameModel:
    game = session.get(GameModel, game_id)
    if game is None:
        raise GameNotFoundError(game_id)
    return game


def _require(session: Session, game_id: str) -> None:
    found = session.scalar(sa.select(GameModel.id).where(GameModel.id == game_id))
    if found is None:
        raise GameNotFoundError(game_id)


def _text(value: str) -> str:
    """``value`` without NUL characters, which PostgreSQL text and JSONB cannot hold.

    Only the listing columns go through this; the game's JSON keeps every character.
    """
    return value.replace("\x00", "")


_BEGUN_KEYS: Final = (
    "game",
    "seed",
    "source",
    "title",
    "width",
    "height",
    "turns",
    "params",
    "timeout_ms",
    "max_turns",
    "entrants",
    "header",
)
"""What a retried :meth:`SqlGameRepository.begin` must find stored as it would store it."""


def _json(value: object) -> object:
    """``value`` as a JSON column gives it back (tuples as lists), to compare with one."""
    return json.loads(json.dumps(value))


def _insert_missing(session: Session, model: Any, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` of ``model``, leaving any whose primary key is stored already as it is."""
    keys = [column.name for column in sa.inspect(model).primary_key]
    if session.get_bind().dialect.name == "postgresql":
        statement: Any = postgresql.insert(model).on_conflict_do_nothing(index_elements=keys)
    else:
        statement = sqlite.insert(model).on_conflict_do_nothing(index_elements=keys)
    session.execute(statement, rows)


def _insert_frames(session: Session, game_id: str, frames: Sequence[Frame]) -> None:
    """Insert frame rows, leaving any (game, turn) that is stored already as it is."""
    if not frames:
        return
    rows: list[Mapping[str, Any]] = [
        {
            "game_id": game_id,
            "turn": f.turn,
            "frame": dict(f.view),
            "replay_line": dict(f.line) if f.line is not None else None,
        }
        for f in frames
    ]
    _insert_missing(session, FrameModel, rows)


def _summary_query() -> Any:
    # Every column but the replay blob, and the blob's length (listings stay cheap).
    m = GameModel
    return sa.select(
        m.id,
        m.game,
        m.created_at,
        m.updated_at,
        m.status,
        m.seed,
        m.source,
        m.title,
        m.width,
        m.height,
        m.turns,
        m.params,
        m.timeout_ms,
        m.max_turns,
        m.entrants,
        m.header,
        m.result,
        m.ranks,
        m.winner_name,
        sa.func.coalesce(sa.func.length(m.replay), 0),
        m.owner_id,
        m.failure,
        m.attempt,
    )


def _summary_row(found: Any) -> GameRow:
    values = list(found)
    values[2] = utc(values[2])
    values[3] = utc(values[3])
    values[14] = list(values[14])
    values[19] = int(values[19] or 0)
    return GameRow(*values)


def _row(game: GameModel) -> GameRow:
    return GameRow(
        id=game.id,
        game=game.game,
        created_at=utc(game.created_at),
        updated_at=utc(game.updated_at),
        status=GameStatus(game.status),
        seed=game.seed,
        source=game.source,
        title=game.title,
        width=game.width,
        height=game.height,
        turns=game.turns,
        params=game.params,
        timeout_ms=game.timeout_ms,
        max_turns=game.max_turns,
        entrants=list(game.entrants),
        header=game.header,
        result=game.result,
        ranks=game.ranks,
        winner_name=game.winner_name,
        replay_size=len(game.replay) if game.replay is not None else 0,
        owner_id=game.owner_id,
        failure=game.failure,
        attempt=game.attempt,
    )


def new_game_id() -> str:
    """A fresh random game id (a UUID)."""
    return str(uuid.uuid4())
