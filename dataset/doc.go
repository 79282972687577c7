// Package dataset owns what goes from sqlgym to a trainer on disk: the
// difficulty band of a run (the tasks a model got right some of the time
// and not always, where a group of sampled answers carries signal) and the
// training exports, TRL's JSONL and verl's Parquet. Prompts are rendered by
// package prompt's Renderer, the one evaluation renders with, and held-out
// tasks are never exported unless asked.
package dataset
