// bounded.c overrides, on sandboxed connections, the built-in functions
// whose one call can cost the product of its arguments' sizes: LIKE,
// GLOB, instr, replace and the two-argument trims. SQLite checks its
// progress handler only between VM steps and one function call is one
// step, so such a call could run for minutes past any budget (a 20,000-byte
// LIKE pattern against a 1 MB subject takes ~25 s). Each override refuses
// a call whose cost bound exceeds SG_*_MAX_COST with an error (a
// deterministic function of the SQL and the data) and charges the
// statement's step budget for the work it does inside its one step. The
// matching itself is SQLite's own (sqlite3_strlike / sqlite3_strglob);
// instr, replace and trim are re-implemented with SQLite's documented
// semantics, which the tests compare with the built-ins on random inputs.
#include <string.h>
#include "capi.h"

// utf8_count counts characters the way SQLite does: a lead byte >= 0xc0
// takes the continuation bytes (10xxxxxx) that follow it.
static int utf8_count(const unsigned char *z, int n) {
	int count = 0;
	const unsigned char *end = z + n;
	while (z < end) {
		if (*z++ >= 0xc0) {
			while (z < end && (*z & 0xc0) == 0x80) z++;
		}
		count++;
	}
	return count;
}

// utf8_first decodes the first character as SQLite's reader does:
// malformed sequences, surrogates and U+FFFE/U+FFFF read as U+FFFD.
static unsigned utf8_first(const unsigned char *z) {
	unsigned c = *z++;
	if (c < 0xc0) return c;
	if (c < 0xe0) c &= 0x1f;
	else if (c < 0xf0) c &= 0x0f;
	else if (c < 0xf8) c &= 0x07;
	else if (c < 0xfc) c &= 0x03;
	else c &= 0x01;
	while ((*z & 0xc0) == 0x80) c = (c << 6) + (0x3f & *z++);
	if (c < 0x80 || (c & 0xFFFFF800) == 0xD800 || (c & 0xFFFFFFFE) == 0xFFFE) c = 0xFFFD;
	return c;
}

static void too_costly(sqlite3_context *ctx, const char *fn, int64_t a, int64_t b, int64_t bound) {
	char *msg = sqlite3_mprintf("%s too costly: arguments of %lld and %lld bytes exceed sqlgym's bound of %lld on their product",
	                            fn, (long long)a, (long long)b, (long long)bound);
	if (!msg) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_result_error(ctx, msg, -1);
	sqlite3_free(msg);
}

// free_private_char returns a private-use character (U+E000..U+F8FF)
// that does not occur in pat: a pattern of at most
// SQLITE_LIMIT_LIKE_PATTERN_LENGTH bytes holds at most a third as many
// 3-byte characters, fewer than the 6,400 candidates.
static unsigned free_private_char(const unsigned char *pat, int n) {
	static const unsigned first = 0xE000, count = 0xF900 - 0xE000;
	unsigned char seen[(0xF900 - 0xE000) / 8] = {0};
	for (int i = 0; i + 2 < n; i++) {
		if ((pat[i] == 0xEE || pat[i] == 0xEF) && (pat[i + 1] & 0xc0) == 0x80 && (pat[i + 2] & 0xc0) == 0x80) {
			unsigned c = ((pat[i] & 0x0f) << 12) | ((pat[i + 1] & 0x3f) << 6) | (pat[i + 2] & 0x3f);
			if (c >= first && c - first < count) seen[(c - first) / 8] |= 1 << ((c - first) % 8);
		}
	}
	for (unsigned k = 0; k < count; k++) {
		if (!(seen[k / 8] & (1 << (k % 8)))) return first + k;
	}
	return 0;
}

// escape_as_literal rewrites a LIKE pattern whose ESCAPE character is one
// of the wildcards. SQLite's like() then stops treating that character as
// a wildcard, while sqlite3_strlike checks wildcards first; the rewrite
// uses `sub`, a private-use character absent from the pattern, as the
// escape instead, which gives sqlite3_strlike the same meaning.
static unsigned char *escape_as_literal(const unsigned char *pat, int n, unsigned char esc, unsigned sub) {
	unsigned char *out = sqlite3_malloc64((uint64_t)n * 3 + 1);
	if (!out) return 0;
	int j = 0;
	for (int i = 0; i < n; i++) {
		if (pat[i] == esc) {
			out[j++] = (unsigned char)(0xE0 | (sub >> 12));
			out[j++] = (unsigned char)(0x80 | ((sub >> 6) & 0x3f));
			out[j++] = (unsigned char)(0x80 | (sub & 0x3f));
			if (i + 1 < n) out[j++] = pat[++i];
		} else {
			out[j++] = pat[i];
		}
	}
	out[j] = 0;
	return out;
}

// pattern implements like(P, S), like(P, S, E) and glob(P, S), in the
// argument order of SQLite's functions (pattern first), with SQLite's
// checks in SQLite's order.
static void pattern(sqlite3_context *ctx, int argc, sqlite3_value **argv, int glob) {
	sqlite3 *db = sqlite3_context_db_handle(ctx);
	int npat = sqlite3_value_bytes(argv[0]);
	if (npat > sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, -1)) {
		sqlite3_result_error(ctx, "LIKE or GLOB pattern too complex", -1);
		return;
	}
	unsigned esc = 0;
	if (argc == 3) {
		const unsigned char *e = sqlite3_value_text(argv[2]);
		if (!e) return;
		if (utf8_count(e, (int)strlen((const char *)e)) != 1) {
			sqlite3_result_error(ctx, "ESCAPE expression must be a single character", -1);
			return;
		}
		esc = utf8_first(e);
	}
	const unsigned char *pat = sqlite3_value_text(argv[0]);
	const unsigned char *str = sqlite3_value_text(argv[1]);
	if (!pat || !str) return;
	npat = sqlite3_value_bytes(argv[0]);
	int64_t nstr = sqlite3_value_bytes(argv[1]);
	int64_t cost = (int64_t)npat * nstr;
	if (cost > SG_PATTERN_MAX_COST) {
		too_costly(ctx, glob ? "GLOB" : "LIKE", npat, nstr, SG_PATTERN_MAX_COST);
		return;
	}
	if (sg_charge(ctx, cost / SG_PATTERN_COST_PER_STEP)) return;
	int miss;
	if (glob) {
		miss = sqlite3_strglob((const char *)pat, (const char *)str);
	} else if (argc == 3 && (esc == '%' || esc == '_')) {
		unsigned sub = free_private_char(pat, npat);
		unsigned char *p = escape_as_literal(pat, npat, (unsigned char)esc, sub);
		if (!p) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		miss = sqlite3_strlike((const char *)p, (const char *)str, sub);
		sqlite3_free(p);
	} else {
		miss = sqlite3_strlike((const char *)pat, (const char *)str, esc);
	}
	sqlite3_result_int(ctx, miss == 0);
}

static void like_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) { pattern(ctx, argc, argv, 0); }
static void glob_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) { pattern(ctx, argc, argv, 1); }

// instr_fn is instr(X, Y): the 1-based position of the first Y in X, in
// characters for text and bytes for two blobs; 0 when absent; NULL when
// either is NULL. A blob and a non-blob compare as text.
static void instr_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	(void)argc;
	int th = sqlite3_value_type(argv[0]), tn = sqlite3_value_type(argv[1]);
	if (th == SQLITE_NULL || tn == SQLITE_NULL) return;
	sqlite3_value *h = argv[0], *n = argv[1], *hd = 0, *nd = 0;
	int text = !(th == SQLITE_BLOB && tn == SQLITE_BLOB);
	if (text && (th == SQLITE_BLOB || tn == SQLITE_BLOB)) {
		// Converting a blob argument to text in place would change the
		// caller's value; SQLite converts copies too.
		h = hd = sqlite3_value_dup(argv[0]);
		n = nd = sqlite3_value_dup(argv[1]);
		if (!hd || !nd) goto nomem;
	}
	const unsigned char *zh = text ? sqlite3_value_text(h) : sqlite3_value_blob(h);
	int nh = sqlite3_value_bytes(h);
	const unsigned char *zn = text ? sqlite3_value_text(n) : sqlite3_value_blob(n);
	int nn = sqlite3_value_bytes(n);
	int pos = 1;
	if (nn > 0) {
		if (!zn || (nh && !zh)) goto nomem;
		int64_t cost = nn <= nh ? (int64_t)nn * (nh - nn + 1) : 0;
		if (cost > SG_SEARCH_MAX_COST) {
			too_costly(ctx, "instr", nh, nn, SG_SEARCH_MAX_COST);
			goto done;
		}
		if (sg_charge(ctx, cost / SG_SEARCH_COST_PER_STEP)) goto done;
		while (nn <= nh && (zh[0] != zn[0] || memcmp(zh, zn, nn) != 0)) {
			pos++;
			do {
				nh--;
				zh++;
			} while (text && nh > 0 && (zh[0] & 0xc0) == 0x80);
		}
		if (nn > nh) pos = 0;
	}
	sqlite3_result_int(ctx, pos);
	goto done;
nomem:
	sqlite3_result_error_nomem(ctx);
done:
	sqlite3_value_free(hd);
	sqlite3_value_free(nd);
}

// replace_fn is replace(X, Y, Z): X with every non-overlapping Y, left to
// right, replaced by Z; X itself when Y is empty; NULL when any is NULL.
static void replace_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	(void)argc;
	const unsigned char *s = sqlite3_value_text(argv[0]);
	if (!s) return;
	int64_t ns = sqlite3_value_bytes(argv[0]);
	const unsigned char *p = sqlite3_value_text(argv[1]);
	if (!p) return;
	if (p[0] == 0) {
		sqlite3_result_text(ctx, (const char *)s, (int)ns, SQLITE_TRANSIENT);
		return;
	}
	int64_t np = sqlite3_value_bytes(argv[1]);
	const unsigned char *r = sqlite3_value_text(argv[2]);
	if (!r) return;
	int64_t nr = sqlite3_value_bytes(argv[2]);
	int64_t cost = np <= ns ? np * (ns - np + 1) : 0;
	if (cost > SG_SEARCH_MAX_COST) {
		too_costly(ctx, "replace", ns, np, SG_SEARCH_MAX_COST);
		return;
	}
	if (sg_charge(ctx, cost / SG_SEARCH_COST_PER_STEP)) return;
	int64_t limit = sqlite3_limit(sqlite3_context_db_handle(ctx), SQLITE_LIMIT_LENGTH, -1);
	int64_t cap = ns + 1, j = 0, i = 0;
	unsigned char *out = sqlite3_malloc64((uint64_t)cap);
	if (!out) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	while (i <= ns - np) {
		if (s[i] != p[0] || memcmp(s + i, p, np) != 0) {
			out[j++] = s[i++];
			continue;
		}
		// The output so far, this replacement and the rest of X.
		int64_t need = j + nr + (ns - i - np);
		if (need > limit) {
			sqlite3_free(out);
			sqlite3_result_error_toobig(ctx);
			return;
		}
		if (need + 1 > cap) {
			int64_t grow = cap * 2 > need + 1 ? cap * 2 : need + 1;
			unsigned char *o = sqlite3_realloc64(out, (uint64_t)grow);
			if (!o) {
				sqlite3_free(out);
				sqlite3_result_error_nomem(ctx);
				return;
			}
			out = o;
			cap = grow;
		}
		memcpy(out + j, r, nr);
		j += nr;
		i += np;
	}
	memcpy(out + j, s + i, ns - i);
	j += ns - i;
	out[j] = 0;
	sqlite3_result_text(ctx, (const char *)out, (int)j, sqlite3_free);
}

// trim_impl is trim/ltrim/rtrim(X, Y): X without the characters of Y at
// the start (flags bit 1) and/or the end (bit 2). The one-argument forms,
// linear in X, stay SQLite's.
static void trim_impl(sqlite3_context *ctx, sqlite3_value **argv, int flags, const unsigned char *set) {
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
	const unsigned char *in = sqlite3_value_text(argv[0]);
	if (!in) return;
	int64_t nin = sqlite3_value_bytes(argv[0]);
	if (!set) set = sqlite3_value_text(argv[1]);
	if (!set) return;
	int64_t nset = (int64_t)strlen((const char *)set);
	int nchar = utf8_count(set, (int)nset);
	int64_t cost = nin * nchar;
	if (cost > SG_TRIM_MAX_COST) {
		too_costly(ctx, "trim", nin, nset, SG_TRIM_MAX_COST);
		return;
	}
	if (sg_charge(ctx, cost / SG_TRIM_COST_PER_STEP)) return;
	if (nchar > 0) {
		const unsigned char **chars = sqlite3_malloc64((uint64_t)nchar * (sizeof(char *) + sizeof(int)));
		if (!chars) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		int *lens = (int *)&chars[nchar];
		const unsigned char *z = set;
		for (int k = 0; k < nchar; k++) {
			chars[k] = z;
			if (*z++ >= 0xc0) {
				while ((*z & 0xc0) == 0x80) z++;
			}
			lens[k] = (int)(z - chars[k]);
		}
		if (flags & 1) {
			while (nin > 0) {
				int k, len = 0;
				for (k = 0; k < nchar; k++) {
					len = lens[k];
					if (len <= nin && memcmp(in, chars[k], len) == 0) break;
				}
				if (k >= nchar) break;
				in += len;
				nin -= len;
			}
		}
		if (flags & 2) {
			while (nin > 0) {
				int k, len = 0;
				for (k = 0; k < nchar; k++) {
					len = lens[k];
					if (len <= nin && memcmp(in + nin - len, chars[k], len) == 0) break;
				}
				if (k >= nchar) break;
				nin -= len;
			}
		}
		sqlite3_free(chars);
	}
	sqlite3_result_text(ctx, (const char *)in, (int)nin, SQLITE_TRANSIENT);
}

// The one-argument forms trim spaces. They are linear, but SQLite's walk
// of a 16 MiB value held in a register is one VM step per call and
// allocates nothing, so it is charged here.
static const unsigned char *space(int argc) { return argc == 1 ? (const unsigned char *)" " : 0; }
static void ltrim_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) { trim_impl(ctx, argv, 1, space(argc)); }
static void rtrim_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) { trim_impl(ctx, argv, 2, space(argc)); }
static void trim_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) { trim_impl(ctx, argv, 3, space(argc)); }

// length_fn is length(X): the characters of a text up to its first NUL,
// counted as SQLite counts them; the bytes of a blob or of a number's
// text; NULL for NULL. The built-in walks a text inside one VM step
// without allocating, so a 16 MiB value held in a register could be
// measured per row for free; the override charges the bytes it walks.
// (It loses SQLite's shortcut that reads only a blob column's size.)
static void length_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	(void)argc;
	switch (sqlite3_value_type(argv[0])) {
	case SQLITE_BLOB:
	case SQLITE_INTEGER:
	case SQLITE_FLOAT:
		sqlite3_result_int(ctx, sqlite3_value_bytes(argv[0]));
		return;
	case SQLITE_TEXT: {
		const unsigned char *z = sqlite3_value_text(argv[0]);
		if (!z) return;
		if (sg_charge(ctx, sqlite3_value_bytes(argv[0]) / SG_SCAN_BYTES_PER_STEP)) return;
		const unsigned char *z0 = z;
		unsigned char c;
		while ((c = *z) != 0) {
			z++;
			if (c >= 0xc0) {
				while ((*z & 0xc0) == 0x80) {
					z++;
					z0++;
				}
			}
		}
		sqlite3_result_int(ctx, (int)(z - z0));
		return;
	}
	}
}

// substr_fn is substr(X, P1[, P2]) and substring(): P2 characters of a
// text (bytes of a blob) from P1, 1-based; P1 < 0 counts from the end;
// P2 < 0 takes the characters before P1; a NULL P2, or a NULL P1 read as
// 0, gives NULL. SQLite's rules, step for step. The built-in walks the
// text up to P1 + P2 characters (all of it when P1 < 0) inside one VM
// step without allocating more than its result, so
// substr(X, 15000000, 1) of a 16 MiB text held in a register cost 15 MB
// of walking per row for free; the override charges the bytes walked.
static void substr_fn(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	int p0type = sqlite3_value_type(argv[0]);
	int64_t p1 = sqlite3_value_int64(argv[1]), p2;
	const unsigned char *z, *z2, *start;
	int64_t len = 0;
	if (p0type == SQLITE_BLOB) {
		len = sqlite3_value_bytes(argv[0]);
		z = sqlite3_value_blob(argv[0]);
		if (!z) return;
	} else {
		z = sqlite3_value_text(argv[0]);
		if (!z) return;
		if (p1 < 0) {
			for (z2 = z; *z2; len++) {
				if (*(z2++) >= 0xc0) {
					while ((*z2 & 0xc0) == 0x80) z2++;
				}
			}
			if (sg_charge(ctx, (z2 - z) / SG_SCAN_BYTES_PER_STEP)) return;
		}
	}
	start = z;
	if (argc == 3) {
		p2 = sqlite3_value_int64(argv[2]);
		if (p2 == 0 && sqlite3_value_type(argv[2]) == SQLITE_NULL) return;
	} else {
		p2 = INT64_MAX;
	}
	if (p1 == 0 && sqlite3_value_type(argv[1]) == SQLITE_NULL) return;
	if (p1 < 0) {
		p1 += len;
		if (p1 < 0) {
			if (p2 < 0) p2 = 0;
			else p2 += p1;
			p1 = 0;
		}
	} else if (p1 > 0) {
		p1--;
	} else if (p2 > 0) {
		p2--;
	}
	if (p2 < 0) {
		if (p2 < -p1) p2 = p1;
		else p2 = -p2;
		p1 -= p2;
	}
	if (p0type != SQLITE_BLOB) {
		for (; p1 > 0; p1--) {
			if ((unsigned char)(z[0] - 1) < (0x80 - 1)) z++;
			else if (z[0] == 0) break;
			else do { z++; } while ((z[0] & 0xc0) == 0x80);
		}
		for (z2 = z; p2 > 0; p2--) {
			if ((unsigned char)(z2[0] - 1) < (0x80 - 1)) z2++;
			else if (z2[0] == 0) break;
			else do { z2++; } while ((z2[0] & 0xc0) == 0x80);
		}
		if (sg_charge(ctx, (z2 - start) / SG_SCAN_BYTES_PER_STEP)) return;
		sqlite3_result_text64(ctx, (const char *)z, (uint64_t)(z2 - z), SQLITE_TRANSIENT, SQLITE_UTF8);
	} else {
		if (p1 >= len) {
			p1 = p2 = 0;
		} else if (p2 > len - p1) {
			p2 = len - p1;
		}
		sqlite3_result_blob64(ctx, z + p1, (uint64_t)p2, SQLITE_TRANSIENT);
	}
}

int sg_register_bounded(sqlite3 *db, sg_guard *g) {
	const struct {
		const char *name;
		int nargs;
		void (*impl)(sqlite3_context *, int, sqlite3_value **);
	} defs[] = {
		{"like", 2, like_fn}, {"like", 3, like_fn}, {"glob", 2, glob_fn},
		{"instr", 2, instr_fn}, {"replace", 3, replace_fn},
		{"trim", 2, trim_fn}, {"ltrim", 2, ltrim_fn}, {"rtrim", 2, rtrim_fn},
		{"trim", 1, trim_fn}, {"ltrim", 1, ltrim_fn}, {"rtrim", 1, rtrim_fn},
		{"length", 1, length_fn},
		{"substr", 2, substr_fn}, {"substr", 3, substr_fn},
		{"substring", 2, substr_fn}, {"substring", 3, substr_fn},
	};
	const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
	for (unsigned i = 0; i < sizeof defs / sizeof defs[0]; i++) {
		int rc = sqlite3_create_function_v2(db, defs[i].name, defs[i].nargs, flags, g, defs[i].impl, 0, 0, 0);
		if (rc != SQLITE_OK) return rc;
	}
	return SQLITE_OK;
}
