// Package gen builds the shop database's SQL text: the schema and every row,
// from a fixed seed, byte for byte the same on every run and platform. It
// owns the name pools, the product catalogue and the rules that keep orders,
// payments, shipments and reviews consistent with one another. The shopdb
// package embeds its output (shop.sql), written by `go generate ./shopdb`.
package gen
