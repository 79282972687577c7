// Package dataset owns what goes from sqlgym to a trainer on disk: the
// difficulty band of a run (the tasks a model got right some of the time
// and not always, where a group of sampled answers carries signal) and the
// training exports, TRL's JSONL and verl's Parquet. Prompts are rendered by
// package prompt with the schema text of prompt.SchemaText, the same text
// evaluation shows, and held-out tasks are never exported unless asked.
package dataset
