"""Loads a JSON Lines export (duepay events export) into DuckDB and prints the paid volume per
token per day as JSON: [{"token", "day", "volume", "charges"}], sorted by day then token.

Paid volume: the confirmedTotal of each charge.paid event, summed per token (data.token, lower-case
hex) and per UTC day of the event's occurredAt. Used by analysts_test, which compares it with the
same figure from the Postgres read model; docs/analysts.md shows the query.

usage: duckdb_paid_volume.py EXPORT.jsonl
"""
import json
import sys

import duckdb

QUERY = """
select lower(json ->> '$.data.token')                                 as token,
       strftime(cast(json ->> '$.occurredAt' as timestamp), '%Y-%m-%d') as day,
       cast(sum(cast(json ->> '$.data.confirmedTotal' as hugeint)) as varchar) as volume,
       count(distinct json ->> '$.invoiceId')                          as charges
from read_ndjson_objects(?)
where json ->> '$.type' = 'charge.paid'
group by all
order by day, token
"""


def main():
    con = duckdb.connect()
    rows = con.execute(QUERY, [sys.argv[1]]).fetchall()
    print(json.dumps([{"token": t, "day": d, "volume": v, "charges": c} for t, d, v, c in rows]))


if __name__ == "__main__":
    main()
