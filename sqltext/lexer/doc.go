// Package lexer holds the byte-level rules of SQL lexing that sqltext's
// tokenizer and result-cache key share with engine/mysql's screen: where a
// quoted literal or name ends, white space and identifier bytes, and how
// MySQL and MariaDB read comments (# and "-- " lines, executable comments
// /*! ... */, optimizer hints). One copy of each rule keeps the cache key
// and the screen reading a statement as the server does, alike. It
// imports nothing of sqlgym, so that both sqltext (whose tests run every
// engine) and the engines can import it.
package lexer
