# Snakewar's test bot for the official Ruby kit's run_game.sh (not the kit's own bot).
# It speaks the Halite III protocol: reads the init, answers its name, then reads each
# turn's frame and answers one line: a spawn on turn 1, nothing after.
$stdout.sync = true
$pending = []

def next_value
  while $pending.empty?
    line = $stdin.gets
    exit 0 if line.nil?
    $pending = line.split
  end
  $pending.shift.to_i
end

exit 0 if $stdin.gets.nil? # the constants (JSON)
players = next_value
next_value
(players * 3).times { next_value }
width = next_value
height = next_value
(width * height).times { next_value }
puts "ruby-bot"
loop do
  turn = next_value
  players.times do
    next_value
    ships = next_value
    dropoffs = next_value
    next_value
    (ships * 4 + dropoffs * 3).times { next_value }
  end
  (next_value * 3).times { next_value }
  puts(turn == 1 ? "g" : "")
end
