#!/usr/bin/env python3
"""Regenerates features/catalog.tsv, the catalogue of every server rule mcp-conform knows,
from the rule tables of ../shared/spec/RULES.md (id, level, revisions, transport, source,
rule text, check kind). `mcp-conform list` reports the rules that have no scenario yet from it,
with their status `not-implemented` and a reason.

Usage: scripts/gen-rule-catalog.py [RULES.md] > features/catalog.tsv
"""
import re
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "../shared/spec/RULES.md"
row = re.compile(r"^\| ([A-Z]+-\d{3}) \| ([^|]+) \| (26|25|both) \| (any|stdio|http) \| ([^|]+) \| ((?:[^|]|\\\|)+) \| ((?:[^|]|\\\|)+) \| ([^|]+) \|$")
print("id\tlevel\trev\ttransport\tsource\tchk\ttitle")
seen = set()
with open(path, encoding="utf-8") as f:
    for line in f:
        m = row.match(line.rstrip("\n"))
        if not m:
            continue
        rid, level, rev, tr, source, rule, _test, chk = (g.strip() for g in m.groups())
        if rid in seen:
            sys.exit(f"duplicate rule id {rid}")
        seen.add(rid)
        clean = lambda s: s.replace("\\|", "|").replace("\t", " ")
        print("\t".join([rid, level, rev, tr, clean(source), clean(chk), clean(rule)]))
if len(seen) < 300:
    sys.exit(f"only {len(seen)} rules parsed from {path}")
