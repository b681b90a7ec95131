"""The Halite III protocol, as much of it as a simple bot needs."""

import sys


def _line():
    text = sys.stdin.readline()
    if not text:
        sys.exit(0)  # the game is over: the engine closed our input
    return text


def _numbers():
    return [int(word) for word in _line().split()]


class Game:
    """What the bot knows of the game."""

    def __init__(self):
        _line()  # the constants, as JSON: this bot needs none of them
        self.players, self.my_id = _numbers()
        for _ in range(self.players):
            pid, x, y = _numbers()
            if pid == self.my_id:
                self.yard = (x, y)
        self.width, self.height = _numbers()
        self.cells = [_numbers() for _ in range(self.height)]
        self.turn = 0
        self.halite = 0
        self.ships = []

    def ready(self, name):
        print(name, flush=True)

    def read_frame(self):
        (self.turn,) = _numbers()
        self.ships = []
        for _ in range(self.players):
            pid, count, dropoffs, halite = _numbers()
            for _ in range(count):
                ship_id, x, y, cargo = _numbers()
                if pid == self.my_id:
                    self.ships.append((ship_id, x, y, cargo))
            for _ in range(dropoffs):
                _line()
            if pid == self.my_id:
                self.halite = halite
        (changed,) = _numbers()
        for _ in range(changed):
            x, y, value = _numbers()
            self.cells[y][x] = value

    @staticmethod
    def end_turn(commands):
        print(" ".join(commands), flush=True)
