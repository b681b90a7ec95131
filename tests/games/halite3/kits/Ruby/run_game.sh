#!/bin/sh

./halite --replay-directory replays/ -v --width 32 --height 32 "ruby MyBot.rb" "ruby MyBot.rb"
