// Package benchdb owns sqlgym's benchmark at BIRD scale: a deterministic
// generator of a large SQLite database (a retail schema of six tables with
// foreign keys, about 10 MB by default and up to 1 GB) and a fixed set of
// BIRD-shaped tasks on it, each with the answers a policy really samples:
// the gold, equivalent rewrites, and wrong ones (a wrong join key, a
// missing filter, an off-by-one literal, a wrong aggregate, a NULL trap).
//
// The built-in shop database (shopdb) is small on purpose, so that every
// test runs in milliseconds; BIRD's databases are tens to hundreds of
// megabytes, and there the verifier's cost is dominated by executing
// queries. This package exists so that `sqlgym-bench verify` and the
// verify package's BenchmarkBird* can measure the verifier against the
// floor (running each distinct query once) at that scale, offline and
// reproducibly.
//
// Everything is a function of the seed: the same Config gives a
// byte-identical file (with the same SQLite build), and the same seed
// gives the same batch of answers. Rows come from a PCG generator, never
// from the clock or map order.
//
// # Tables
//
// customers, products, orders, order_items, payments, reviews; row counts
// scale linearly with Config.Size (one order, with its share of the other
// tables, per 243 bytes of file: 43,000 orders in 10 MB).
// What makes them realistic: skewed customers and products (a few buy and
// sell most), order volume growing over 2020-2024 with a Q4 peak, NULLs
// with meaning (customers.city and email, products.brand, orders.channel,
// order_items.discount, payments.paid_at for failed payments,
// reviews.review_text), namesakes (first and last names repeat; product
// names repeat across categories), mixed case (some e-mails and cities),
// timestamps stored as text, failed payments before completed ones.
package benchdb
