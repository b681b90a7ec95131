mod hlt;

/// A small xorshift generator: the bot needs no crate (builds have no network).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn main() {
    let mut game = hlt::Game::new();
    let mut rng = Rng(game.my_id as u64 * 7919 + 17);
    game.ready("RustBot");
    let directions = ["n", "s", "e", "w"];
    loop {
        game.read_frame();
        let mut commands = Vec::new();
        let mut yard_taken = false;
        for ship in &game.ships {
            if ship.x == game.yard_x && ship.y == game.yard_y {
                yard_taken = true;
            }
            if game.cells[ship.y][ship.x] >= 50 && ship.halite < 800 {
                continue; // stay and mine
            }
            let d = directions[(rng.next() % 4) as usize];
            commands.push(format!("m {} {}", ship.id, d));
        }
        if game.turn <= 100 && game.halite >= 1000 && !yard_taken {
            commands.push("g".to_string());
        }
        hlt::Game::end_turn(&commands);
    }
}
