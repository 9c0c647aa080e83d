"""The rounds' places of a pitboss export, read by DuckDB (Parquet, CSV, JSON Lines): prints one
JSON object — the places (the columns the Rust test compares, sorted by round and place), the
number of hands, the number of events that are rounds' entries, and each place's bet lines from
the `bets` table summed by kind ("<round>/<place>": {"settlement": payouts, "void": payouts,
"lines": count}). The Rust test holds it to the rounds' places as the server showed them.

Usage: export_places.py DIR FORMAT      (FORMAT: parquet, csv or jsonl)
"""

import json
import os
import sys

import duckdb

COLUMNS = ["round_id", "place", "seat", "player", "table", "dealer", "game", "round_phase",
           "status", "staked", "paid", "net", "void_kind", "opened_at_ms"]
INTEGERS = {"place", "seat", "staked", "paid", "net", "opened_at_ms"}


def read(con, directory, name, fmt):
    path = os.path.join(directory, f"{name}.{fmt}")
    if fmt == "parquet":
        rel = con.sql(f"SELECT * FROM read_parquet('{path}')")
    elif fmt == "csv":
        # Every field as text (a round id of digits stays a string; a null is an empty field, an
        # empty string is "").
        rel = con.sql(
            f"SELECT * FROM read_csv('{path}', header = true, all_varchar = true,"
            f" allow_quoted_nulls = false)"
        )
    else:
        rel = con.sql(f"SELECT * FROM read_json('{path}', format = 'newline_delimited')")
    return [dict(zip(rel.columns, row)) for row in rel.fetchall()]


def main():
    directory, fmt = sys.argv[1], sys.argv[2]
    con = duckdb.connect()
    places = []
    for row in read(con, directory, "places", fmt):
        place = {}
        for column in COLUMNS:
            value = row[column]
            if column in INTEGERS and value is not None:
                value = int(value)
            place[column] = value
        places.append(place)
    places.sort(key=lambda p: (json.dumps(p["round_id"]), p["place"]))
    events = read(con, directory, "events", fmt)
    lines = {}
    for bet in read(con, directory, "bets", fmt):
        if bet["round_id"] is None:
            continue
        key = f"{bet['round_id']}/{int(bet['place'])}"
        sums = lines.setdefault(key, {"settlement": 0, "void": 0, "lines": 0})
        sums[bet["kind"]] += int(bet["payout"])
        sums["lines"] += 1
    print(json.dumps({
        "places": places,
        "hands": len(read(con, directory, "hands", fmt)),
        "round_events": sum(1 for e in events if e["round_id"] is not None),
        "place_lines": lines,
    }, sort_keys=True))


if __name__ == "__main__":
    main()
