// Command rulesbench times the official Battlesnake rules engine on the benchmark
// that `snakewar bench rules` plays, and prints one JSON object.
//
// Standard ruleset, standard map, 11x11, 4 snakes, the CLI's default settings, each
// snake playing a uniformly random safe move (on the board, not into a body segment
// other than a tail that moves away).  Only the engine is timed: maps.PreUpdateBoard,
// ruleset.Execute, maps.PostUpdateBoard and the turn increment, as snakewar's
// measure_rules times Game.step.  The final Execute call, which only reports that
// the game is over, is not a turn and is not timed: snakewar makes that check
// outside its timed part.
//
// With -workers N, N goroutines (GOMAXPROCS=N) each play -games games and their
// rates are added, the figure of a machine with N cores busy.
//
// Build with benchmarks/build_go_harness.sh; see that script for the module setup.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/BattlesnakeOfficial/rules"
	"github.com/BattlesnakeOfficial/rules/maps"
)

type direction struct {
	name   string
	dx, dy int
}

var directions = [4]direction{
	{rules.MoveUp, 0, 1},
	{rules.MoveDown, 0, -1},
	{rules.MoveLeft, -1, 0},
	{rules.MoveRight, 1, 0},
}

// safeMoves appends to out the moves that do not obviously lose this turn.
func safeMoves(state *rules.BoardState, snake *rules.Snake, blocked map[rules.Point]bool, out []string) []string {
	head := snake.Body[0]
	for _, d := range directions {
		p := rules.Point{X: head.X + d.dx, Y: head.Y + d.dy}
		if p.X < 0 || p.Y < 0 || p.X >= state.Width || p.Y >= state.Height {
			continue
		}
		if !blocked[p] {
			out = append(out, d.name)
		}
	}
	return out
}

// randomSafeMoves picks a random safe move for every alive snake ("up" when none is safe).
func randomSafeMoves(state *rules.BoardState, rng *rand.Rand) []rules.SnakeMove {
	blocked := make(map[rules.Point]bool, 64)
	for i := range state.Snakes {
		s := &state.Snakes[i]
		if s.EliminatedCause != rules.NotEliminated || len(s.Body) == 0 {
			continue
		}
		keep := len(s.Body) - 1
		// A stacked tail (the snake just ate) stays where it is next turn.
		if len(s.Body) >= 2 && s.Body[len(s.Body)-1] == s.Body[len(s.Body)-2] {
			keep = len(s.Body)
		}
		for _, p := range s.Body[:keep] {
			blocked[rules.Point{X: p.X, Y: p.Y}] = true
		}
	}
	moves := make([]rules.SnakeMove, 0, len(state.Snakes))
	options := make([]string, 0, 4)
	for i := range state.Snakes {
		s := &state.Snakes[i]
		if s.EliminatedCause != rules.NotEliminated {
			continue
		}
		options = safeMoves(state, s, blocked, options[:0])
		move := rules.MoveUp
		if len(options) > 0 {
			move = options[rng.Intn(len(options))]
		}
		moves = append(moves, rules.SnakeMove{ID: s.ID, Move: move})
	}
	return moves
}

type config struct {
	games, width, height, snakes int
	seed                         int64
	ruleset, mapID               string
}

type tally struct {
	games, turns   int
	engine, moving time.Duration
	err            error
}

// play runs cfg.games games with seeds derived from worker and returns the timings.
func play(cfg config, worker int) tally {
	var t tally
	gameMap, err := maps.GetMap(cfg.mapID)
	if err != nil {
		t.err = err
		return t
	}
	ids := make([]string, cfg.snakes)
	for i := range ids {
		ids[i] = fmt.Sprintf("snake-%d", i+1)
	}
	params := map[string]string{
		rules.ParamFoodSpawnChance:     "15",
		rules.ParamMinimumFood:         "1",
		rules.ParamHazardDamagePerTurn: "14",
		rules.ParamShrinkEveryNTurns:   "25",
	}
	rng := rand.New(rand.NewSource(cfg.seed*1_000_003 + int64(worker)))
	for g := 0; g < cfg.games; g++ {
		// The same game seeds as snakewar's measure_rules (worker 0).
		gameSeed := (cfg.seed+int64(worker)*7_919)*100_003 + int64(g) + 1
		ruleset := rules.NewRulesetBuilder().WithSeed(gameSeed).WithParams(params).
			WithSolo(cfg.snakes < 2).NamedRuleset(cfg.ruleset)
		settings := ruleset.Settings()
		state, err := maps.SetupBoard(cfg.mapID, settings, cfg.width, cfg.height, ids)
		if err != nil {
			t.err = err
			return t
		}
		over, state, err := ruleset.Execute(state, nil)
		if err != nil {
			t.err = err
			return t
		}
		for !over {
			t0 := time.Now()
			pre, err := maps.PreUpdateBoard(gameMap, state, settings)
			if err != nil {
				t.err = err
				return t
			}
			t1 := time.Now()
			moves := randomSafeMoves(pre, rng)
			t2 := time.Now()
			var next *rules.BoardState
			over, next, err = ruleset.Execute(pre, moves)
			if err != nil {
				t.err = err
				return t
			}
			if over {
				break
			}
			post, err := maps.PostUpdateBoard(gameMap, next, settings)
			if err != nil {
				t.err = err
				return t
			}
			post.Turn++
			state = post
			t3 := time.Now()
			t.engine += t1.Sub(t0) + t3.Sub(t2)
			t.moving += t2.Sub(t1)
			t.turns++
		}
		t.games++
	}
	return t
}

type workerResult struct {
	Turns          int     `json:"turns"`
	EngineSeconds  float64 `json:"engine_seconds"`
	MoveSeconds    float64 `json:"move_seconds"`
	TurnsPerSecond float64 `json:"turns_per_second"`
}

type result struct {
	Engine         string         `json:"engine"`
	GoVersion      string         `json:"go_version"`
	Ruleset        string         `json:"ruleset"`
	Map            string         `json:"map"`
	Width          int            `json:"width"`
	Height         int            `json:"height"`
	Snakes         int            `json:"snakes"`
	Games          int            `json:"games"`
	Workers        int            `json:"workers"`
	Turns          int            `json:"turns"`
	TurnsPerSecond float64        `json:"turns_per_second"`
	PerWorker      []workerResult `json:"per_worker"`
}

func main() {
	var cfg config
	var workers int
	flag.IntVar(&cfg.games, "games", 300, "games per worker")
	flag.Int64Var(&cfg.seed, "seed", 1, "seed of the first game")
	flag.IntVar(&cfg.width, "width", 11, "board width")
	flag.IntVar(&cfg.height, "height", 11, "board height")
	flag.IntVar(&cfg.snakes, "snakes", 4, "snakes per game")
	flag.StringVar(&cfg.ruleset, "ruleset", rules.GameTypeStandard, "ruleset name")
	flag.StringVar(&cfg.mapID, "map", "standard", "map id")
	flag.IntVar(&workers, "workers", 1, "goroutines, each playing -games games (sets GOMAXPROCS)")
	flag.Parse()
	if workers < 1 || cfg.games < 1 {
		fmt.Fprintln(os.Stderr, "error: -workers and -games must be at least 1")
		os.Exit(2)
	}
	runtime.GOMAXPROCS(workers)

	tallies := make([]tally, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			// Locked so that each worker keeps one OS thread, as a process would.
			runtime.LockOSThread()
			tallies[w] = play(cfg, w)
		}(w)
	}
	wg.Wait()

	out := result{
		Engine: "github.com/BattlesnakeOfficial/rules", GoVersion: runtime.Version(),
		Ruleset: cfg.ruleset, Map: cfg.mapID, Width: cfg.width, Height: cfg.height,
		Snakes: cfg.snakes, Games: cfg.games * workers, Workers: workers,
	}
	for _, t := range tallies {
		if t.err != nil {
			fmt.Fprintf(os.Stderr, "error: %v\n", t.err)
			os.Exit(1)
		}
		w := workerResult{Turns: t.turns, EngineSeconds: t.engine.Seconds(), MoveSeconds: t.moving.Seconds()}
		if w.EngineSeconds > 0 {
			w.TurnsPerSecond = float64(t.turns) / w.EngineSeconds
		}
		out.Turns += t.turns
		out.TurnsPerSecond += w.TurnsPerSecond
		out.PerWorker = append(out.PerWorker, w)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "error: %v\n", err)
		os.Exit(1)
	}
}
