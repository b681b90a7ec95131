"""Executors play the same games to the same results, and report every job once."""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import threading
import types
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from snakewar.arena.executors import (
    BotLimits,
    Executor,
    ExecutorError,
    GameGate,
    GameJob,
    GameOutcome,
    InProcessExecutor,
    ProcessPoolExecutor,
    RayExecutor,
    make_executor,
    measure_games_per_minute,
    play_job,
)
from snakewar.engine.protocol import MatchSpec
from snakewar.errors import MissingExtraError
from snakewar.games.battlesnake.adapter import GAME, match_spec
from snakewar.games.battlesnake.referee.batch import SnakeMatch
from snakewar.games.battlesnake.referee.stats import GameSummary

AMPLE_MS = 60_000
"""The games' timeout: a minute a move, so that no move times out on the busiest machine.

A timed-out move is a default move, and the game would then depend on the machine's
load (as it does on how many games share the CPU): with this timeout, and bots whose
moves depend on the position alone (random and greedy; the hunter at a fixed depth,
which ends its search long before the cap), every executor plays identical games.
"""

DUEL = match_spec(
    SnakeMatch(("builtin:random", "builtin:greedy"), width=7, height=7, timeout_ms=AMPLE_MS)
)
TRIO = match_spec(
    SnakeMatch(
        ("builtin:greedy", "builtin:hunter?depth=1", "builtin:random"),
        width=7,
        height=7,
        timeout_ms=AMPLE_MS,
    )
)
BROKEN = match_spec(
    SnakeMatch(("builtin:random", "builtin:no-such-bot"), width=7, height=7, timeout_ms=AMPLE_MS)
)


def jobs_for(spec: MatchSpec, seeds: range, prefix: str = "g") -> list[GameJob]:
    return [GameJob(f"{prefix}-{seed}", spec, seed) for seed in seeds]


def summary_of(outcome: GameOutcome) -> GameSummary | None:
    """The Battlesnake digest an outcome's played game carries (``None`` when it failed)."""
    if outcome.played is None:
        return None
    assert isinstance(outcome.played.details, GameSummary)
    return outcome.played.details


def digest(outcome: GameOutcome) -> tuple[object, ...]:
    """What must not depend on the executor (latencies do, so they are left out)."""
    summary = summary_of(outcome)
    assert summary is not None
    return (
        summary.seed,
        summary.winner_seat,
        summary.is_draw,
        summary.turns,
        summary.reason,
        tuple(
            (s.seat, s.result, s.length, s.health, s.cause, s.eliminated_by, s.eliminated_on_turn)
            for s in summary.snakes
        ),
    )


class CrashOnce:
    """A game function whose worker process dies the first time it plays ``target``.

    The marker file outlives the dead process, so the retry plays normally.
    """

    def __init__(self, marker: Path, target: str) -> None:
        self.marker = str(marker)
        self.target = target

    def __call__(self, job: GameJob) -> GameOutcome:
        if job.job_id == self.target and not os.path.exists(self.marker):
            Path(self.marker).write_text("crashed")
            os._exit(1)
        return play_job(job)


class CrashAlways:
    """A game function whose worker process always dies on ``target``."""

    def __init__(self, target: str) -> None:
        self.target = target

    def __call__(self, job: GameJob) -> GameOutcome:
        if job.job_id == self.target:
            os._exit(1)
        return play_job(job)


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[None]:
    import ray

    # address="local": a cluster of its own, never one another process left running here.
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def local_duel() -> list[GameOutcome]:
    """The 200-game evaluation played in this process: the reference results."""
    return InProcessExecutor(concurrency=4).run(jobs_for(DUEL, range(200)))


def test_in_process_results_are_real_games(local_duel: list[GameOutcome]) -> None:
    assert [o.job_id for o in local_duel] == [f"g-{seed}" for seed in range(200)]
    assert all(o.ok and o.attempts == 1 and o.played is not None for o in local_duel)
    summaries = [summary_of(o) for o in local_duel]
    winners = {s.winner_seat for s in summaries if s}
    turns = {s.turns for s in summaries if s}
    # Varied games, so that equal results elsewhere mean something.
    assert {0, 1} <= winners
    assert len(turns) > 10


def test_concurrency_does_not_change_results(local_duel: list[GameOutcome]) -> None:
    serial = InProcessExecutor().run(jobs_for(DUEL, range(30)))
    assert [digest(o) for o in serial] == [digest(o) for o in local_duel[:30]]


def test_process_pool_matches_in_process(local_duel: list[GameOutcome]) -> None:
    seen: list[str] = []
    outcomes = ProcessPoolExecutor(2).run(
        jobs_for(DUEL, range(40)), on_result=lambda o: seen.append(o.job_id)
    )
    assert sorted(seen) == sorted(o.job_id for o in outcomes)
    assert [digest(o) for o in outcomes] == [digest(o) for o in local_duel[:40]]


@pytest.mark.slow
@pytest.mark.ray
def test_ray_matches_in_process_on_200_games(
    ray_cluster: None, local_duel: list[GameOutcome]
) -> None:
    seen: list[str] = []
    outcomes = RayExecutor().run(
        jobs_for(DUEL, range(200)), on_result=lambda o: seen.append(o.job_id)
    )
    assert len(seen) == 200 and set(seen) == {f"g-{seed}" for seed in range(200)}
    assert [o.job_id for o in outcomes] == [o.job_id for o in local_duel]
    assert all(o.ok and o.attempts == 1 for o in outcomes)
    assert [digest(o) for o in outcomes] == [digest(o) for o in local_duel]


@pytest.mark.ray
def test_three_snake_games_with_hunter_match_across_executors(ray_cluster: None) -> None:
    jobs = jobs_for(TRIO, range(8))
    local = InProcessExecutor(concurrency=2).run(jobs)
    remote = RayExecutor().run(jobs)
    assert all(o.ok for o in local)
    assert [digest(o) for o in remote] == [digest(o) for o in local]


def failing_batch() -> list[GameJob]:
    return [*jobs_for(DUEL, range(3)), GameJob("bad", BROKEN, 7), *jobs_for(DUEL, range(3, 5))]


def check_failing_batch(outcomes: list[GameOutcome]) -> None:
    assert [o.job_id for o in outcomes] == ["g-0", "g-1", "g-2", "bad", "g-3", "g-4"]
    bad = outcomes[3]
    assert not bad.ok and bad.played is None and bad.seed == 7 and bad.attempts == 1
    assert bad.error is not None and "no-such-bot" in bad.error
    assert all(o.ok and o.played is not None for i, o in enumerate(outcomes) if i != 3)


def test_unplayable_job_is_an_error_outcome_in_process() -> None:
    check_failing_batch(InProcessExecutor(concurrency=3).run(failing_batch()))


def test_unplayable_job_is_an_error_outcome_in_a_pool() -> None:
    check_failing_batch(ProcessPoolExecutor(2).run(failing_batch()))


@pytest.mark.ray
def test_unplayable_job_is_an_error_outcome_on_ray(ray_cluster: None) -> None:
    check_failing_batch(RayExecutor().run(failing_batch()))


@pytest.mark.ray
def test_ray_worker_death_is_retried_and_counted_once(ray_cluster: None, tmp_path: Path) -> None:
    marker = tmp_path / "crashed"
    jobs = jobs_for(DUEL, range(6))
    seen: list[str] = []
    outcomes = RayExecutor(game_fn=CrashOnce(marker, "g-2")).run(
        jobs, on_result=lambda o: seen.append(o.job_id)
    )
    assert marker.exists()  # the worker really died once
    assert sorted(seen) == sorted(j.job_id for j in jobs)  # reported once each
    assert [o.attempts for o in outcomes] == [1, 1, 2, 1, 1, 1]
    assert all(o.ok for o in outcomes)
    expected = InProcessExecutor().run(jobs)
    assert [digest(o) for o in outcomes] == [digest(o) for o in expected]


@pytest.mark.ray
def test_ray_worker_that_keeps_dying_is_reported_failed(ray_cluster: None) -> None:
    jobs = jobs_for(DUEL, range(3))
    seen: list[str] = []
    outcomes = RayExecutor(max_retries=1, game_fn=CrashAlways("g-1")).run(
        jobs, on_result=lambda o: seen.append(o.job_id)
    )
    assert sorted(seen) == ["g-0", "g-1", "g-2"]
    dead = outcomes[1]
    assert not dead.ok and dead.attempts == 2 and dead.played is None
    assert dead.error is not None and "WorkerCrashedError" in dead.error
    assert outcomes[0].ok and outcomes[2].ok


def test_pool_worker_death_is_retried(tmp_path: Path) -> None:
    marker = tmp_path / "crashed"
    jobs = jobs_for(DUEL, range(4))
    seen: list[str] = []
    outcomes = ProcessPoolExecutor(2, game_fn=CrashOnce(marker, "g-1")).run(
        jobs, on_result=lambda o: seen.append(o.job_id)
    )
    assert marker.exists()
    assert sorted(seen) == ["g-0", "g-1", "g-2", "g-3"]
    assert all(o.ok for o in outcomes)
    assert outcomes[1].attempts == 2


def test_pool_gives_up_after_max_retries() -> None:
    outcomes = ProcessPoolExecutor(1, max_retries=1, game_fn=CrashAlways("g-0")).run(
        jobs_for(DUEL, range(2))
    )
    assert not outcomes[0].ok and outcomes[0].attempts == 2
    assert outcomes[0].error is not None and "worker process died" in outcomes[0].error


def test_played_games_carry_their_replay() -> None:
    (outcome,) = InProcessExecutor().run(jobs_for(DUEL, range(5, 6)))
    summary = summary_of(outcome)
    assert outcome.played is not None and summary is not None
    lines = GAME.export(outcome.played.data).decode().splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "snakewar-replay" and header["config"]["seed"] == 5
    assert json.loads(lines[-1])["result"]["turns"] == summary.turns
    assert len(lines) == summary.turns + 2


def test_jobs_can_name_their_game_id() -> None:
    job = GameJob("named", DUEL, 5, game_id="ladder-game-1")
    (outcome,) = InProcessExecutor().run([job])
    assert outcome.played is not None and outcome.played.id == "ladder-game-1"


@pytest.mark.parametrize("executor", [InProcessExecutor(), ProcessPoolExecutor(1)])
def test_duplicate_job_ids_are_refused(executor: Executor) -> None:
    with pytest.raises(ExecutorError, match="duplicate job id 'g-1'"):
        executor.run([*jobs_for(DUEL, range(3)), GameJob("g-1", DUEL, 9)])


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ExecutorError, match="concurrency 0"):
        InProcessExecutor(concurrency=0)
    with pytest.raises(ExecutorError, match="workers 0"):
        ProcessPoolExecutor(0)
    with pytest.raises(ExecutorError, match="num_cpus -1"):
        RayExecutor(num_cpus=-1)


def test_missing_ray_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes ``import ray`` fail
    with pytest.raises(MissingExtraError, match=r'pip install "snakewar\[ray\]"'):
        RayExecutor().run(jobs_for(DUEL, range(1)))


def test_ray_that_cannot_start_or_join_is_one_executor_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Ray's own exceptions vary by address (ConnectionError for "auto" without a
    # cluster, ValueError without its client package...): each becomes one line.
    def init(**_: object) -> None:
        raise ConnectionError("Could not find any running Ray instance.\nPlease specify...")

    fake = types.SimpleNamespace(is_initialized=lambda: False, init=init)
    monkeypatch.setitem(sys.modules, "ray", fake)
    with pytest.raises(ExecutorError) as caught:
        RayExecutor("auto").run(jobs_for(DUEL, range(1)))
    assert str(caught.value) == (
        "cannot start or join Ray at 'auto': Could not find any running Ray instance."
    )
    with pytest.raises(ExecutorError, match=r"^cannot start or join a local Ray: "):
        RayExecutor().run(jobs_for(DUEL, range(1)))


def test_measure_games_per_minute() -> None:
    rate = measure_games_per_minute(InProcessExecutor(concurrency=2), 10, DUEL)
    assert 0 < rate < 10 * 60 / 0.001  # at most a millisecond a game would be absurd
    with pytest.raises(ExecutorError, match="1 of 1 games failed; first: UnknownBotError"):
        measure_games_per_minute(InProcessExecutor(), 1, BROKEN)


class OneAtATime(GameGate):
    """A gate that plays one game of a kind (its job id's prefix ``a-``) at once, any other
    kind freely; it counts the games it holds, kind by kind, and what ``ended`` saw."""

    def __init__(self, limited: str) -> None:
        self.limited = limited
        self.lock = threading.Lock()
        self.now: Counter[str] = Counter()
        self.most: Counter[str] = Counter()
        self.seen_holding: list[tuple[str, int]] = []

    def admit(self, job: GameJob) -> bool:
        kind = job.job_id.split("-")[0]
        with self.lock:
            if kind == self.limited and self.now[kind] >= 1:
                return False
            self.now[kind] += 1
            self.most[kind] = max(self.most[kind], self.now[kind])
            return True

    def ended(self, job: GameJob, outcome: GameOutcome) -> GameOutcome:
        kind = job.job_id.split("-")[0]
        with self.lock:
            self.seen_holding.append((job.job_id, self.now[kind]))
        return dataclasses.replace(outcome, error="looked at")

    def release(self, job: GameJob) -> None:
        with self.lock:
            self.now[job.job_id.split("-")[0]] -= 1


@pytest.mark.parametrize("kind", ["inprocess", "pool"])
def test_a_gate_holds_its_games_and_lets_the_others_go_on(kind: str) -> None:
    _gate_holds_its_games(kind)


@pytest.mark.ray
def test_a_gate_holds_its_ray_games(ray_cluster: None) -> None:
    _gate_holds_its_games("ray")


def _gate_holds_its_games(kind: str) -> None:
    gate = OneAtATime("a")
    jobs = jobs_for(DUEL, range(4), "a") + jobs_for(DUEL, range(4), "free")
    executor = make_executor(kind, concurrency=4, workers=3, gate=gate)
    outcomes = executor.run(jobs)
    assert [o.job_id for o in outcomes] == [j.job_id for j in jobs]
    # Every game was played, and the gate's look (while the game held its place) kept.
    assert all(o.played is not None and o.error == "looked at" for o in outcomes)
    assert sorted(job for job, _ in gate.seen_holding) == sorted(j.job_id for j in jobs)
    assert all(holding >= 1 for _, holding in gate.seen_holding)
    # The limited kind never had two games at once; the others started beside it (the
    # executor admits what it can before any game ends: no game waits for a timing).
    assert gate.most["a"] == 1
    assert gate.most["free"] >= 2
    assert gate.now == Counter({"a": 0, "free": 0})


def test_bot_limits_follow_bots_by_address_and_seat_each_once() -> None:
    one, two = "http://127.0.0.1:9001", "http://127.0.0.1:9002/"
    limits = BotLimits({one: 1, two: 2})

    def job(job_id: str, *sources: str) -> GameJob:
        entrants = [GAME.entrant(source, f"s{n}") for n, source in enumerate(sources)]
        return GameJob(job_id, dataclasses.replace(DUEL, entrants=tuple(entrants)), 1)

    first = job("g1", one, "builtin:greedy")
    assert limits.bots_of(first) == (one,)
    assert limits.admit(first)
    assert limits.playing(one + "/") == ("g1",)
    # One is at its limit: its games wait; two's go on, up to its own limit.
    assert not limits.admit(job("g2", one, two))
    assert limits.admit(job("g3", two, "builtin:random"))
    # A game that seats a bot twice holds one place of it.
    assert limits.admit(job("g4", two, two))
    assert not limits.admit(job("g5", two, "builtin:random"))
    assert limits.most == {one: 1, "http://127.0.0.1:9002": 2}
    limits.release(first)
    assert limits.playing(one) == () and limits.admit(job("g2", one, two)) is False
    limits.release(job("g3", two, "builtin:random"))
    assert limits.admit(job("g2", one, two))
    # Built-in bots are no bot on the network: never held back.
    assert all(limits.admit(job(f"b{n}", "builtin:greedy", "builtin:random")) for n in range(9))
    with pytest.raises(ExecutorError, match="a limit of -1 games"):
        BotLimits({one: -1})
