<?php
// Snakewar's test bot for the official PHP kit's run_game.sh (not the kit's own bot).
// It speaks the Halite III protocol: reads the init, answers its name, then reads each
// turn's frame and answers one line: a spawn on turn 1, nothing after.

$pending = [];

function next_value()
{
    global $pending;
    while (count($pending) === 0) {
        $line = fgets(STDIN);
        if ($line === false) {
            exit(0);
        }
        $pending = preg_split('/\s+/', trim($line), -1, PREG_SPLIT_NO_EMPTY);
    }
    return (int) array_shift($pending);
}

if (fgets(STDIN) === false) { // the constants (JSON)
    exit(0);
}
$players = next_value();
next_value();
for ($i = 0; $i < $players * 3; $i++) {
    next_value();
}
$width = next_value();
$height = next_value();
for ($i = 0; $i < $width * $height; $i++) {
    next_value();
}
echo "php-bot\n";
fflush(STDOUT);
while (true) {
    $turn = next_value();
    for ($p = 0; $p < $players; $p++) {
        next_value();
        $ships = next_value();
        $dropoffs = next_value();
        next_value();
        for ($i = 0; $i < $ships * 4 + $dropoffs * 3; $i++) {
            next_value();
        }
    }
    $cells = next_value();
    for ($i = 0; $i < $cells * 3; $i++) {
        next_value();
    }
    echo $turn === 1 ? "g\n" : "\n";
    fflush(STDOUT);
}
