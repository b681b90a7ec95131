// Snakewar's test bot for the official Rust kit's run_game.sh (not the kit's own bot).
// It speaks the Halite III protocol: reads the init, answers its name, then reads each
// turn's frame and answers one line: a spawn on turn 1, nothing after.
use std::io::{self, BufRead, Write};

struct Words<R: BufRead> {
    input: R,
    pending: Vec<i64>,
}

impl<R: BufRead> Words<R> {
    fn line(&mut self) -> Option<String> {
        let mut text = String::new();
        match self.input.read_line(&mut text) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(text),
        }
    }

    fn next(&mut self) -> i64 {
        while self.pending.is_empty() {
            let text = match self.line() {
                Some(text) => text,
                None => std::process::exit(0),
            };
            self.pending = text.split_whitespace().rev().map(|w| w.parse().unwrap()).collect();
        }
        self.pending.pop().unwrap()
    }
}

fn main() {
    let stdin = io::stdin();
    let mut words = Words { input: stdin.lock(), pending: Vec::new() };
    let mut out = io::stdout();
    if words.line().is_none() {
        return; // no constants (JSON): no game
    }
    let players = words.next();
    words.next();
    for _ in 0..players * 3 {
        words.next();
    }
    let width = words.next();
    let height = words.next();
    for _ in 0..width * height {
        words.next();
    }
    writeln!(out, "rust-bot").unwrap();
    out.flush().unwrap();
    loop {
        let turn = words.next();
        for _ in 0..players {
            words.next();
            let ships = words.next();
            let dropoffs = words.next();
            words.next();
            for _ in 0..ships * 4 + dropoffs * 3 {
                words.next();
            }
        }
        let cells = words.next();
        for _ in 0..cells * 3 {
            words.next();
        }
        writeln!(out, "{}", if turn == 1 { "g" } else { "" }).unwrap();
        out.flush().unwrap();
    }
}
