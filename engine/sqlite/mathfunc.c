// mathfunc.c provides SQLite's documented math functions
// (https://sqlite.org/lang_mathfunc.html). The amalgamation sqlgym links
// is compiled without SQLITE_ENABLE_MATH_FUNCTIONS, while Python's sqlite3
// (which BIRD's scorer uses) and the sqlite3 CLI have them, so golds and
// answers may call them.
//
// Semantics, as documented and as the CLI behaves: an argument that is
// NULL or not numeric (text that does not look like a number, a blob)
// gives NULL; a result that is NaN is stored by SQLite as NULL; ceil,
// floor and trunc return an INTEGER argument unchanged and a REAL one as
// REAL; the logarithms of a value <= 0 are NULL.
#define _GNU_SOURCE
#include <math.h>
#include "capi.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846264338327950288
#endif

// numeric reads argument v as a double and reports whether it is a
// number once SQLite's numeric affinity is applied to it.
static int numeric(sqlite3_value *v, double *out) {
	int t = sqlite3_value_numeric_type(v);
	if (t != SQLITE_INTEGER && t != SQLITE_FLOAT) return 0;
	*out = sqlite3_value_double(v);
	return 1;
}

typedef double (*fn1)(double);
typedef double (*fn2)(double, double);

static void call1(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	double x;
	(void)argc;
	if (!numeric(argv[0], &x)) return;
	sqlite3_result_double(ctx, ((fn1)sqlite3_user_data(ctx))(x));
}

static void call2(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	double x, y;
	(void)argc;
	if (!numeric(argv[0], &x) || !numeric(argv[1], &y)) return;
	sqlite3_result_double(ctx, ((fn2)sqlite3_user_data(ctx))(x, y));
}

// rounding: an INTEGER stays the same INTEGER (no trip through double,
// which would lose precision past 2^53); a REAL is rounded as REAL.
static void rounding(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	(void)argc;
	switch (sqlite3_value_numeric_type(argv[0])) {
	case SQLITE_INTEGER:
		sqlite3_result_int64(ctx, sqlite3_value_int64(argv[0]));
		break;
	case SQLITE_FLOAT:
		sqlite3_result_double(ctx, ((fn1)sqlite3_user_data(ctx))(sqlite3_value_double(argv[0])));
		break;
	}
}

// logarithm: ln, log10, log2 with one argument (the base given by user
// data: 0 = e, 10, 2) and log(B, X) with two. Like SQLite, the
// two-argument form is NULL unless B > 1 and X > 0.
static void logarithm(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	double x, b;
	if (!numeric(argv[0], &x) || x <= 0.0) return;
	if (argc == 2) {
		double lb = log(x);
		if (lb <= 0.0) return;
		if (!numeric(argv[1], &x) || x <= 0.0) return;
		sqlite3_result_double(ctx, log(x) / lb);
		return;
	}
	switch ((int)(intptr_t)sqlite3_user_data(ctx)) {
	case 10:
		b = log10(x);
		break;
	case 2:
		b = log2(x);
		break;
	default:
		b = log(x);
	}
	sqlite3_result_double(ctx, b);
}

static void pi(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
	(void)argc; (void)argv;
	sqlite3_result_double(ctx, M_PI);
}

static double ceil_(double x) { return ceil(x); }
static double floor_(double x) { return floor(x); }
static double trunc_(double x) { return trunc(x); }
static double radians(double x) { return x * (M_PI / 180.0); }
static double degrees(double x) { return x * (180.0 / M_PI); }
static double exp_(double x) { return exp(x); }
static double sqrt_(double x) { return sqrt(x); }
static double pow_(double x, double y) { return pow(x, y); }
static double fmod_(double x, double y) { return fmod(x, y); }
static double atan2_(double x, double y) { return atan2(x, y); }

struct mathdef {
	const char *name;
	int nargs;
	void (*impl)(sqlite3_context *, int, sqlite3_value **);
	void *data;
};

int sg_register_math(sqlite3 *db) {
	const struct mathdef defs[] = {
		{"ceil", 1, rounding, (void *)ceil_},
		{"ceiling", 1, rounding, (void *)ceil_},
		{"floor", 1, rounding, (void *)floor_},
		{"trunc", 1, rounding, (void *)trunc_},
		{"ln", 1, logarithm, (void *)(intptr_t)0},
		{"log", 1, logarithm, (void *)(intptr_t)10},
		{"log10", 1, logarithm, (void *)(intptr_t)10},
		{"log2", 1, logarithm, (void *)(intptr_t)2},
		{"log", 2, logarithm, 0},
		{"exp", 1, call1, (void *)exp_},
		{"pow", 2, call2, (void *)pow_},
		{"power", 2, call2, (void *)pow_},
		{"mod", 2, call2, (void *)fmod_},
		{"acos", 1, call1, (void *)acos},
		{"asin", 1, call1, (void *)asin},
		{"atan", 1, call1, (void *)atan},
		{"atan2", 2, call2, (void *)atan2_},
		{"cos", 1, call1, (void *)cos},
		{"sin", 1, call1, (void *)sin},
		{"tan", 1, call1, (void *)tan},
		{"cosh", 1, call1, (void *)cosh},
		{"sinh", 1, call1, (void *)sinh},
		{"tanh", 1, call1, (void *)tanh},
		{"acosh", 1, call1, (void *)acosh},
		{"asinh", 1, call1, (void *)asinh},
		{"atanh", 1, call1, (void *)atanh},
		{"sqrt", 1, call1, (void *)sqrt_},
		{"radians", 1, call1, (void *)radians},
		{"degrees", 1, call1, (void *)degrees},
		{"pi", 0, pi, 0},
	};
	const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
	for (unsigned i = 0; i < sizeof defs / sizeof defs[0]; i++) {
		int rc = sqlite3_create_function_v2(db, defs[i].name, defs[i].nargs, flags, defs[i].data, defs[i].impl, 0, 0, 0);
		if (rc != SQLITE_OK) return rc;
	}
	return SQLITE_OK;
}
