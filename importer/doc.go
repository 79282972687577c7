// Package importer turns public text-to-SQL benchmarks into sqlgym task
// files, keeping their ids, difficulty, evidence, database ids and, where a
// benchmark has them, alternative golds and Spider 2.0's evaluation
// settings. Each layout has its own file: bird.go, spider.go, spider2.go,
// defog.go, and jsonl.go for the question files in ../shared/data.
package importer
