import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.StringTokenizer;

/**
 * Snakewar's test bot for the official Java kit's run_game.sh (not the kit's own bot).
 * It speaks the Halite III protocol: reads the init, answers its name, then reads each
 * turn's frame and answers one line: a spawn on turn 1, nothing after.
 */
public class MyBot {
    private static BufferedReader in;
    private static StringTokenizer words = new StringTokenizer("");

    private static long next() throws IOException {
        while (!words.hasMoreTokens()) {
            String line = in.readLine();
            if (line == null) {
                System.exit(0);
            }
            words = new StringTokenizer(line);
        }
        return Long.parseLong(words.nextToken());
    }

    public static void main(String[] args) throws IOException {
        in = new BufferedReader(new InputStreamReader(System.in));
        if (in.readLine() == null) { // the constants (JSON)
            return;
        }
        long players = next();
        next();
        for (long i = 0; i < players * 3; i++) next();
        long width = next();
        long height = next();
        for (long i = 0; i < width * height; i++) next();
        System.out.println("java-bot");
        System.out.flush();
        while (true) {
            long turn = next();
            for (long p = 0; p < players; p++) {
                next();
                long ships = next();
                long dropoffs = next();
                next();
                for (long i = 0; i < ships * 4 + dropoffs * 3; i++) next();
            }
            long cells = next();
            for (long i = 0; i < cells * 3; i++) next();
            System.out.println(turn == 1 ? "g" : "");
            System.out.flush();
        }
    }
}
