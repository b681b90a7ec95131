module snakewar.invalid/gosnake

go 1.19
