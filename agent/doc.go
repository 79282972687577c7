// Package agent runs text-to-SQL as a multi-turn episode: the model may
// list the tables, describe one, run queries and read their rows or their
// errors, then submit one final query, within a bound on turns and tokens.
//
// An Episode is a state machine fed one assistant message at a time (Step),
// so the same code serves `sqlgym eval --agent` (Play drives it with an
// Actor: a model server or the offline baseline) and the episode API of
// `sqlgym serve`, where a trainer supplies the messages. Two protocols:
// OpenAI tool calling ("tools") and, for models without a tool parser,
// tags in the text ("text": <sql>...</sql> runs, <solution>...</solution>
// submits).
//
// Every query runs through the task database's sqlgym.Engine with the
// verifier's limits, and the episode's outcome is the verify.Verifier's
// verdict on the submitted query: an agent is scored exactly as a
// single-turn answer is.
package agent
