// Package redteam loads the red team's reproductions of issue 25
// (../shared/redteam: statements and replies that cost sqlgym far more
// than its bounds, with a README): the answers of each file, the engine
// each was written for and the outcome the README expects there. The
// replay tests and `sqlgym-bench bounds` read the corpus through it.
package redteam
