// Package goldfilter decides whether a gold query can stand as a task's
// answer: it runs on two separately opened engines, returns a bounded
// number of rows, the same rows both times, and does not cut through tied
// sort keys with its LIMIT. Task authoring (author) and variant generation
// (variants) both use it; it sits below both so neither imports the other.
package goldfilter
