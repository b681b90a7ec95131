"""The exception tree drawn in ``snakewar.errors`` and in each game's package is the classes' tree.

Every module of the package is imported, then every subclass of ``SnakewarError``
(recursively) must be drawn once, under its first Snakewar base, with exactly its
builtin bases in parentheses and its other Snakewar bases as ``+Name``; and every
public exception class of the package must be a ``SnakewarError``.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import warnings
from dataclasses import dataclass
from types import ModuleType

import pytest

import snakewar
import snakewar.errors
import snakewar.games
from snakewar.errors import SnakewarError

LINE = re.compile(r"^(?P<indent>(?:[│ ]   )*)[├└]── (?P<name>[\w.]+)(?: \((?P<bases>[^)]*)\))?")


def all_modules() -> list[ModuleType]:
    modules = [snakewar]
    for info in pkgutil.walk_packages(snakewar.__path__, "snakewar."):
        # Alembic's environment and __main__ run when imported: they define no exception.
        if info.name.endswith("__main__") or ".migrations" in info.name:
            continue
        with warnings.catch_warnings():
            # The old paths of moved modules warn when imported; their classes are the
            # new modules' own.
            warnings.simplefilter("ignore", DeprecationWarning)
            modules.append(importlib.import_module(info.name))
    return modules


MODULES = all_modules()


def classes() -> set[type[BaseException]]:
    found: set[type[BaseException]] = set()
    todo: list[type[BaseException]] = [SnakewarError]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                todo.append(sub)
    return found


@dataclass(frozen=True)
class Drawn:
    cls: type[BaseException]
    parent: type[BaseException]
    builtins: frozenset[str]
    extra: frozenset[type[BaseException]]


def resolve(name: str, package: str = "snakewar") -> type[BaseException]:
    """The class ``name`` names: whole, relative to ``package``, or bare in ``snakewar.errors``."""
    module, _, attribute = name.rpartition(".")
    if module.startswith("snakewar."):
        package, module = module, ""
    elif not module and hasattr(snakewar.errors, attribute):
        package, module = "snakewar", "errors"
    where = f"{package}.{module}" if module else package
    found = getattr(importlib.import_module(where), attribute)
    assert isinstance(found, type) and issubclass(found, BaseException), name
    return found


GAMES = sorted(
    f"snakewar.games.{info.name}"
    for info in pkgutil.iter_modules(snakewar.games.__path__)
    if info.ispkg
)
"""Each built-in game draws its own exceptions in its package's documentation."""


def drawing(
    doc: str, package: str = "snakewar", known: frozenset[type] = frozenset()
) -> list[Drawn]:
    """The classes drawn in ``doc``'s tree; lines naming a class of ``known`` only place
    the lines under them (a game's drawing repeats the generic classes it derives from)."""
    lines = doc.split("    SnakewarError\n", 1)[1].split("\n\n", 1)[0].splitlines()
    stack: list[type[BaseException]] = [SnakewarError]
    drawn = []
    for line in lines:
        match = LINE.match(line.removeprefix("    "))
        if match is None:
            continue
        depth = len(match["indent"]) // 4
        del stack[depth + 1 :]
        cls = resolve(match["name"], package)
        if cls not in known:
            bases = [b.strip() for b in (match["bases"] or "").split(",") if b.strip()]
            builtins = frozenset(b for b in bases if not b.startswith("+"))
            extra = frozenset(resolve(b[1:], package) for b in bases if b.startswith("+"))
            drawn.append(Drawn(cls, stack[depth], builtins, extra))
        stack.append(cls)
    return drawn


def whole_drawing() -> list[Drawn]:
    drawn = drawing(snakewar.errors.__doc__ or "")
    generic = frozenset(d.cls for d in drawn) | {SnakewarError}
    for game in GAMES:
        doc = importlib.import_module(game).__doc__ or ""
        assert "    SnakewarError\n" in doc, f"{game} draws no exceptions"
        drawn += drawing(doc, game, generic)
    return drawn


DRAWN = whole_drawing()


def test_every_class_is_drawn_exactly_once() -> None:
    names = [d.cls for d in DRAWN]
    assert len(names) == len(set(names)), "a class is drawn twice"
    missing = classes() - set(names)
    assert not missing, f"not drawn: {sorted(c.__qualname__ for c in missing)}"
    assert len(DRAWN) == len(classes()) > 50


@pytest.mark.parametrize("drawn", DRAWN, ids=[d.cls.__name__ for d in DRAWN])
def test_each_class_is_drawn_where_it_stands(drawn: Drawn) -> None:
    snakewar_bases = [b for b in drawn.cls.__bases__ if issubclass(b, SnakewarError)]
    builtin_bases = {b.__name__ for b in drawn.cls.__bases__ if b.__module__ == "builtins"}
    assert snakewar_bases[0] is drawn.parent, f"first Snakewar base is {snakewar_bases[0]}"
    assert set(snakewar_bases[1:]) == set(drawn.extra)
    assert builtin_bases - {"Exception"} == set(drawn.builtins)
    assert drawn.cls.__doc__, "every exception says when it is raised"


def test_every_public_exception_is_a_snakewar_error() -> None:
    wrong = []
    for module in MODULES:
        public = getattr(module, "__all__", None) or [
            n for n in vars(module) if not n.startswith("_")
        ]
        for name in public:
            value = getattr(module, name, None)
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and not issubclass(value, SnakewarError)
                and value.__module__.startswith("snakewar")
            ):
                wrong.append(f"{module.__name__}.{name}")
    assert not wrong, f"public exceptions outside the tree: {wrong}"
