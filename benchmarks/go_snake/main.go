// Command gosnake is a minimal Battlesnake API v1 snake in Go, for measuring the
// referee's own cost per call: it decodes each request, picks the first move to a
// free neighbouring cell and answers at once (well under a millisecond).
//
//	go run . -port 8080
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net/http"
)

type point struct {
	X int `json:"x"`
	Y int `json:"y"`
}

type snake struct {
	ID   string  `json:"id"`
	Body []point `json:"body"`
	Head point   `json:"head"`
}

type request struct {
	Board struct {
		Width  int     `json:"width"`
		Height int     `json:"height"`
		Snakes []snake `json:"snakes"`
	} `json:"board"`
	You snake `json:"you"`
}

var moves = []struct {
	name   string
	dx, dy int
}{{"up", 0, 1}, {"right", 1, 0}, {"down", 0, -1}, {"left", -1, 0}}

func move(r request) string {
	taken := map[point]bool{}
	for _, s := range r.Board.Snakes {
		for i, p := range s.Body {
			if i < len(s.Body)-1 {
				taken[p] = true
			}
		}
	}
	for _, m := range moves {
		p := point{r.You.Head.X + m.dx, r.You.Head.Y + m.dy}
		if p.X >= 0 && p.Y >= 0 && p.X < r.Board.Width && p.Y < r.Board.Height && !taken[p] {
			return m.name
		}
	}
	return "up"
}

func main() {
	port := flag.Int("port", 8080, "port to listen on (127.0.0.1)")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"apiversion":"1","author":"snakewar","color":"#00add8","version":"go"}`)
	})
	http.HandleFunc("/start", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	http.HandleFunc("/end", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) })
	http.HandleFunc("/move", func(w http.ResponseWriter, r *http.Request) {
		var req request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"move":%q}`, move(req))
	})
	log.Fatal(http.ListenAndServe(fmt.Sprintf("127.0.0.1:%d", *port), nil))
}
