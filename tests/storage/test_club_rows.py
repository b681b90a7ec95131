"""The rows behind a club's web pages, on SQLite and PostgreSQL.

Invitations listed and revoked, a password reset that ends every session and token, a
tournament stored to be started later (and changed until then), a ladder's new settings.
"""

from __future__ import annotations

import datetime as dt

import pytest

from snakewar.arena.config import MatchConfig
from snakewar.arena.ladder import Ladder
from snakewar.arena.tournament_runner import TournamentRun, TournamentRunError
from snakewar.storage import Store, UserNotFoundError
from snakewar.storage.database import now


def test_invitations_are_listed_newest_first_and_unused_ones_deleted(store: Store) -> None:
    admin = store.accounts.create_user("boss", "hash", role="admin")
    later = now() + dt.timedelta(days=7)
    store.accounts.create_invite("a" * 64, admin.id, later)
    store.accounts.create_invite("b" * 64, None, now() - dt.timedelta(seconds=1))
    assert store.accounts.use_invite("a" * 64, "ann")
    listed = store.accounts.invites()
    assert [(i.id, i.made_by, i.used_by) for i in listed] == [
        ("b" * 64, None, None),
        ("a" * 64, "boss", "ann"),
    ]
    assert [i.status() for i in listed] == ["expired", "used"]
    assert listed[1].expires_at == later
    assert store.accounts.delete_invite("a" * 64) == "used"
    assert store.accounts.delete_invite("b" * 64) == "deleted"
    assert store.accounts.delete_invite("b" * 64) == "missing"
    assert [i.id for i in store.accounts.invites()] == ["a" * 64]


def test_a_reset_ends_sessions_and_revokes_tokens_a_change_keeps_one_session(
    store: Store,
) -> None:
    ann = store.accounts.create_user("ann", "old")
    later = now() + dt.timedelta(days=1)
    for secret in ("s1", "s2"):
        store.accounts.create_session(ann.id, secret, "csrf", later)
    store.accounts.create_token(ann.id, "cli", "t1")
    store.accounts.change_password(ann.id, "newer", keep_session="s1")
    assert store.accounts.password_hash("ann") == (ann, "newer")
    assert store.accounts.session_user("s1") is not None
    assert store.accounts.session_user("s2") is None
    assert store.accounts.token_user("t1") == ann  # a change of password keeps tokens

    assert store.accounts.reset_password("ann", "reset") == ann
    assert store.accounts.password_hash("ann") == (ann, "reset")
    assert store.accounts.session_user("s1") is None
    assert store.accounts.token_user("t1") is None
    assert [t.revoked for t in store.accounts.tokens(ann.id)] == [True]
    with pytest.raises(UserNotFoundError):
        store.accounts.reset_password("nobody", "x")


def _cup(started: bool) -> TournamentRun:
    run = TournamentRun.create(
        "cup",
        "swiss",
        [("builtin:random", None), ("builtin:greedy", None), ("builtin:hunter", None)],
        config=MatchConfig.create("battlesnake", {"width": 7, "height": 7}),
        tid="cup-1",
    )
    run.started = started
    return run


def test_a_tournament_waits_to_be_started_and_changes_until_then(store: Store) -> None:
    store.tournaments.create(_cup(started=False))
    loaded = store.tournaments.get("cup-1")
    assert loaded is not None and loaded.started is False
    assert loaded.tournament.config.swiss_rounds == 2
    changed = TournamentRun.create(
        "spring cup",
        "swiss",
        [(s, n) for n, s in loaded.snakes.items()]
        + [("builtin:random", "r2"), ("builtin:random", "r3")],
        config=loaded.config,
        tid="cup-1",
    )
    changed.started = False
    store.tournaments.replace_unstarted(changed)
    loaded = store.tournaments.get("cup-1")
    assert loaded is not None and loaded.name == "spring cup" and loaded.started is False
    assert list(loaded.snakes) == ["random", "greedy", "hunter", "r2", "r3"]
    # Swiss rounds follow the entrants (ceil(log2(5)) = 3), as if it were made so.
    assert loaded.tournament.config.swiss_rounds == 3
    assert [m.entrants for m in loaded.tournament.pending_matches()] == [
        m.entrants for m in changed.tournament.pending_matches()
    ]
    store.tournaments.mark_started("cup-1")
    started = store.tournaments.get("cup-1")
    assert started is not None and started.started is True
    with pytest.raises(TournamentRunError, match="has started"):
        store.tournaments.replace_unstarted(changed)


def test_tournaments_made_before_the_option_count_as_started(store: Store) -> None:
    store.tournaments.create(_cup(started=True))
    loaded = store.tournaments.get("cup-1")
    assert loaded is not None and loaded.started is True
    with pytest.raises(TournamentRunError, match="has started"):
        store.tournaments.replace_unstarted(_cup(started=False))


def test_a_ladders_new_settings_are_stored(store: Store) -> None:
    ladder = Ladder("lad", MatchConfig.create("battlesnake", {"width": 7}, timeout_ms=300))
    store.ladders.create(ladder)
    ladder.config = MatchConfig.create(
        "battlesnake", {"width": 9, "foodSpawnChance": 30}, timeout_ms=800, max_turns=40
    )
    store.ladders.save(ladder)
    loaded = store.ladders.get("lad")
    assert loaded is not None and loaded.config == ladder.config
