// Snakewar's test bot for the official D kit's run_game.sh (not the kit's own bot).
// It speaks the Halite III protocol: reads the init, answers its name, then reads each
// turn's frame and answers one line: a spawn on turn 1, nothing after.
import core.stdc.stdlib : exit;
import std.array : split;
import std.conv : to;
import std.stdio;

long[] pending;

long next() {
    while (pending.length == 0) {
        auto line = stdin.readln();
        if (line is null) exit(0);
        foreach (word; line.split) pending ~= word.to!long;
    }
    auto value = pending[0];
    pending = pending[1 .. $];
    return value;
}

void main() {
    if (stdin.readln() is null) return; // the constants (JSON)
    auto players = next();
    next();
    foreach (i; 0 .. players * 3) next();
    auto width = next();
    auto height = next();
    foreach (i; 0 .. width * height) next();
    writeln("d-bot");
    stdout.flush();
    while (true) {
        auto turn = next();
        foreach (p; 0 .. players) {
            next();
            auto ships = next();
            auto dropoffs = next();
            next();
            foreach (i; 0 .. ships * 4 + dropoffs * 3) next();
        }
        auto cells = next();
        foreach (i; 0 .. cells * 3) next();
        writeln(turn == 1 ? "g" : "");
        stdout.flush();
    }
}
