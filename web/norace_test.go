//go:build !race

package main

// raceDetector reports whether the tests run with -race, which multiplies
// what the tests' Go code costs in CPU several times over.
const raceDetector = false
