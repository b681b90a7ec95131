"""Names a package exports but imports on first use (PEP 562), for quick start-up.

A package lists each public name with the module that defines it, and delegates its
module-level ``__getattr__`` and ``__dir__`` here: ``snakewar --version`` then imports
no web framework, referee or replay reader it does not use.

A package that moved keeps its old name as a thin package that re-exports the new one
and hands its submodules over with :func:`alias_submodules`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from collections.abc import Mapping, Sequence
from types import ModuleType
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


class _SubmoduleAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``old.x.y`` as the very module ``new.x.y`` (one module object, two names)."""

    def __init__(self, old: str, new: str) -> None:
        self.old = old
        self.new = new

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(self.old + "."):
            return None
        if importlib.util.find_spec(self.new + fullname.removeprefix(self.old)) is None:
            return None  # no such module under either name
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        # The moved module itself: its __name__ and __spec__ stay the new ones, so the
        # import system keeps them, and its classes are the same objects under both names.
        return importlib.import_module(self.new + spec.name.removeprefix(self.old))

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: :meth:`create_module` returned a module that ran already."""


def alias_submodules(old: str, new: str) -> None:
    """Make ``import old.x`` give the module ``new.x``, imported on first use.

    For a package that moved: its old ``__init__`` re-exports the new one and calls this
    once, so that old imports of its submodules keep working without a file per submodule.
    """
    if not any(isinstance(f, _SubmoduleAlias) and f.old == old for f in sys.meta_path):
        sys.meta_path.append(_SubmoduleAlias(old, new))


def warn_moved(old: str, new: str) -> None:
    """Warn, from the old module of a move, that ``old`` is now ``new`` (for one release).

    Called by the old module's body, so the warning names the import that reached it.
    """
    warnings.warn(f"{old} moved to {new}", DeprecationWarning, stacklevel=3)
