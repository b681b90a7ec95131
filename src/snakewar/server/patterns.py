"""The text fields checked against a pattern, and what each pattern allows in words.

A request field limited by a regular expression (a user name, a snake name...) takes
its pattern and length limits from a :class:`TextRule` here, and a request that breaks
one is answered in the rule's words ("name: 1 to 32 lowercase letters, digits, _ or -,
starting with a letter or digit"), never with the expression itself
(:func:`snakewar.server.errors.validation_response` looks the words up with
:func:`pattern_words`).  A pattern that is not here is answered with a generic
sentence, so a new field can leak no expression either; the tests check that every
pattern of the OpenAPI description is here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from pydantic import Field

__all__ = [
    "EXPORT_ID",
    "INVITE_ID",
    "LABEL",
    "LADDER_NAME",
    "RULES",
    "SEED_TEXT",
    "SNAKE_NAME",
    "SNAKE_REFERENCE",
    "SNAKE_TAG",
    "TITLE",
    "UNKNOWN_PATTERN_WORDS",
    "USER_NAME",
    "SnakeRef",
    "TextRule",
    "parse_snake_ref",
    "pattern_words",
    "snake_ref_owner",
]


@dataclass(frozen=True, slots=True)
class TextRule:
    """A pattern-checked text field's limits, and what they allow in words.

    Attributes:
        pattern: the regular expression the whole text must match.
        words: what the pattern allows, for people ("lowercase letters, digits...").
        min_length: the fewest characters.
        max_length: the most characters.
    """

    pattern: str
    words: str
    min_length: int
    max_length: int

    @property
    def rule(self) -> str:
        """The whole rule in words: the length and what the pattern allows."""
        if self.min_length == 1:
            return f"1 to {self.max_length} {self.words}"
        return f"{self.min_length} to {self.max_length} characters: {self.words}"

    def field(self) -> Any:
        """The pydantic ``Field`` of a model's text field under this rule (for ``Annotated``)."""
        return Field(**self.limits())

    def limits(self) -> dict[str, Any]:
        """Keyword arguments for ``Field``, ``Query`` or ``Path`` (and the OpenAPI description)."""
        return {
            "min_length": self.min_length,
            "max_length": self.max_length,
            "pattern": self.pattern,
            "description": self.rule[0].upper() + self.rule[1:] + ".",
        }


USER_NAME: Final = TextRule(
    r"^[a-z0-9][a-z0-9_-]*$",
    "lowercase letters, digits, _ or -, starting with a letter or digit",
    1,
    32,
)
"""An account's name (the storage checks the same: :data:`snakewar.storage.accounts.USER_NAME`)."""

SNAKE_NAME: Final = TextRule(
    r"^[A-Za-z0-9][A-Za-z0-9_.-]*$",
    "letters, digits, _, . or -, starting with a letter or digit",
    1,
    40,
)
"""A registered snake's or uploaded bot's name."""

LADDER_NAME: Final = TextRule(r"^[A-Za-z0-9_.-]+$", "letters, digits, _, . or -", 1, 100)
"""A ladder's name (it is part of the ladder's URL)."""

LABEL: Final = TextRule(
    r"^[^\x00-\x1f\x7f]+$",
    "characters of one line (no tab, newline or other control character)",
    1,
    64,
)
"""An API token's label."""

SEED_TEXT: Final = TextRule(r"^-?[0-9]{1,20}$", "digits, with a - in front if negative", 1, 21)
"""A seed written as a decimal string (only described by this pattern: the seed's own
validator checks it, in words)."""

INVITE_ID: Final = TextRule(
    r"^[0-9a-f]{64}$", "lowercase hexadecimal digits (an invitation's id)", 64, 64
)
"""A sign-up invitation's id: the SHA-256 of its code, as the invitations list shows it."""

_REF_OWNER: Final = r"[a-z0-9][a-z0-9_-]{0,31}"
"""A reference's owner: a :data:`USER_NAME`, its length limit written into the pattern."""

_REF_NAME: Final = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}"
"""A reference's snake: a :data:`SNAKE_NAME`, its length limit written into the pattern."""

SNAKE_REFERENCE: Final = TextRule(
    rf"^@{_REF_OWNER}/{_REF_NAME}$",
    "@, its owner's name, / and its name",
    3,
    80,
)
"""A registered snake named as ``@owner/name`` (a filter of the games list)."""

# Matched whole (fullmatch): "$" would also let a trailing newline through.
_SNAKE_REF: Final = re.compile(rf"@({_REF_OWNER})/({_REF_NAME})")


@dataclass(frozen=True, slots=True)
class SnakeRef:
    """A registered snake's reference, ``@owner/name``, read by :func:`parse_snake_ref`.

    Attributes:
        owner: the owning user's name.
        name: the snake's name (unique per owner).
    """

    owner: str
    name: str

    def __str__(self) -> str:
        return f"@{self.owner}/{self.name}"


def parse_snake_ref(text: str) -> SnakeRef | None:
    """``text`` as a registered snake's reference, or ``None`` when it is none.

    The one reader of ``@owner/name`` on the server: entrants, ladder and tournament
    entries, log and address permissions and notifications all ask it.  The whole text
    must be a reference: an owner that is a user name and a name that is a snake name.

    >>> parse_snake_ref("@ann/viper-2")
    SnakeRef(owner='ann', name='viper-2')
    >>> parse_snake_ref("ann/viper") is None, parse_snake_ref("@Ann/viper") is None
    (True, True)
    """
    match = _SNAKE_REF.fullmatch(text)
    return SnakeRef(match[1], match[2]) if match is not None else None


def snake_ref_owner(text: str) -> str | None:
    """The owner's name when ``text`` is a reference ``@owner/name``, else ``None``."""
    ref = parse_snake_ref(text)
    return ref.owner if ref is not None else None


SNAKE_TAG: Final = TextRule(
    r"^[a-z0-9][a-z0-9+#.-]{0,23}$",
    "lowercase letters, digits, +, #, . or -, starting with a letter or digit",
    1,
    24,
)
"""A snake's tag: a short lowercase word (``python``, ``c++``, ``minimax``)."""

TITLE: Final = TextRule(r"\S", "characters, not all of them spaces", 1, 120)
"""A saved game's title."""

EXPORT_ID: Final = TextRule(r"^[0-9a-f]+$", "lowercase hexadecimal digits (an export's id)", 1, 32)
"""A bulk export's id."""

PLAYER: Final = TextRule(
    r"^[^\x00-\x1f\x7f]*[^\x00-\x20\x7f][^\x00-\x1f\x7f]*$",
    "characters of one line, not only spaces (a player's id or name)",
    1,
    128,
)
"""A player of a game named by its id or its name (a scenario's tested snake)."""

RULES: Final = (
    USER_NAME,
    SNAKE_NAME,
    LADDER_NAME,
    LABEL,
    SEED_TEXT,
    INVITE_ID,
    SNAKE_REFERENCE,
    SNAKE_TAG,
    TITLE,
    EXPORT_ID,
    PLAYER,
)
"""Every pattern a request field is checked against."""

UNKNOWN_PATTERN_WORDS: Final = "has characters that are not allowed here"
"""The answer for a pattern without words (there should be none: the tests look)."""

_WORDS: Final = {rule.pattern: rule.rule for rule in RULES}


def pattern_words(pattern: object) -> str:
    """What ``pattern`` (a field's regular expression) allows, in words.

    >>> pattern_words(USER_NAME.pattern)
    '1 to 32 lowercase letters, digits, _ or -, starting with a letter or digit'
    >>> pattern_words("^[xyz]+$")
    'has characters that are not allowed here'
    """
    return _WORDS.get(str(pattern), UNKNOWN_PATTERN_WORDS)
