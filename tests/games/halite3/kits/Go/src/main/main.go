// Snakewar's test bot for the official Go kit's run_game.sh (not the kit's own bot):
// the package "main" of a GOPATH, as the script builds and runs it (go build main,
// go run main).  It speaks the Halite III protocol: reads the init, answers its name,
// then reads each turn's frame and answers one line: a spawn on turn 1, nothing after.
package main

import (
	"bufio"
	"fmt"
	"os"
)

func main() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	if _, err := in.ReadString('\n'); err != nil { // the constants (JSON)
		return
	}
	var players, me, value int
	fmt.Fscan(in, &players, &me)
	for i := 0; i < players*3; i++ {
		fmt.Fscan(in, &value)
	}
	var width, height int
	fmt.Fscan(in, &width, &height)
	for i := 0; i < width*height; i++ {
		fmt.Fscan(in, &value)
	}
	fmt.Fprintln(out, "go-bot")
	out.Flush()
	for {
		var turn int
		if _, err := fmt.Fscan(in, &turn); err != nil {
			return
		}
		for p := 0; p < players; p++ {
			var id, ships, dropoffs, halite int
			fmt.Fscan(in, &id, &ships, &dropoffs, &halite)
			for i := 0; i < ships*4+dropoffs*3; i++ {
				fmt.Fscan(in, &value)
			}
		}
		var cells int
		fmt.Fscan(in, &cells)
		for i := 0; i < cells*3; i++ {
			fmt.Fscan(in, &value)
		}
		if turn == 1 {
			fmt.Fprintln(out, "g")
		} else {
			fmt.Fprintln(out)
		}
		out.Flush()
	}
}
