// Package ledger owns runs/ledger.jsonl, the append-only record of every
// evaluation and comparison: when it ran, the command line, the commit of
// the binary, the config and tasks hashes, the split, the decoding, where
// the output went and the headline numbers. Each number a report quotes can
// be traced back through it to the run that produced it.
//
// The ledger is only ever appended to (one write of one line per entry,
// under a lock writers wait for, after cutting a line a killed writer tore;
// see internal/jsonl), never rewritten, and holds no secret: command lines
// go through internal/redact. It lives in the parent folder of the run
// folders: a run written to runs/NAME is recorded in runs/ledger.jsonl
// (PathFor).
package ledger
