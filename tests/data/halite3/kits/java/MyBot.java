import hlt.Game;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

public class MyBot {
    public static void main(String[] args) throws IOException {
        Game game = new Game();
        game.readInit();
        Random rng = new Random(game.myId * 7919L + 17L);
        game.ready("JavaBot");
        char[] directions = {'n', 's', 'e', 'w'};
        for (;;) {
            game.readFrame();
            List<String> commands = new ArrayList<>();
            boolean yardTaken = false;
            for (Game.Ship ship : game.ships) {
                if (ship.x == game.yardX && ship.y == game.yardY) {
                    yardTaken = true;
                }
                if (game.cells[ship.y][ship.x] >= 50 && ship.halite < 800) {
                    continue; // stay and mine
                }
                commands.add("m " + ship.id + " " + directions[rng.nextInt(4)]);
            }
            if (game.turn <= 100 && game.halite >= 1000 && !yardTaken) {
                commands.add("g");
            }
            Game.endTurn(commands);
        }
    }
}
