// Snakewar's test bot for the official C++ kit's run_game.sh (not the kit's own bot).
// It speaks the Halite III protocol: reads the init, answers its name, then reads each
// turn's frame and answers one line: a spawn on turn 1, nothing after.
#include <iostream>
#include <string>

int main() {
    std::string constants;
    if (!std::getline(std::cin, constants)) return 0;
    long players = 0, me = 0;
    std::cin >> players >> me;
    long value = 0;
    for (long i = 0; i < players * 3; i++) std::cin >> value;  // id, shipyard x, y
    long width = 0, height = 0;
    std::cin >> width >> height;
    for (long i = 0; i < width * height; i++) std::cin >> value;
    std::cout << "cpp-bot" << std::endl;
    long turn = 0;
    while (std::cin >> turn) {
        for (long p = 0; p < players; p++) {
            long id = 0, ships = 0, dropoffs = 0, halite = 0;
            std::cin >> id >> ships >> dropoffs >> halite;
            for (long i = 0; i < ships * 4 + dropoffs * 3; i++) std::cin >> value;
        }
        long cells = 0;
        std::cin >> cells;
        for (long i = 0; i < cells * 3; i++) std::cin >> value;
        std::cout << (turn == 1 ? "g" : "") << std::endl;
    }
    return 0;
}
