package main

import (
	"fmt"
	"hlt"
	"math/rand"
)

func main() {
	game := hlt.New()
	rng := rand.New(rand.NewSource(int64(game.MyID)*7919 + 17))
	game.Ready("GoBot")
	directions := []string{"n", "s", "e", "w"}
	for {
		game.ReadFrame()
		commands := []string{}
		yardTaken := false
		for _, ship := range game.Ships {
			if ship.X == game.YardX && ship.Y == game.YardY {
				yardTaken = true
			}
			if game.Cells[ship.Y][ship.X] >= 50 && ship.Halite < 800 {
				continue // stay and mine
			}
			commands = append(commands, fmt.Sprintf("m %d %s", ship.ID, directions[rng.Intn(4)]))
		}
		if game.Turn <= 100 && game.Halite >= 1000 && !yardTaken {
			commands = append(commands, "g")
		}
		hlt.EndTurn(commands)
	}
}
