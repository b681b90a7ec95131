#!/usr/bin/env python3
# The classic Halite III starter bot, in the official Python kit's style: ships wander
# until they find a rich cell, mine it, and the shipyard spawns while it is early.

import logging
import random

import hlt
from hlt import constants
from hlt.positionals import Direction

game = hlt.Game()
# Any set-up (pre-computation) goes here, before ready().
game.ready("MyPythonBot")
logging.info(f"Successfully created bot! My Player ID is {game.my_id}.")

while True:
    game.update_frame()
    me = game.me
    game_map = game.game_map
    command_queue = []

    for ship in me.get_ships():
        # Move on when the cell is poor or the hold is full; otherwise mine.
        if game_map[ship.position].halite_amount < constants.MAX_HALITE / 10 or ship.is_full:
            command_queue.append(
                ship.move(
                    random.choice(
                        [Direction.North, Direction.South, Direction.East, Direction.West]
                    )
                )
            )
        else:
            command_queue.append(ship.stay_still())

    # Spawn early in the game, when affordable and the shipyard is clear.
    if (
        game.turn_number <= 200
        and me.halite_amount >= constants.SHIP_COST
        and not game_map[me.shipyard].is_occupied
    ):
        command_queue.append(me.shipyard.spawn())

    # Send the turn's commands to the engine.
    game.end_turn(command_queue)
