"""A ratings file: every eval's results by bot version, rated with anchors held fixed.

``snakewar eval A B --anchor A=1000 --ratings FILE`` keeps, in one JSON file, the
head-to-head counts of every eval run it was given, keyed by the bots' *version keys*
(:func:`~snakewar.arena.evaluation.version_key`), and the anchors: versions whose
ratings are fixed.  After each run the ratings of every other version are computed
again over all stored results (:func:`~snakewar.arena.evalstats.anchored_ratings`), so
that a rating means the same against the same reference bots from run to run.

The file (``format`` ``snakewar-ratings``, ``version`` 1)::

    {"format": "snakewar-ratings", "version": 1, "config": {...},
     "anchors": {"KEY": 1000.0},
     "versions": {"KEY": {"name": "greedy", "source": "greedy"}},
     "results": [{"a": "KEY", "b": "KEY", "wins": 3, "draws": 0, "losses": 1}],
     "ratings": {"KEY": {"rating": 1190.8, "plus_minus": 393.2, "games": 4, "anchor": false}}}

``results`` holds one entry per pair of versions (``a`` before ``b``), ``a``'s counts;
``ratings`` is derived and rewritten each time.  All results share one game config
(the first run's): ratings from another board or ruleset would not compare.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snakewar.arena.evalstats import AnchoredRating, Trinomial, anchored_ratings
from snakewar.arena.evaluation import EvalError

__all__ = ["MAX_FILE_BYTES", "RatingsBook", "RatingsFileError"]

FORMAT = "snakewar-ratings"
MAX_FILE_BYTES = 16 * 1024 * 1024
"""A ratings file larger than this is refused."""
_MAX_VERSIONS = 2000
_MAX_KEY = 300


class RatingsFileError(EvalError):
    """A ratings file that cannot be read or does not fit this run."""


@dataclass
class RatingsBook:
    """The contents of a ratings file (see the module)."""

    config: dict[str, Any] | None = None
    anchors: dict[str, float] = field(default_factory=dict)
    versions: dict[str, dict[str, str]] = field(default_factory=dict)
    results: dict[tuple[str, str], Trinomial] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path) -> RatingsBook:
        """The book in ``path``; an empty one if there is no such file.

        Raises:
            RatingsFileError: a file too large, not JSON, or not a ratings file (naming
                the field that is wrong).
        """
        if not path.exists():
            return cls()
        try:
            size = path.stat().st_size
            if size > MAX_FILE_BYTES:
                raise RatingsFileError(
                    f"ratings file {path}: {size} bytes, at most {MAX_FILE_BYTES}"
                )
            data = json.loads(path.read_bytes())
        except OSError as exc:
            raise RatingsFileError(f"ratings file {path}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise RatingsFileError(f"ratings file {path}: not JSON ({exc})") from None
        return cls.from_dict(data, str(path))

    @classmethod
    def from_dict(cls, data: object, where: str = "ratings file") -> RatingsBook:
        """A book from a file's JSON, every field checked.

        Raises:
            RatingsFileError: the first wrong field, named.
        """

        def bad(what: str) -> RatingsFileError:
            return RatingsFileError(f"{where}: {what}")

        if not isinstance(data, dict):
            raise bad("expected a JSON object")
        if data.get("format") != FORMAT or data.get("version") != 1:
            raise bad(f"'format' and 'version': expected {FORMAT!r} and 1")
        config = data.get("config")
        if config is not None and not isinstance(config, dict):
            raise bad("'config': expected an object")
        anchors = data.get("anchors", {})
        if not isinstance(anchors, dict):
            raise bad("'anchors': expected an object of version key -> rating")
        book = cls(config=config)
        for key, value in anchors.items():
            _check_key(key, f"'anchors' key {key!r}", bad)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise bad(f"'anchors'.{key!r}: expected a number")
            if not math.isfinite(value):
                raise bad(f"'anchors'.{key!r}: expected a finite number")
            book.anchors[key] = float(value)
        versions = data.get("versions", {})
        if not isinstance(versions, dict) or len(versions) > _MAX_VERSIONS:
            raise bad(f"'versions': expected an object of at most {_MAX_VERSIONS} versions")
        for key, info in versions.items():
            _check_key(key, f"'versions' key {key!r}", bad)
            if not isinstance(info, dict) or not all(
                isinstance(v, str) and len(v) <= 4096 for v in info.values()
            ):
                raise bad(f"'versions'.{key!r}: expected an object of short strings")
            book.versions[key] = {str(k): str(v) for k, v in info.items()}
        results = data.get("results", [])
        if not isinstance(results, list):
            raise bad("'results': expected a list")
        for n, item in enumerate(results):
            if not isinstance(item, dict):
                raise bad(f"'results'[{n}]: expected an object")
            a, b = item.get("a"), item.get("b")
            _check_key(a, f"'results'[{n}].a", bad)
            _check_key(b, f"'results'[{n}].b", bad)
            assert isinstance(a, str) and isinstance(b, str)
            if a == b:
                raise bad(f"'results'[{n}]: a version against itself")
            counts = []
            for name in ("wins", "draws", "losses"):
                value = item.get(name)
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise bad(f"'results'[{n}].{name}: expected a whole number, 0 or more")
                counts.append(value)
            book.add(a, b, Trinomial(*counts))
        return book

    def check_config(self, config: dict[str, Any], where: str) -> None:
        """Take ``config`` as the book's, or check that it is the book's.

        Raises:
            RatingsFileError: another game config than the one its results were played in.
        """
        if self.config is None:
            self.config = config
        elif self.config != config:
            raise RatingsFileError(
                f"{where}: its results were played with another game config "
                f"({json.dumps(self.config, sort_keys=True)[:300]}); use another ratings file"
            )

    def fix_anchor(self, key: str, rating: float, where: str) -> None:
        """Hold version ``key`` at ``rating``.

        Raises:
            RatingsFileError: ``key`` is an anchor at another rating already.
        """
        held = self.anchors.get(key)
        if held is not None and held != rating:
            raise RatingsFileError(
                f"{where}: version {key!r} is an anchor at {held:g} already, not {rating:g}"
            )
        self.anchors[key] = rating

    def add(self, a: str, b: str, t: Trinomial) -> None:
        """Count ``a``'s results ``t`` against ``b``."""
        if b < a:
            a, b, t = b, a, t.flipped()
        self.results[(a, b)] = self.results.get((a, b), Trinomial()).plus(t)

    def ratings(self) -> dict[str, AnchoredRating]:
        """Every version's rating (anchors fixed; see the module).

        Raises:
            RatingsFileError: no anchor.
        """
        if not self.anchors:
            raise RatingsFileError("a ratings file needs an anchor: --anchor NAME=RATING")
        return anchored_ratings(self.results, self.anchors)

    def to_dict(self) -> dict[str, Any]:
        """The file's JSON (ratings computed now)."""
        return {
            "format": FORMAT,
            "version": 1,
            "config": self.config,
            "anchors": dict(sorted(self.anchors.items())),
            "versions": dict(sorted(self.versions.items())),
            "results": [
                {"a": a, "b": b, "wins": t.wins, "draws": t.draws, "losses": t.losses}
                for (a, b), t in sorted(self.results.items())
            ],
            "ratings": {key: rating_json(r) for key, r in sorted(self.ratings().items())},
        }

    def save(self, path: Path) -> None:
        """Write the file whole (a new file renamed over the old: never half written)."""
        text = json.dumps(self.to_dict(), indent=2) + "\n"
        handle, temporary = tempfile.mkstemp(prefix=".ratings-", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def rating_json(r: AnchoredRating) -> dict[str, Any]:
    """One rating as JSON (an unbounded interval is ``null``)."""
    return {
        "rating": round(r.rating, 2),
        "plus_minus": round(r.plus_minus, 2) if math.isfinite(r.plus_minus) else None,
        "games": r.games,
        "anchor": r.anchor,
    }


def _check_key(key: object, what: str, bad: Any) -> None:
    if not isinstance(key, str) or not 0 < len(key) <= _MAX_KEY:
        raise bad(f"{what}: expected a version key of 1 to {_MAX_KEY} characters")
