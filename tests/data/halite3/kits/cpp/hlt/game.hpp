// The Halite III protocol, as much of it as a simple bot needs.
#pragma once
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace hlt {

struct Ship {
    int id;
    int x;
    int y;
    int halite;
};

struct Game {
    int players = 0;
    int my_id = 0;
    int width = 0;
    int height = 0;
    int turn = 0;
    int halite = 0;
    int yard_x = 0;
    int yard_y = 0;
    std::vector<std::vector<int>> cells;
    std::vector<Ship> ships;

    static std::istringstream line() {
        std::string text;
        if (!std::getline(std::cin, text)) {
            std::exit(0);  // the game is over: the engine closed our input
        }
        return std::istringstream(text);
    }

    void read_init() {
        line();  // the constants, as JSON: this bot needs none of them
        line() >> players >> my_id;
        for (int i = 0; i < players; ++i) {
            int id, x, y;
            line() >> id >> x >> y;
            if (id == my_id) {
                yard_x = x;
                yard_y = y;
            }
        }
        line() >> width >> height;
        cells.assign(height, std::vector<int>(width, 0));
        for (int y = 0; y < height; ++y) {
            std::istringstream row = line();
            for (int x = 0; x < width; ++x) {
                row >> cells[y][x];
            }
        }
    }

    void ready(const std::string& name) { std::cout << name << std::endl; }

    void read_frame() {
        line() >> turn;
        ships.clear();
        for (int p = 0; p < players; ++p) {
            int id, count, dropoffs, energy;
            line() >> id >> count >> dropoffs >> energy;
            for (int i = 0; i < count; ++i) {
                Ship ship{};
                line() >> ship.id >> ship.x >> ship.y >> ship.halite;
                if (id == my_id) {
                    ships.push_back(ship);
                }
            }
            for (int i = 0; i < dropoffs; ++i) {
                line();
            }
            if (id == my_id) {
                halite = energy;
            }
        }
        int changed;
        line() >> changed;
        for (int i = 0; i < changed; ++i) {
            int x, y, value;
            line() >> x >> y >> value;
            cells[y][x] = value;
        }
    }

    static void end_turn(const std::vector<std::string>& commands) {
        for (const std::string& command : commands) {
            std::cout << command << ' ';
        }
        std::cout << std::endl;
    }
};

}  // namespace hlt
