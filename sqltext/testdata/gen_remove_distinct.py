#!/usr/bin/env python3
"""Regenerate remove_distinct_sqlparse.jsonl: what Spider's test-suite
scorer's DISTINCT removal gives, computed with the real sqlparse library
(Debian's python3-sqlparse), for the golds of ../shared/data that hold the
word distinct or a semicolon, and for hand-written tricky texts.

Run from the repository root:
    python3 sqltext/testdata/gen_remove_distinct.py ../shared/data > sqltext/testdata/remove_distinct_sqlparse.jsonl
"""
import glob
import json
import sys

import sqlparse

TRICKY = [
    "SELECT DISTINCT name FROM singer",
    "select count(distinct x) from t",
    "SELECT DISTINCT(a) FROM t",
    "select a from t where a is distinct from b",
    "SELECT \"distinct\", [distinct], `distinct`, 'distinct' FROM t -- distinct",
    "SELECT t.distinct FROM t",
    "SELECT distinct_count, indistinct FROM t",
    "SELECT DISTINCT a FROM t; SELECT DISTINCT b",
    "SELECT a FROM t;  -- c\nSELECT 2",
    "SELECT a FROM t;\nSELECT 2",
    "SELECT a FROM t; /* c */ SELECT 2",
    "SELECT a FROM t;\t\tSELECT 2",
    ";select distinct 1",
    "SELECT (1; SELECT DISTINCT 2",
    "SELECT CASE WHEN a THEN 1 END FROM t; SELECT 2",
    "SELECT DiStInCt a FROM t",
    "SELECT DISTINCT\na\nFROM t",
    "SELECT DISTINCT $$distinct$$ FROM t",
    "SELECT E'distinct' , DISTINCT a FROM t",
    "SELECT /* distinct */ DISTINCT a FROM t",
    "SELECT a FROM t WHERE x IN (SELECT DISTINCT b FROM u); ",
    "SELECT DISTINCT a FROM t;",
    "SELECT a::text, DISTINCT b FROM t",
    "select distinct T1.name from a as T1 join b as T2 on T1.id = T2.id where T2.x = 'distinct value'",
]


def remove_distinct(s):
    toks = [t.value for t in list(sqlparse.parse(s)[0].flatten())]
    return "".join(t for t in toks if t.lower() != "distinct")


def golds(root):
    for path in sorted(glob.glob(root + "/**/*.jsonl", recursive=True)):
        with open(path) as f:
            for line in f:
                if line.strip():
                    yield json.loads(line)["gold_sql"]


def main():
    seen = set()
    inputs = [s for s in TRICKY]
    inputs += [g for g in golds(sys.argv[1]) if "distinct" in g.lower() or ";" in g]
    for s in inputs:
        if s in seen:
            continue
        seen.add(s)
        print(json.dumps({"in": s, "out": remove_distinct(s)}, ensure_ascii=False))


main()
