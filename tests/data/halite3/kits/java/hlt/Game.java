package hlt;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;

/** The Halite III protocol, as much of it as a simple bot needs. */
public final class Game {
    public static final class Ship {
        public int id;
        public int x;
        public int y;
        public int halite;
    }

    private final BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    public int players;
    public int myId;
    public int width;
    public int height;
    public int turn;
    public int halite;
    public int yardX;
    public int yardY;
    public int[][] cells;
    public final List<Ship> ships = new ArrayList<>();

    private int[] numbers() {
        String line;
        try {
            line = in.readLine();
        } catch (IOException e) {
            line = null;
        }
        if (line == null) {
            System.exit(0); // the game is over: the engine closed our input
        }
        String[] words = line.trim().split("\\s+");
        int[] out = new int[words.length];
        for (int i = 0; i < words.length; i++) {
            out[i] = words[i].isEmpty() ? 0 : Integer.parseInt(words[i]);
        }
        return out;
    }

    public void readInit() throws IOException {
        in.readLine(); // the constants, as JSON: this bot needs none of them
        int[] head = numbers();
        players = head[0];
        myId = head[1];
        for (int i = 0; i < players; i++) {
            int[] player = numbers();
            if (player[0] == myId) {
                yardX = player[1];
                yardY = player[2];
            }
        }
        int[] size = numbers();
        width = size[0];
        height = size[1];
        cells = new int[height][];
        for (int y = 0; y < height; y++) {
            cells[y] = numbers();
        }
    }

    public void ready(String name) {
        System.out.println(name);
        System.out.flush();
    }

    public void readFrame() {
        turn = numbers()[0];
        ships.clear();
        for (int p = 0; p < players; p++) {
            int[] player = numbers();
            for (int i = 0; i < player[1]; i++) {
                int[] line = numbers();
                if (player[0] == myId) {
                    Ship ship = new Ship();
                    ship.id = line[0];
                    ship.x = line[1];
                    ship.y = line[2];
                    ship.halite = line[3];
                    ships.add(ship);
                }
            }
            for (int i = 0; i < player[2]; i++) {
                numbers();
            }
            if (player[0] == myId) {
                halite = player[3];
            }
        }
        int changed = numbers()[0];
        for (int i = 0; i < changed; i++) {
            int[] cell = numbers();
            cells[cell[1]][cell[0]] = cell[2];
        }
    }

    public static void endTurn(List<String> commands) {
        System.out.println(String.join(" ", commands));
        System.out.flush();
    }
}
