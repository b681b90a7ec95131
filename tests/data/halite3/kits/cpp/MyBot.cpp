#include <random>
#include <string>
#include <vector>

#include "hlt/game.hpp"

int main() {
    hlt::Game game;
    game.read_init();
    std::mt19937 rng(static_cast<unsigned>(game.my_id) * 7919u + 17u);
    game.ready("CppBot");
    const char directions[] = {'n', 's', 'e', 'w'};
    for (;;) {
        game.read_frame();
        std::vector<std::string> commands;
        bool yard_taken = false;
        for (const hlt::Ship& ship : game.ships) {
            if (ship.x == game.yard_x && ship.y == game.yard_y) {
                yard_taken = true;
            }
            if (game.cells[ship.y][ship.x] >= 50 && ship.halite < 800) {
                continue;  // stay and mine
            }
            char d = directions[rng() % 4];
            commands.push_back("m " + std::to_string(ship.id) + " " + d);
        }
        if (game.turn <= 100 && game.halite >= 1000 && !yard_taken) {
            commands.push_back("g");
        }
        hlt::Game::end_turn(commands);
    }
}
