//! The Halite III protocol, as much of it as a simple bot needs.

use std::io::{self, BufRead, Write};

pub struct Ship {
    pub id: i64,
    pub x: usize,
    pub y: usize,
    pub halite: i64,
}

pub struct Game {
    pub players: usize,
    pub my_id: i64,
    pub width: usize,
    pub height: usize,
    pub turn: i64,
    pub halite: i64,
    pub yard_x: usize,
    pub yard_y: usize,
    pub cells: Vec<Vec<i64>>,
    pub ships: Vec<Ship>,
}

fn line() -> String {
    let mut text = String::new();
    match io::stdin().lock().read_line(&mut text) {
        Ok(0) | Err(_) => std::process::exit(0), // the game is over: input closed
        Ok(_) => text,
    }
}

fn numbers() -> Vec<i64> {
    line().split_whitespace().map(|w| w.parse().unwrap_or(0)).collect()
}

impl Game {
    pub fn new() -> Game {
        line(); // the constants, as JSON: this bot needs none of them
        let head = numbers();
        let (players, my_id) = (head[0] as usize, head[1]);
        let (mut yard_x, mut yard_y) = (0, 0);
        for _ in 0..players {
            let p = numbers();
            if p[0] == my_id {
                yard_x = p[1] as usize;
                yard_y = p[2] as usize;
            }
        }
        let size = numbers();
        let (width, height) = (size[0] as usize, size[1] as usize);
        let cells = (0..height).map(|_| numbers()).collect();
        Game {
            players,
            my_id,
            width,
            height,
            turn: 0,
            halite: 0,
            yard_x,
            yard_y,
            cells,
            ships: Vec::new(),
        }
    }

    pub fn ready(&self, name: &str) {
        println!("{}", name);
        io::stdout().flush().unwrap();
    }

    pub fn read_frame(&mut self) {
        self.turn = numbers()[0];
        self.ships.clear();
        for _ in 0..self.players {
            let p = numbers();
            for _ in 0..p[1] {
                let s = numbers();
                if p[0] == self.my_id {
                    self.ships.push(Ship {
                        id: s[0],
                        x: s[1] as usize,
                        y: s[2] as usize,
                        halite: s[3],
                    });
                }
            }
            for _ in 0..p[2] {
                line();
            }
            if p[0] == self.my_id {
                self.halite = p[3];
            }
        }
        let changed = numbers()[0];
        for _ in 0..changed {
            let c = numbers();
            self.cells[c[1] as usize][c[0] as usize] = c[2];
        }
    }

    pub fn end_turn(commands: &[String]) {
        println!("{}", commands.join(" "));
        io::stdout().flush().unwrap();
    }
}
