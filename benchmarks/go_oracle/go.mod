module snakewar.invalid/oracle

go 1.19

// The version is a placeholder: build_go_harness.sh adds a replace directive that
// points at a local checkout of the official engine, so nothing is downloaded.
require github.com/BattlesnakeOfficial/rules v0.0.0-00010101000000-000000000000
