"""Hand-made states for issue 28 (int64 extremes), as states-checker specs."""

import json

MIN, MAX = -(2**63), 2**63 - 1
specs = []


def snake(sid, body, health=100, cause="", by="", on=0):
    return {
        "id": sid,
        "body": [list(p) for p in body],
        "health": health,
        "eliminated_cause": cause,
        "eliminated_by": by,
        "eliminated_on_turn": on,
    }


def add(name, ruleset, state, moves, settings=None, seed=1, solo=False, map_id=None):
    spec = {
        "id": f"issue28-{len(specs):03d}-{name}",
        "ruleset": ruleset,
        "solo": solo,
        "settings": settings
        or {
            "damagePerTurn": "14",
            "shrinkEveryNTurns": "25",
            "foodSpawnChance": "15",
            "minimumFood": "1",
        },
        "seed": seed,
        "state": state,
        "moves": [{"id": i, "move": m} for i, m in moves] if moves is not None else None,
    }
    if map_id:
        spec["map"] = map_id
    specs.append(spec)


def st(turn, w, h, snakes, food=(), hazards=()):
    return {
        "turn": turn,
        "width": w,
        "height": h,
        "food": [list(p) for p in food],
        "hazards": [list(p) for p in hazards],
        "snakes": snakes,
    }


RULESETS = ["standard", "solo", "royale", "constrictor", "wrapped", "wrapped_constrictor"]
# 1. health at the int64 minimum (and near it), with and without hazards and food.
for rs in RULESETS:
    for health in (MIN, MIN + 1, MAX, 0, 1):
        add(
            f"health-{health}-{rs}",
            rs,
            st(
                7,
                7,
                7,
                [
                    snake("a", [(3, 3), (3, 2), (3, 1)], health),
                    snake("b", [(5, 5), (5, 4), (5, 3)], 50),
                ],
            ),
            [("a", "up"), ("b", "up")],
            solo=(rs == "solo"),
        )
    for damage in ("14", "-14", str(MAX), str(MIN), "1"):
        add(
            f"health-min-hazard-{damage}-{rs}",
            rs,
            st(
                8,
                7,
                7,
                [
                    snake("a", [(3, 3), (3, 2), (3, 1)], MIN),
                    snake("b", [(5, 5), (5, 4), (5, 3)], MIN + 1),
                ],
                hazards=[(3, 4), (3, 4), (5, 6)],
            ),
            [("a", "up"), ("b", "up")],
            settings={"damagePerTurn": damage, "shrinkEveryNTurns": "25"},
        )
    # knock-on collision: a wrapped-health snake wins a head-to-head against a shorter one
    add(
        f"health-min-h2h-{rs}",
        rs,
        st(
            3,
            7,
            7,
            [
                snake("a", [(2, 3), (1, 3), (0, 3), (0, 2)], MIN),
                snake("b", [(4, 3), (5, 3), (6, 3)], 60),
            ],
        ),
        [("a", "right"), ("b", "left")],
    )
# 2. turn at the int64 maximum: eliminations record Turn + 1, royale at that turn.
for rs in RULESETS:
    for turn in (MAX, MAX - 1, MIN, -1):
        if rs == "royale" and turn == MAX - 1:
            continue  # Go draws 2**63 / 25 shrinks there: it never answers
        add(
            f"turn-{turn}-{rs}",
            rs,
            st(
                turn,
                7,
                7,
                [
                    snake("a", [(2, 3), (1, 3), (0, 3)], 90),
                    snake("b", [(4, 3), (5, 3), (6, 3), (6, 2)], 1),
                    snake("c", [(6, 6), (6, 5), (6, 4)], 30),
                ],
                food=[(0, 0)],
                hazards=[(6, 6), (1, 1)],
            ),
            [("a", "right"), ("b", "left"), ("c", "up")],
        )
# royale zones at large turns: the bounded loop gives Go's zone
for turn, shrink, size in (
    (10**6, 1, 7),
    (5000, 3, 11),
    (300, 20, 19),
    (48, 2, 11),
    (22, 1, 11),
    (21, 1, 11),
):
    add(
        f"royale-zone-{turn}-{shrink}-{size}",
        "royale",
        st(
            turn,
            size,
            size,
            [
                snake("a", [(1, 1), (1, 0), (0, 0)], 100),
                snake("b", [(size - 2, size - 2), (size - 2, size - 1)], 100),
            ],
        ),
        [("a", "up"), ("b", "down")],
        settings={"damagePerTurn": "1", "shrinkEveryNTurns": str(shrink)},
        seed=turn,
    )
# maps at the wrap turn and at negative turns (the turn after it)
MAPS = [
    "standard",
    "empty",
    "royale",
    "hz_spiral",
    "hz_scatter",
    "hz_grow_box",
    "hz_expand_box",
    "hz_expand_scatter",
    "hz_inner_wall",
    "hz_rings",
    "hz_columns",
    "sinkholes",
    "snail_mode",
]
for m in MAPS:
    for turn in (MAX, MIN, MIN + 1, MIN + 12, MIN + 20, -41, -39, -19, -13, -3, -2, -1):
        add(
            f"map-{m}-{turn}",
            "standard",
            st(
                turn,
                11,
                11,
                [
                    snake("a", [(2, 3), (1, 3), (0, 3)], 90),
                    snake("b", [(8, 8), (8, 7), (8, 6)], 90),
                ],
                hazards=[(5, 5)],
            ),
            [("a", "up"), ("b", "down")],
            seed=7,
            map_id=m,
            settings={
                "damagePerTurn": "14",
                "shrinkEveryNTurns": "1",
                "foodSpawnChance": "0",
                "minimumFood": "0",
            },
        )
# 5. off-metadata boards: the expanding maps' start off the board (255x7, 7x255, 200x3)
for m in ("hz_expand_scatter", "hz_expand_box", "hz_spiral", "hz_grow_box", "snail_mode"):
    for w, h in ((255, 7), (200, 5), (101, 9)):
        for seed in (1, 2, 3, 12345):
            for turn in (0, 1, 20, 39):
                add(
                    f"offmeta-{m}-{w}x{h}-{seed}-{turn}",
                    "standard",
                    st(
                        turn,
                        w,
                        h,
                        [
                            snake("a", [(2, 3), (1, 3), (0, 3)], 90),
                            snake("b", [(8, 1), (8, 2), (8, 3)], 90),
                        ],
                    ),
                    [("a", "up"), ("b", "down")],
                    seed=seed,
                    map_id=m,
                    settings={
                        "damagePerTurn": "14",
                        "shrinkEveryNTurns": "25",
                        "foodSpawnChance": "0",
                        "minimumFood": "0",
                    },
                )
for s in specs:
    print(json.dumps(s))
