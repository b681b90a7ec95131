#!/bin/sh

./halite --replay-directory replays/ -vvv --width 32 --height 32 "julia --project MyBot.jl" "julia --project MyBot.jl"
