"""What every game's referee shares: processes, bot workers, the sandbox and outbound policy.

* :mod:`snakewar.referee.process`: bot programs as child processes, line by line.
* :mod:`snakewar.referee.workers`: killable worker processes for built-in bots.
* :mod:`snakewar.referee.sandbox` and :mod:`snakewar.referee.cgroups`: untrusted programs
  in bubblewrap, each in its own cgroup.
* :mod:`snakewar.referee.outbound`: the address policy every outbound connection obeys.
* :mod:`snakewar.referee.uploads`: uploaded bot archives, checked and unpacked.
* :func:`wilson_interval`: the confidence interval batch reports give rates.

A game's own referee (its clients, match loop and batches) lives in its package, under
``snakewar.games.<name>.referee``; names this package exported before they moved there
still work for one release, with a :class:`DeprecationWarning` (:mod:`snakewar._moved`).
"""

from __future__ import annotations

from typing import Any

from snakewar._moved import moved_attribute
from snakewar.referee.intervals import wilson_interval

__all__ = ["wilson_interval"]


def __getattr__(name: str) -> Any:
    return moved_attribute(__name__, name)
