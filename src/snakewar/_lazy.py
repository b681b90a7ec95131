"""Names a package exports but imports on first use (PEP 562), for quick start-up.

A package lists each public name with the module that defines it, and delegates its
module-level ``__getattr__`` and ``__dir__`` here: ``snakewar --version`` then imports
no web framework, referee or replay reader it does not use.  (Old names of what moved
are :mod:`snakewar._moved`'s.)
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from typing import Any


def lazy_attribute(package: str, homes: Mapping[str, str], name: str) -> Any:
    """``name`` of ``package``, imported from its home module ``homes[name]`` once.

    Raises:
        AttributeError: if ``package`` exports no ``name``.
    """
    home = homes.get(name)
    if home is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    setattr(sys.modules[package], name, value)  # looked up once
    return value


def lazy_dir(package: str, homes: Mapping[str, str]) -> list[str]:
    """The names of ``package``: those imported already and those it can import."""
    return sorted({*vars(sys.modules[package]), *homes})
