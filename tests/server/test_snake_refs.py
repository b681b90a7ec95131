"""The server's one reader of a registered snake's reference, ``@owner/name``.

Entrants, ladder and tournament entries, the log and address permissions and the
notifications all read a reference with :func:`parse_snake_ref`; it must take exactly
what the games list's ``snake`` filter (:data:`SNAKE_REFERENCE`) takes, with an owner
that is a user name and a name that is a snake name.
"""

from __future__ import annotations

import re

import pytest

from snakewar.server.patterns import (
    SNAKE_NAME,
    SNAKE_REFERENCE,
    USER_NAME,
    SnakeRef,
    TextRule,
    parse_snake_ref,
    snake_ref_owner,
)

VALID = [
    ("@ann/viper", "ann", "viper"),
    ("@a/b", "a", "b"),
    ("@0/9", "0", "9"),
    ("@ann-2_x/Viper.v2-b_c", "ann-2_x", "Viper.v2-b_c"),
    ("@" + "a" * 32 + "/" + "B" * 40, "a" * 32, "B" * 40),
]

INVALID = [
    "",
    "@",
    "@/",
    "@ann/",
    "@/viper",
    "ann/viper",  # an entry of the days before references had their "@"
    "viper",
    "builtin:random",
    "https://bot.example/move",
    "@@ann/viper",
    "@Ann/viper",  # a user name is lowercase
    "@-ann/viper",  # and starts with a letter or digit
    "@_ann/viper",
    "@ann/.viper",  # so does a snake's name
    "@ann/-viper",
    "@ann/vi per",
    "@ann/viper/2",
    "@ann.b/viper",
    "@ann/viper\n",  # "$" would let this through; the whole text must match
    "\n@ann/viper",
    " @ann/viper",
    "@ann/viper ",
    "@ann/vipér",
    "@ann/viper\x00",
    "@" + "a" * 33 + "/viper",  # one past a user name's 32
    "@ann/" + "v" * 41,  # one past a snake name's 40
]


@pytest.mark.parametrize(("text", "owner", "name"), VALID)
def test_a_reference_is_read_into_its_owner_and_name(text: str, owner: str, name: str) -> None:
    ref = parse_snake_ref(text)
    assert ref == SnakeRef(owner, name)
    assert str(ref) == text
    assert snake_ref_owner(text) == owner


@pytest.mark.parametrize("text", INVALID)
def test_what_is_no_reference_reads_as_none(text: str) -> None:
    assert parse_snake_ref(text) is None
    assert snake_ref_owner(text) is None


def _takes(rule: TextRule, text: str) -> bool:
    # As pydantic checks a field: the length limits, then the pattern, whose "$" is
    # the end of the text in its (Rust) regular expressions.
    return (
        rule.min_length <= len(text) <= rule.max_length
        and re.search(rule.pattern.removesuffix("$") + r"\Z", text) is not None
    )


@pytest.mark.parametrize("text", [t for t, _, _ in VALID] + INVALID)
def test_the_reader_takes_what_the_games_filter_takes(text: str) -> None:
    assert (parse_snake_ref(text) is not None) == _takes(SNAKE_REFERENCE, text)


@pytest.mark.parametrize(
    ("owner", "name"),
    [
        ("ann", "viper"),
        ("a" * 32, "n" * 40),
        ("a" * 33, "viper"),
        ("ann", "n" * 41),
        ("Ann", "viper"),
        ("ann", "_viper"),
        ("a-b_c9", "V.i-p_er"),
        ("-ann", "viper"),
    ],
)
def test_its_parts_are_a_user_name_and_a_snake_name(owner: str, name: str) -> None:
    both = _takes(USER_NAME, owner) and _takes(SNAKE_NAME, name)
    assert (parse_snake_ref(f"@{owner}/{name}") == SnakeRef(owner, name)) == both
