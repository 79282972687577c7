package benchdb

// schema is the DDL, in the style of BIRD's databases: comments on the
// columns whose meaning is not obvious, foreign keys declared (SQLite does
// not enforce them unless asked), and indexes only on some join keys, as
// real databases have them.
var schema = []string{
	`CREATE TABLE customers (
  customer_id INTEGER PRIMARY KEY,
  first_name  TEXT NOT NULL,
  last_name   TEXT NOT NULL,
  email       TEXT,          -- NULL when not given; some have capitals
  city        TEXT,          -- NULL when not given; a few in lower or upper case
  country     TEXT NOT NULL,
  segment     TEXT NOT NULL, -- 'Consumer', 'Corporate' or 'Home Office'
  signup_date TEXT NOT NULL  -- YYYY-MM-DD
)`,
	`CREATE TABLE products (
  product_id  INTEGER PRIMARY KEY,
  name        TEXT NOT NULL, -- not unique: the same name recurs across categories
  category    TEXT NOT NULL,
  brand       TEXT,          -- NULL for unbranded goods
  price       REAL NOT NULL, -- current list price
  launched_on TEXT NOT NULL  -- YYYY-MM-DD
)`,
	`CREATE TABLE orders (
  order_id     INTEGER PRIMARY KEY,
  customer_id  INTEGER NOT NULL REFERENCES customers (customer_id),
  order_date   TEXT NOT NULL, -- YYYY-MM-DD HH:MM:SS
  status       TEXT NOT NULL, -- 'pending', 'shipped', 'delivered', 'cancelled', 'returned'
  channel      TEXT,          -- 'web', 'app', 'store'; NULL when unknown
  ship_country TEXT NOT NULL
)`,
	`CREATE TABLE order_items (
  item_id    INTEGER PRIMARY KEY,
  order_id   INTEGER NOT NULL REFERENCES orders (order_id),
  product_id INTEGER NOT NULL REFERENCES products (product_id),
  quantity   INTEGER NOT NULL,
  unit_price REAL NOT NULL, -- price when ordered, not products.price
  discount   REAL           -- fraction off, e.g. 0.15; NULL for none
)`,
	`CREATE TABLE payments (
  payment_id INTEGER PRIMARY KEY,
  order_id   INTEGER NOT NULL REFERENCES orders (order_id),
  method     TEXT NOT NULL, -- 'card', 'paypal', 'bank_transfer', 'gift_card', 'apple_pay'
  amount     REAL NOT NULL,
  status     TEXT NOT NULL, -- 'completed', 'failed', 'refunded'
  paid_at    TEXT           -- YYYY-MM-DD HH:MM:SS; NULL for failed payments
)`,
	`CREATE TABLE reviews (
  review_id   INTEGER PRIMARY KEY,
  product_id  INTEGER NOT NULL REFERENCES products (product_id),
  customer_id INTEGER NOT NULL REFERENCES customers (customer_id),
  rating      INTEGER NOT NULL, -- 1 to 5 stars
  review_text TEXT,             -- NULL for stars only
  created_at  TEXT NOT NULL     -- YYYY-MM-DD HH:MM:SS
)`,
}

// indexes are created after the rows, which is faster than keeping them
// up to date row by row.
var indexes = []string{
	`CREATE INDEX idx_orders_customer ON orders (customer_id)`,
	`CREATE INDEX idx_items_order ON order_items (order_id)`,
	`CREATE INDEX idx_items_product ON order_items (product_id)`,
	`CREATE INDEX idx_payments_order ON payments (order_id)`,
	`CREATE INDEX idx_reviews_product ON reviews (product_id)`,
}

// Tables lists the tables in creation order.
var Tables = []string{"customers", "products", "orders", "order_items", "payments", "reviews"}
