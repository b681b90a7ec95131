"""``snakewar bench``: throughput figures, each game's and the comparison of them all.

The ``bench`` group is the frame's; its subcommands are the games' (each declares its
benchmarks as ``"bench NAME"`` in its table of commands, see :mod:`snakewar.cli`),
listed in the table's order, then ``bench compare``
(:mod:`snakewar.cli.compare`), to which every game contributes its rows.  This module
holds what those share: the anchors (an official engine's figure and where it comes
from), the ratio and the cells that show them, and the machine's description.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import typer

from snakewar.cli import LazyCommand
from snakewar.cli.group import table_group
from snakewar.errors import SnakewarError

__all__ = [
    "Anchor",
    "AnchorError",
    "Comparison",
    "Row",
    "anchor_cell",
    "bench_app",
    "cpu_model",
    "free_port",
    "load_average",
    "ratio_cell",
    "speed_ratio",
]

COMPARE = LazyCommand(
    "snakewar.cli.compare",
    "bench_compare",
    "Snakewar's figures next to the official engines', as ratios, in one run.",
)
"""``snakewar bench compare``: built from the games' parts when it is used."""

bench_app = typer.Typer(
    cls=table_group("bench", own={"compare": COMPARE}),
    help="Measure throughput.",
    no_args_is_help=True,
)


class AnchorError(SnakewarError, RuntimeError):
    """An official engine (an anchor) could not be run, or its output not be read."""


@dataclass(frozen=True)
class Anchor:
    """One figure of an official engine, with where it comes from.

    ``measured`` is true when it was measured in this run; otherwise ``value`` is a
    recorded figure from the conformance data (another machine) or ``None``.
    """

    name: str
    value: float | None
    measured: bool
    note: str = ""


Row = tuple[str, str, str, float | None]
"""One row of ``bench compare``: the figure, snakewar's, the anchor's, the ratio."""


@dataclass
class Comparison:
    """A game's part of ``bench compare``: its rows, notes and how it measured them.

    Attributes:
        rows: Its rows of the table, in order.
        legend: How its figures were taken, for the line under the table
            (e.g. ``"rules engine: median of 3 back-to-back pairs"``).
        notes: Lines printed after that one.
    """

    rows: list[Row]
    legend: str
    notes: list[str] = field(default_factory=list)


def speed_ratio(ours: float, anchor: Anchor, lower_is_better: bool = False) -> float | None:
    """Snakewar's speed over the anchor's: above 1 snakewar is faster.

    For rates it is ``ours / anchor``; for times (``lower_is_better``) ``anchor / ours``.
    ``None`` when the anchor has no figure.
    """
    if anchor.value is None or ours <= 0:
        return None
    return anchor.value / ours if lower_is_better else ours / anchor.value


def anchor_cell(anchor: Anchor, fmt: str) -> str:
    """The anchor's cell: its figure in ``fmt``, and where it comes from."""
    if anchor.value is None:
        return f"{anchor.name}: not built here"
    text = f"{anchor.name}: {fmt.format(anchor.value)}"
    return (
        text if anchor.measured else f"{text} (recorded{', ' + anchor.note if anchor.note else ''})"
    )


def ratio_cell(ratio: float | None) -> str:
    """The ratio's cell (``-`` when there is none)."""
    return "-" if ratio is None else f"{ratio:.3g}x"


def cpu_model() -> str:
    """The machine's CPU, as /proc/cpuinfo names it."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine() or "unknown CPU"


def load_average() -> str:
    """The machine's load over 1, 5 and 15 minutes."""
    import os

    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def free_port() -> int:
    """A free loopback port, for a local server (a benchmark's bots, a server)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port
