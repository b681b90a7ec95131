// oracle: reads states specs (JSON lines, the states checker's "spec" form) on stdin and
// writes {"spec", "go"} records, as the official engine answers them.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"reflect"

	"github.com/BattlesnakeOfficial/rules"
	"github.com/BattlesnakeOfficial/rules/maps"
)

type jsnake struct {
	ID               string   `json:"id"`
	Body             [][2]int `json:"body"`
	Health           int      `json:"health"`
	EliminatedCause  string   `json:"eliminated_cause"`
	EliminatedBy     string   `json:"eliminated_by"`
	EliminatedOnTurn int      `json:"eliminated_on_turn"`
}

type jstate struct {
	Turn    int      `json:"turn"`
	Width   int      `json:"width"`
	Height  int      `json:"height"`
	Food    [][2]int `json:"food"`
	Hazards [][2]int `json:"hazards"`
	Snakes  []jsnake `json:"snakes"`
}

type jmove struct {
	ID   string `json:"id"`
	Move string `json:"move"`
}

type spec struct {
	ID       string            `json:"id"`
	Ruleset  string            `json:"ruleset"`
	Solo     bool              `json:"solo"`
	Settings map[string]string `json:"settings"`
	Seed     int64             `json:"seed"`
	State    jstate            `json:"state"`
	Moves    []jmove           `json:"moves"`
	Map      string            `json:"map,omitempty"`
}

func pts(in [][2]int) []rules.Point {
	out := []rules.Point{}
	for _, p := range in {
		out = append(out, rules.Point{X: p[0], Y: p[1]})
	}
	return out
}

func unpts(in []rules.Point) [][2]int {
	out := [][2]int{}
	for _, p := range in {
		out = append(out, [2]int{p.X, p.Y})
	}
	return out
}

func toGo(s jstate) *rules.BoardState {
	b := rules.NewBoardState(s.Width, s.Height)
	b.Turn = s.Turn
	b.Food = pts(s.Food)
	b.Hazards = pts(s.Hazards)
	for _, sn := range s.Snakes {
		b.Snakes = append(b.Snakes, rules.Snake{ID: sn.ID, Body: pts(sn.Body), Health: sn.Health,
			EliminatedCause: sn.EliminatedCause, EliminatedBy: sn.EliminatedBy, EliminatedOnTurn: sn.EliminatedOnTurn})
	}
	return b
}

func fromGo(b *rules.BoardState) *jstate {
	if b == nil {
		return nil
	}
	s := &jstate{Turn: b.Turn, Width: b.Width, Height: b.Height, Food: unpts(b.Food), Hazards: unpts(b.Hazards), Snakes: []jsnake{}}
	for _, sn := range b.Snakes {
		s.Snakes = append(s.Snakes, jsnake{sn.ID, unpts(sn.Body), sn.Health, sn.EliminatedCause, sn.EliminatedBy, sn.EliminatedOnTurn})
	}
	return s
}

func run(sp spec) (out map[string]any) {
	out = map[string]any{"id": sp.ID, "game_over": false, "error": nil, "after_rules": nil, "after": nil, "panicked": false}
	defer func() {
		if r := recover(); r != nil {
			out["panicked"] = true
			out["error"] = fmt.Sprint("Execute panicked: ", r)
		}
	}()
	ruleset := rules.NewRulesetBuilder().WithSeed(sp.Seed).WithParams(sp.Settings).WithSolo(sp.Solo).NamedRuleset(sp.Ruleset)
	out["ruleset_name"] = ruleset.Name()
	out["stages"] = stageNames(ruleset)
	var moves []rules.SnakeMove
	if sp.Moves != nil {
		moves = []rules.SnakeMove{}
		for _, m := range sp.Moves {
			moves = append(moves, rules.SnakeMove{ID: m.ID, Move: m.Move})
		}
	}
	over, next, err := ruleset.Execute(toGo(sp.State), moves)
	out["game_over"] = over
	if err != nil {
		out["error"] = err.Error()
		return out
	}
	out["after_rules"] = fromGo(next)
	if sp.Map != "" {
		gm, err := maps.GetMap(sp.Map)
		if err != nil {
			out["map_error"] = err.Error()
			return out
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					out["map_error"] = fmt.Sprint("panicked: ", r)
				}
			}()
			post, err := maps.PostUpdateBoard(gm, next, ruleset.Settings())
			if err != nil {
				out["map_error"] = err.Error()
				return
			}
			post.Turn += 1
			out["after"] = fromGo(post)
		}()
	}
	return out
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<20), 64<<20)
	enc := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var raw json.RawMessage = append([]byte(nil), in.Bytes()...)
		var sp spec
		if err := json.Unmarshal(raw, &sp); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if err := enc.Encode(map[string]any{"spec": raw, "go": run(sp)}); err != nil {
			os.Exit(2)
		}
	}
}

var stageByFunc = map[uintptr]string{}

func init() {
	for name, fn := range map[string]rules.StageFunc{
		rules.StageSpawnFoodNoFood: rules.RemoveFoodConstrictor, rules.StageSpawnFoodStandard: rules.SpawnFoodStandard,
		rules.StageGameOverSoloSnake: rules.GameOverSolo, rules.StageGameOverStandard: rules.GameOverStandard,
		rules.StageHazardDamageStandard: rules.DamageHazardsStandard, rules.StageSpawnHazardsShrinkMap: rules.PopulateHazardsRoyale,
		rules.StageStarvationStandard: rules.ReduceSnakeHealthStandard, rules.StageFeedSnakesStandard: rules.FeedSnakesStandard,
		rules.StageEliminationStandard: rules.EliminateSnakesStandard, rules.StageModifySnakesAlwaysGrow: rules.GrowSnakesConstrictor,
		rules.StageMovementStandard: rules.MoveSnakesStandard, rules.StageMovementWrapBoundaries: rules.MoveSnakesWrapped,
	} {
		stageByFunc[reflect.ValueOf(fn).Pointer()] = name
	}
}

// stageNames reads the pipeline's stage functions (unexported fields, read only).
func stageNames(r rules.Ruleset) []string {
	v := reflect.ValueOf(r).Elem().FieldByName("pipeline").Elem().Elem().FieldByName("stages")
	out := []string{}
	for i := 0; i < v.Len(); i++ {
		out = append(out, stageByFunc[v.Index(i).Pointer()])
	}
	return out
}
