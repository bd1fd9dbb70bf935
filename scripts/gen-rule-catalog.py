#!/usr/bin/env python3
"""Regenerates features/catalog.tsv, the catalogue of every server rule mcp-conform knows,
from the rule tables of ../shared/spec/RULES.md (id, level, revisions, transport, source,
rule text, check kind) followed by those of catalog/extra-rules.md, the project's own rules in
the same format (Rev may also be 24 or 2503, Tr also sse). `mcp-conform list` reports the rules that
have no scenario yet from it, with their status `not-implemented` and a reason.

Usage: scripts/gen-rule-catalog.py [RULES.md [extra-rules.md]] > features/catalog.tsv
"""
import os
import re
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "../shared/spec/RULES.md"
extra = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "catalog", "extra-rules.md")
row = re.compile(r"^\| ([A-Z]+-\d{3}) \| ([^|]+) \| (26|25|24|2503|both) \| (any|stdio|http|sse) \| ([^|]+) \| ((?:[^|]|\\\|)+) \| ((?:[^|]|\\\|)+) \| ([^|]+) \|$")
print("id\tlevel\trev\ttransport\tsource\tchk\ttitle")
seen = set()


def emit(p):
    n = 0
    with open(p, encoding="utf-8") as f:
        for line in f:
            m = row.match(line.rstrip("\n"))
            if not m:
                continue
            rid, level, rev, tr, source, rule, _test, chk = (g.strip() for g in m.groups())
            if rid in seen:
                sys.exit(f"duplicate rule id {rid} ({p})")
            seen.add(rid)
            n += 1
            clean = lambda s: s.replace("\\|", "|").replace("\t", " ")
            print("\t".join([rid, level, rev, tr, clean(source), clean(chk), clean(rule)]))
    return n


if emit(path) < 300:
    sys.exit(f"fewer than 300 rules parsed from {path}")
if emit(extra) == 0:
    sys.exit(f"no rule parsed from {extra}")
