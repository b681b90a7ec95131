"""``snakewar bench compare``: every game's figures next to its official engine's, in one run.

Each game contributes a part, declared as ``"bench compare NAME"`` in its table of
commands: a function whose parameters are the part's options (typer's ``Option``
defaults, as a command's) and whose docstring, after its first line, is its paragraph
of the command's help.  Called with its options it checks them (an anchor binary that
cannot run fails before minutes of measuring) and returns the function that measures
its rows, given ``--repeat``.  The command's options are ``--repeat`` and the parts'
options, in the parts' order; its table is the parts' rows, in the same order.
"""

from __future__ import annotations

import importlib
import inspect
import os
from collections.abc import Callable
from typing import Any

import typer

from snakewar.cli import COMMANDS
from snakewar.cli.bench import Comparison, cpu_model, load_average, ratio_cell

__all__ = ["Measure", "bench_compare", "parts"]

Measure = Callable[[int], Comparison]
"""A part, checked and ready: measures its rows, each figure the median of ``repeat``."""

_HELP = """Snakewar's figures next to the official engines', as ratios, in one run.

Ratios are "speed vs anchor": above 1x snakewar is faster.  An anchor is measured
in this run when its binary is given; otherwise the recorded figure from the
conformance data (another machine) is shown and labelled so, or "not built here".
"""

_REPEAT = inspect.Parameter(
    "repeat",
    inspect.Parameter.KEYWORD_ONLY,
    default=typer.Option(
        3, "--repeat", min=1, help="Paired rules-engine runs; medians are reported."
    ),
    annotation=int,
)


def parts() -> list[tuple[str, Callable[..., Measure]]]:
    """The games' parts, in the table's order, by name (imported here)."""
    found = []
    for name, entry in COMMANDS.children("bench compare").items():
        found.append((name, getattr(importlib.import_module(entry.module), entry.attribute)))
    return found


def _paragraph(part: Callable[..., Measure]) -> str:
    # The part's docstring less its summary line: what the command's help says of it.
    return inspect.cleandoc(part.__doc__ or "").partition("\n\n")[2] + "\n"


def _build() -> Callable[..., None]:
    # One function whose signature is every part's options and --repeat, for typer.
    loaded = parts()
    owners: dict[str, str] = {}
    params: list[inspect.Parameter] = []
    for name, part in loaded:
        for param in inspect.signature(part, eval_str=True).parameters.values():
            if param.name in owners or param.name == "repeat":
                raise ValueError(
                    f"bench compare: option {param.name!r} of {name} is also "
                    f"{owners.get(param.name, 'the command')}'s"
                )
            owners[param.name] = name
            params.append(param.replace(kind=inspect.Parameter.KEYWORD_ONLY))
    params.insert(0, _REPEAT)

    def bench_compare(**options: Any) -> None:
        from rich.console import Console
        from rich.table import Table

        repeat = int(options.pop("repeat"))
        # Every part checks its options before any measures: fail before minutes, not after.
        measures = [
            part(**{k: v for k, v in options.items() if owners[k] == name}) for name, part in loaded
        ]
        console = Console(highlight=False)
        console.print(
            f"machine: {cpu_model()}, {os.cpu_count()} CPUs, load {load_average()} (1/5/15 min)"
        )
        table = Table(title="snakewar vs the official engines", title_justify="left")
        for column in ("figure", "snakewar", "anchor", "vs anchor"):
            table.add_column(
                column, justify="right" if column in ("snakewar", "vs anchor") else "left"
            )
        results = [measure(repeat) for measure in measures]
        for result in results:
            for figure, ours, anchor_text, ratio in result.rows:
                table.add_row(figure, ours, anchor_text, ratio_cell(ratio))
        console.print(table)
        console.print(
            "vs anchor: snakewar's speed over the anchor's (above 1x snakewar is faster); "
            + "".join(f"{result.legend}; " for result in results)
            + "recorded = the conformance data's figure from another machine, not measured here"
        )
        for result in results:
            for note in result.notes:
                console.print(note)
        console.print(f"load after: {load_average()}")

    # Typer reads the signature and the annotations: those of every part, and --repeat.
    signature = inspect.Signature(params, return_annotation=None)
    bench_compare.__signature__ = signature  # type: ignore[attr-defined]
    bench_compare.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    bench_compare.__doc__ = "\n".join([_HELP, *(_paragraph(part) for _, part in loaded)])
    return bench_compare


bench_compare = _build()
"""The command; its help's first line is :data:`snakewar.cli.bench.COMPARE`'s summary."""
