// Package hlt speaks the Halite III protocol, as much of it as a simple bot needs.
package hlt

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Ship is one of the bot's own ships.
type Ship struct {
	ID, X, Y, Halite int
}

// Game is what the bot knows of the game.
type Game struct {
	in            *bufio.Reader
	Players, MyID int
	Width, Height int
	Turn, Halite  int
	YardX, YardY  int
	Cells         [][]int
	Ships         []Ship
}

// New reads the game's start from standard input.
func New() *Game {
	g := &Game{in: bufio.NewReaderSize(os.Stdin, 1<<16)}
	g.line() // the constants, as JSON: this bot needs none of them
	head := g.numbers()
	g.Players, g.MyID = head[0], head[1]
	for i := 0; i < g.Players; i++ {
		p := g.numbers()
		if p[0] == g.MyID {
			g.YardX, g.YardY = p[1], p[2]
		}
	}
	size := g.numbers()
	g.Width, g.Height = size[0], size[1]
	g.Cells = make([][]int, g.Height)
	for y := range g.Cells {
		g.Cells[y] = g.numbers()
	}
	return g
}

func (g *Game) line() string {
	text, err := g.in.ReadString('\n')
	if err != nil && text == "" {
		os.Exit(0) // the game is over: the engine closed our input
	}
	return text
}

func (g *Game) numbers() []int {
	words := strings.Fields(g.line())
	out := make([]int, len(words))
	for i, w := range words {
		out[i], _ = strconv.Atoi(w)
	}
	return out
}

// Ready sends the bot's name.
func (g *Game) Ready(name string) {
	fmt.Println(name)
}

// ReadFrame reads one turn's state.
func (g *Game) ReadFrame() {
	g.Turn = g.numbers()[0]
	g.Ships = g.Ships[:0]
	for p := 0; p < g.Players; p++ {
		player := g.numbers()
		for i := 0; i < player[1]; i++ {
			s := g.numbers()
			if player[0] == g.MyID {
				g.Ships = append(g.Ships, Ship{s[0], s[1], s[2], s[3]})
			}
		}
		for i := 0; i < player[2]; i++ {
			g.line()
		}
		if player[0] == g.MyID {
			g.Halite = player[3]
		}
	}
	changed := g.numbers()[0]
	for i := 0; i < changed; i++ {
		c := g.numbers()
		g.Cells[c[1]][c[0]] = c[2]
	}
}

// EndTurn sends the turn's commands, on one line.
func EndTurn(commands []string) {
	fmt.Println(strings.Join(commands, " "))
}
