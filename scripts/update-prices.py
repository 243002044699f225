#!/usr/bin/env python3
"""Writes Corral's bundled price table (`src-tauri/engine/data/prices.json`) from the price data
that ships in the `genai-prices` package (pydantic/genai-prices, MIT), Anthropic's models only.

Run it through `make prices`, which installs the pinned package into the tools venv first.
Corral never fetches prices at run time: a new table is a reviewed commit of this file's output.

The output keeps the source's own words: a model's `match` clauses (equals, startsWith,
contains, regex, or; text clauses ignore case), its prices in USD per million tokens as exact
decimal strings, a tiered price as {base, tiers: [{above, price}]} (a request whose whole prompt —
input, cache reads and cache writes — is *above* a tier's start pays that tier's price on every
token), and dated prices as a list whose entries start on `from` (UTC day; the last one started
applies).
"""

import argparse
import datetime
import json
import sys
from decimal import Decimal
from importlib import metadata

from genai_prices import types as T
from genai_prices.data import providers

OUT = "src-tauri/engine/data/prices.json"

# The price keys Corral reads, by the source's name.
KEYS = {
    "input_mtok": "input",
    "output_mtok": "output",
    "cache_read_mtok": "cacheRead",
    "cache_write_mtok": "cacheWrite5m",
    "cache_write_1h_mtok": "cacheWrite1h",
    "web_searches_kcount": "webSearchPerThousand",
}


def clause(c):
    if isinstance(c, T.ClauseOr):
        return {"or": [clause(x) for x in c.or_]}
    if isinstance(c, T.ClauseAnd):
        return {"and": [clause(x) for x in c.and_]}
    for cls, key, attr in (
        (T.ClauseEquals, "equals", "equals"),
        (T.ClauseStartsWith, "startsWith", "starts_with"),
        (T.ClauseEndsWith, "endsWith", "ends_with"),
        (T.ClauseContains, "contains", "contains"),
        (T.ClauseRegex, "regex", "regex"),
    ):
        if isinstance(c, cls):
            return {key: getattr(c, attr)}
    raise SystemExit("a match clause Corral does not read: %r" % (c,))


def number(d):
    if not isinstance(d, Decimal):
        d = Decimal(str(d))
    return format(d.normalize(), "f")


def price(p):
    if isinstance(p, T.TieredPrices):
        return {"base": number(p.base), "tiers": [{"above": t.start, "price": number(t.price)} for t in p.tiers]}
    return number(p)


def prices(mp):
    out = {}
    for src, dst in KEYS.items():
        v = getattr(mp, src, None)
        if v is not None:
            out[dst] = price(v)
    other = [k for k, v in vars(mp).items() if v is not None and k not in KEYS and not k.startswith("_")]
    if other:
        # Audio or image prices: nothing Claude Code spends. Said, so a reader knows.
        out["notRead"] = sorted(other)
    return out


def dated(model):
    ps = model.prices
    if isinstance(ps, T.ModelPrice):
        return [{"from": None, **prices(ps)}]
    out = []
    for cp in ps:
        c = cp.constraint
        if c is None:
            start = None
        elif isinstance(c, T.StartDateConstraint):
            start = c.start_date.isoformat()
        else:
            raise SystemExit("%s: a price constraint Corral does not read: %r" % (model.id, c))
        out.append({"from": start, **prices(cp.prices)})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--date", default=datetime.date.today().isoformat(), help="the day written as `generated`")
    args = ap.parse_args()
    anthropic = next(p for p in providers if p.id == "anthropic")
    version = metadata.version("genai-prices")
    table = {
        "source": "genai-prices %s (https://github.com/pydantic/genai-prices, MIT), provider `anthropic`" % version,
        "package": "genai-prices",
        "version": version,
        "generated": args.date,
        "regenerate": "make prices",
        "units": "USD per million tokens; web searches in USD per thousand",
        "models": [
            {"id": m.id, "name": m.name, "match": clause(m.match), "prices": dated(m)}
            for m in anthropic.models
        ],
    }
    with open(args.out, "w") as f:
        json.dump(table, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("%s: %d models from genai-prices %s" % (args.out, len(table["models"]), version), file=sys.stderr)


if __name__ == "__main__":
    main()
