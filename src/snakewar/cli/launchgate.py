"""The executor's gate for launched bots (:mod:`snakewar.cli.launching`): limits, crashes.

Imported once games are to be played: it needs the arena's executors, which the
commands' option declarations must not wait for.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from snakewar.arena.executors import BotLimits, GameJob, GameOutcome

if TYPE_CHECKING:
    from snakewar.referee.launch import Crash, Launcher

__all__ = ["LaunchGate"]


class LaunchGate(BotLimits):
    """The executor's gate for launched bots: each one's limit, and its crashes by game.

    Every launched bot is followed (one without a limit too), so that a bot's death
    names the games it was playing (:attr:`LaunchedBot.games_in_play` is set here).  As
    a game ends, while it still holds its place, each of its launched bots is checked (a
    death not seen yet is seen now; a restart under way is waited for), and each crash in
    that game is written into the log of the bot's seat.
    """

    def __init__(self, launcher: Launcher) -> None:
        super().__init__({bot.url: bot.spec.max_games for bot in launcher.bots})
        self.launcher = launcher
        self._seeds: dict[str, int] = {}
        for bot in launcher.bots:
            bot.games_in_play = functools.partial(self.playing, bot.url)

    def admit(self, job: GameJob) -> bool:
        """As :meth:`BotLimits.admit`; the seed of an admitted job is kept, for reports."""
        if not super().admit(job):
            return False
        self._seeds[job.job_id] = job.seed
        return True

    def ended(self, job: GameJob, outcome: GameOutcome) -> GameOutcome:
        """``outcome`` with each crash of a launched bot in ``job`` in its seat's log."""
        from snakewar.adapters import get_game

        seated = self.bots_of(job)
        notes: dict[int, list[str]] = {}
        for bot in self.launcher.bots:
            if bot.url not in seated:
                continue
            bot.check()
            crashes = [c for c in bot.crashes if job.job_id in c.games]
            if not crashes or outcome.played is None:
                continue
            adapter = get_game(job.spec.game)
            for seat, entrant in enumerate(job.spec.entrants):
                url = adapter.reach(entrant).url
                if url is not None and url.rstrip("/") == bot.url:
                    notes.setdefault(seat, []).extend(_note(c) for c in crashes)
        if not notes or outcome.played is None:
            return outcome
        played = outcome.played
        results = tuple(
            replace(r, log=r.log + "".join(f"{line}\n" for line in notes[r.seat]))
            if r.seat in notes
            else r
            for r in played.results
        )
        return replace(outcome, played=replace(played, results=results))

    def failures(self) -> list[dict[str, Any]]:
        """Each launched bot's deaths, one entry per game it died in, for a JSON report.

        Each entry: the game (``None``: it died in none) and its seed, the bot, its
        command and exit status, whether it was restarted, and the whole line on it.
        """
        out: list[dict[str, Any]] = []
        for bot in self.launcher.bots:
            for crash in bot.crashes:
                for game in crash.games or (None,):
                    out.append(
                        {
                            "game": game,
                            "seed": self._seeds.get(game) if game is not None else None,
                            "bot": bot.label,
                            "command": crash.command,
                            "returncode": crash.returncode,
                            "restarted": crash.restarted,
                            "reason": crash.describe(),
                        }
                    )
        return out

    def report(self) -> dict[str, Any]:
        """The launched bots and their failures by game (``launch`` in a JSON report)."""
        return {
            "bots": [
                {
                    "name": bot.label,
                    "command": bot.spec.command,
                    "max_games": bot.spec.max_games or None,
                    "most_games_at_once": self.most.get(bot.url, 0),
                    "restarts": bot.restarts,
                    "given_up": bot.given_up,
                    "log": str(bot.log_path) if bot.spec.log_path is not None else None,
                }
                for bot in self.launcher.bots
            ],
            "failures": self.failures(),
        }


def _note(crash: Crash) -> str:
    """The line a crash adds to its bot's log of a game it died in."""
    then = "restarted" if crash.restarted else f"not restarted: {crash.reason}"
    tail = f"; its last lines: {crash.tail}" if crash.tail else ""
    return (
        f"--- snakewar: {crash.label} died with exit status {crash.returncode} during this "
        f"game; {then}{tail}"
    )
