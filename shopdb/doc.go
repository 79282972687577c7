// Package shopdb owns the built-in "shop" database: a small web shop whose
// schema and rows live in shop.sql, embedded in the binary and loaded
// unchanged into SQLite, DuckDB and PostgreSQL. Every demo, test and
// built-in task set runs on it. It also owns the engine-independent table
// checksums that prove two engines hold the same data.
//
// shop.sql is written by `go generate ./shopdb` from the deterministic
// generator in internal/gen (fixed PCG seed, no clock, no map order); a
// test fails when the committed file and the generator disagree. Digest
// names the version of the data.
//
// # Tables
//
// customers (120), categories (11, a two-level tree through parent_id),
// products (70), orders (exactly 300, placed 2023-01-01 to 2024-12-31),
// order_items (758), payments (314), shipments (268), reviews (192). Every
// table has an INTEGER primary key; ids grow with time. The data is a
// snapshot taken at 2025-01-01 00:00:00: nothing happens at or after it.
//
// # What is deliberately hard
//
// The data is plausible on purpose, and it is built to hold what makes
// comparing a model's result with a gold result difficult:
//
//   - NULLs with meaning: customers.city (a few customers gave none),
//     categories.parent_id (top level), shipments.delivered_at (parcels
//     still in transit, or lost), payments.refunded_at (all but refunded
//     payments), reviews.review_text (stars only). A few reviews have the
//     empty string instead, which is not NULL. COUNT(col) and COUNT(*)
//     differ, NOT IN against a list holding a NULL matches nothing, and
//     the engines sort NULLs differently by default (SQLite first,
//     PostgreSQL and DuckDB last in ascending order).
//   - Ties in sort keys: several products share a price (seven at 19.99,
//     eight at 29.99), many orders share a total_amount, and over fifty
//     order dates carry more than one order. ORDER BY on such a key with
//     LIMIT picks arbitrarily among the tied rows unless a second key
//     decides.
//   - Namesakes: two different customers are called Maria Garcia (Spain,
//     United States) and two James Smith (United States, United Kingdom);
//     grouping by name instead of customer_id merges them. "London" is a
//     city in both the United Kingdom and Canada, and some surnames recur
//     across countries.
//   - Case and spelling: a few e-mails have capitals, a few cities are all
//     lower or all upper case ('lille', 'MELBOURNE'), and some product
//     names start in lower case ('iPhone case', 'eReader', 'hand cream').
//     LIKE ignores ASCII case on SQLite but not on PostgreSQL or DuckDB.
//     Names carry non-ASCII letters (Müller, Lefèvre, São Paulo), which
//     SQLite's lower() and upper() leave alone and which sort differently
//     under different collations; apostrophes (O'Brien, Chef's Knife) test
//     quoting.
//   - Decimals: prices are DECIMAL(10,2) and discounts DECIMAL(4,2).
//     SQLite hands back 45.00 as the integer 45 and 12.50 as the float
//     12.5; PostgreSQL returns exact numerics, DuckDB its decimal type.
//     quantity * unit_price * (1 - discount) has up to four decimals, and
//     on some items it falls exactly on half a cent, where float rounding
//     (SQLite) and exact rounding (PostgreSQL, DuckDB) part: round(4.425,
//     2) is 4.42 on SQLite and 4.43 on the others. Dividing integers
//     truncates on SQLite and PostgreSQL (7 / 2 = 3) but not on DuckDB.
//   - Derived amounts that do not add up naively: orders.total_amount is
//     the exact item sum rounded once, half up, so summing per-item
//     rounded amounts is a cent off on some orders; order_items.unit_price
//     is the price when ordered and differs from products.price for items
//     bought before a dozen products changed price.
//   - Rows that multiply or vanish in joins: an order can have a failed
//     payment before its completed one (join payments and the order
//     counts twice); cancelled and pending orders have no completed
//     payment; about a quarter of the customers never ordered (LEFT JOIN).
//   - Dates and timestamps: order_date and signup_date are DATE, payment,
//     shipment and review times are TIMESTAMP. SQLite keeps both as text
//     and compares them as strings, so order_date = '2023-01-02 00:00:00'
//     finds the orders of that day on PostgreSQL and DuckDB and none on
//     SQLite; a timestamp BETWEEN '2024-01-01' AND '2024-01-31' misses most
//     of the 31st everywhere. Date functions differ per engine, and "the
//     last 30 days" must be counted from the snapshot, not from today.
//
// Statuses are consistent: delivered orders have one shipment with a
// delivered_at and one completed payment; shipped ones a shipment still in
// transit; paid ones a completed payment and no shipment; pending and
// cancelled ones no completed payment and no shipment; refunded ones a
// refunded payment and, when returned after delivery, a delivered
// shipment. Payments carry the order's total. Reviews come only from
// customers who received the product, after it arrived, at most one per
// customer and product.
package shopdb
