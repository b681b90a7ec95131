import random

from hlt import Game

game = Game()
rng = random.Random(game.my_id * 7919 + 17)
game.ready("PythonBot")
while True:
    game.read_frame()
    commands = []
    yard_taken = False
    for ship_id, x, y, cargo in game.ships:
        if (x, y) == game.yard:
            yard_taken = True
        if game.cells[y][x] >= 50 and cargo < 800:
            continue  # stay and mine
        commands.append(f"m {ship_id} {rng.choice('nsew')}")
    if game.turn <= 100 and game.halite >= 1000 and not yard_taken:
        commands.append("g")
    Game.end_turn(commands)
