"""Reads a pitboss export with other people's readers: pyarrow for Parquet, DuckDB for CSV and JSON
Lines. Prints one JSON object of what it found; the Rust test compares it with what it wrote.

Usage: check_export.py PARQUET_DIR CSV_DIR JSONL_DIR
"""

import json
import sys

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

TABLES = ["hands", "bets", "events", "places"]
# Arrow type -> DuckDB type, for reading CSV and JSON Lines with the Parquet file's schema.
DUCK = {pa.string(): "VARCHAR", pa.uint64(): "UBIGINT", pa.int64(): "BIGINT",
        pa.uint32(): "UINTEGER", pa.uint8(): "UTINYINT"}


def stats(rows, column, null_column, empty_column):
    """rows: list of dicts (Python ints, exact)."""
    return {
        "rows": len(rows),
        "sum": str(sum(r[column] for r in rows)),
        "nulls": sum(1 for r in rows if r[null_column] is None),
        "empty": sum(1 for r in rows if r[empty_column] == ""),
    }


SPEC = {  # table -> (summed column, a nullable column, a string column)
    "hands": ("paid", "closed_at_ms", "player"),
    "bets": ("payout", "cap", "bet"),
    "events": ("recorded_at_ms", "hand_id", "stream"),
    "places": ("paid", "seat", "dealer"),
}


def main():
    parquet_dir, csv_dir, jsonl_dir = sys.argv[1:4]
    out = {"parquet": {}, "csv": {}, "jsonl": {}, "schema": {}, "metadata": {}}
    con = duckdb.connect()
    for table in TABLES:
        path = f"{parquet_dir}/{table}.parquet"
        t = pq.read_table(path)
        meta = pq.read_metadata(path).metadata or {}
        out["metadata"][table] = {k.decode(): v.decode() for k, v in meta.items() if k.startswith(b"pitboss.")}
        out["schema"][table] = [[f.name, str(f.type), f.nullable] for f in t.schema]
        out["parquet"][table] = stats(t.to_pylist(), *SPEC[table])

        columns = "{" + ", ".join(f"'{f.name}': '{DUCK[f.type]}'" for f in t.schema) + "}"
        csv_rel = con.sql(
            f"SELECT * FROM read_csv('{csv_dir}/{table}.csv', header = true, delim = ',', quote = '\"',"
            f" escape = '\"', columns = {columns}, auto_detect = false, strict_mode = true, allow_quoted_nulls = false)"
        )
        json_rel = con.sql(
            f"SELECT * FROM read_json('{jsonl_dir}/{table}.jsonl', format = 'newline_delimited',"
            f" columns = {columns})"
        )
        for name, rel in [("csv", csv_rel), ("jsonl", json_rel)]:
            names = rel.columns
            rows = [dict(zip(names, r)) for r in rel.fetchall()]
            found = stats(rows, *SPEC[table])
            found["columns"] = names
            out[name][table] = found
    print(json.dumps(out))


if __name__ == "__main__":
    main()
