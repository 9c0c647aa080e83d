"""Totals of a pitboss export, read by readers nobody here wrote: pyarrow for Parquet, DuckDB for
CSV and JSON Lines. Prints one JSON object; the Rust test holds it to the server's own totals.

Usage: export_totals.py DIR FORMAT      (FORMAT: parquet, csv or jsonl)
"""

import json
import os
import sys

import duckdb
import pyarrow.parquet as pq


def tables(directory, fmt):
    """Each table as a list of dicts (exact Python integers)."""
    out = {}
    con = duckdb.connect()
    for name in ("hands", "bets", "events"):
        path = os.path.join(directory, f"{name}.{fmt}")
        if fmt == "parquet":
            table = pq.read_table(path)
            meta = table.schema.metadata or {}
            assert meta.get(b"pitboss.schema") == b"pitboss-export/3", meta
            out[name] = table.to_pylist()
        elif fmt == "csv":
            # An empty string stays an empty string (a null is an empty field).
            rel = con.sql(
                f"SELECT * FROM read_csv('{path}', header = true, allow_quoted_nulls = false)"
            )
            out[name] = [dict(zip(rel.columns, row)) for row in rel.fetchall()]
        else:
            rel = con.sql(f"SELECT * FROM read_json('{path}', format = 'newline_delimited')")
            out[name] = [dict(zip(rel.columns, row)) for row in rel.fetchall()]
    return out


def main():
    directory, fmt = sys.argv[1], sys.argv[2]
    t = tables(directory, fmt)
    hands, bets, events = t["hands"], t["bets"], t["events"]
    print(json.dumps({
        "hands": len(hands),
        "staked": sum(int(h["staked"]) for h in hands),
        "paid": sum(int(h["paid"]) for h in hands),
        "net": sum(int(h["net"]) for h in hands),
        "voided": sum(1 for h in hands if h["status"] == "voided"),
        "bets": len(bets),
        "settlement_lines": sum(1 for b in bets if b["kind"] == "settlement"),
        "void_lines": sum(1 for b in bets if b["kind"] == "void"),
        "events": len(events),
        "hands_with_events": len({e["hand_id"] for e in events}),
    }, sort_keys=True))


if __name__ == "__main__":
    main()
