// floor.c is the plainest C program that runs SQL statements on SQLite:
// the floor `sqlgym-bench verify` measures the verifier against. It is
// compiled at run time with the amalgamation sqlgym itself embeds
// (mattn/go-sqlite3's sqlite3-binding.c), so that a version difference
// cannot blur the comparison, with the options the sqlite3 shell is
// built with by default and -O2 (floor_c.go says which).
//
// Usage: floor URI < statements
//
// The statements arrive on stdin separated by NUL bytes. Each is prepared,
// stepped to its end and every cell of every row is read in its own
// storage class, as the verifier reads results; nothing is printed but
// one line at the end: statements run, those that failed (a batch's
// broken answers fail on purpose), rows read, and "done". No sandbox, no
// configuration: SQLite as the shell runs it, on one thread.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sqlite3-binding.h"

int main(int argc, char **argv) {
	if (argc != 2) {
		fprintf(stderr, "usage: %s URI < NUL-separated statements\n", argv[0]);
		return 2;
	}
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap + 1);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, stdin)) > 0) {
		len += n;
		if (len == cap) buf = realloc(buf, (cap *= 2) + 1);
	}
	if (!buf) {
		fprintf(stderr, "out of memory reading the statements\n");
		return 1;
	}
	buf[len] = 0;

	sqlite3 *db = 0;
	if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, 0) != SQLITE_OK) {
		fprintf(stderr, "open %s: %s\n", argv[1], db ? sqlite3_errmsg(db) : "out of memory");
		return 1;
	}
	long stmts = 0, failed = 0, rows = 0;
	volatile long long sink = 0;
	for (char *q = buf; q < buf + len; q += strlen(q) + 1) {
		if (!*q) continue;
		stmts++;
		sqlite3_stmt *st = 0;
		if (sqlite3_prepare_v2(db, q, -1, &st, 0) != SQLITE_OK || !st) {
			failed++;
			continue;
		}
		int ncol = sqlite3_column_count(st), rc;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			rows++;
			for (int i = 0; i < ncol; i++) {
				switch (sqlite3_column_type(st, i)) {
				case SQLITE_INTEGER: sink += sqlite3_column_int64(st, i); break;
				case SQLITE_FLOAT: sink += (long long)sqlite3_column_double(st, i); break;
				case SQLITE_TEXT: sink += (long long)(size_t)sqlite3_column_text(st, i) + sqlite3_column_bytes(st, i); break;
				case SQLITE_BLOB: sink += (long long)(size_t)sqlite3_column_blob(st, i) + sqlite3_column_bytes(st, i); break;
				}
			}
		}
		if (rc != SQLITE_DONE) failed++;
		sqlite3_finalize(st);
	}
	sqlite3_close_v2(db);
	printf("statements %ld failed %ld rows %ld done\n", stmts, failed, rows);
	return 0;
}
