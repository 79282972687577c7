// Package serve holds the commands that judge answers: serve (the reward
// server) and verify (a predictions file). round starts the server through
// ServeCmd and RunServe.
package serve
