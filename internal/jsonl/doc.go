// Package jsonl owns sqlgym's append-only JSON Lines files (task files,
// predictions, a run's samples, the ledger, author's output): one scanner
// that numbers lines and applies an explicit policy to lines it cannot
// accept, one appender that repairs a tail torn by a crash before it
// writes, writes each record as one complete line in a single write, and
// holds an advisory lock so two processes never append to one file.
package jsonl
