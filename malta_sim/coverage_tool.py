"""Maintain ``docs/rules_coverage.csv`` (columns ``game,rule,where,test,note``).

Usage::

    python -m malta_sim.coverage_tool set --game island_of_death --rule 9.3 \
        --where malta_sim/kernels/crt.py:resolve_combat \
        --test tests/test_crt.py::test_worked_example --note "..."
    python -m malta_sim.coverage_tool init     # add rows for missing rule ids
    python -m malta_sim.coverage_tool report   # counts of todo / done / none

Writes take an exclusive lock and replace the file atomically, so several
people can update their own rows at once.
"""

from __future__ import annotations

import argparse
import csv
import fcntl
import os
import sys
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COVERAGE = ROOT / "docs" / "rules_coverage.csv"
FIELDS = ["game", "rule", "where", "test", "note"]
GAMES = {
    "island_of_death": "island_of_death_rule_ids.txt",
    "invasion_malta": "invasion_malta_rule_ids.txt",
}


def rules_dir() -> Path:
    """The shared rulebook folder (``../shared/rules`` beside the checkout)."""
    return ROOT.parent / "shared" / "rules"


def rule_key(rule: str) -> tuple:
    parts = []
    for p in rule.split("."):
        parts.append(int(p) if p.isdigit() else p)
    # rule "9.43" sorts as 9 . 4 . 3 within section 9
    major = parts[0]
    minor = str(rule.split(".")[1]) if "." in rule else ""
    return (major, [int(c) for c in minor if c.isdigit()])


def read_rows(path: Path = COVERAGE) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _write_rows(rows: list[dict], path: Path = COVERAGE) -> None:
    rows = sorted(rows, key=lambda r: (r["game"], rule_key(r["rule"])))
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})
    os.replace(tmp, path)


@contextmanager
def _locked(path: Path = COVERAGE):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".lock"), "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lk, fcntl.LOCK_UN)


def init() -> int:
    with _locked():
        rows = read_rows()
        have = {(r["game"], r["rule"]) for r in rows}
        added = 0
        for game, fname in GAMES.items():
            for rule in (rules_dir() / fname).read_text().split():
                if (game, rule) not in have:
                    rows.append({"game": game, "rule": rule, "where": "todo", "test": "todo", "note": ""})
                    added += 1
        _write_rows(rows)
    return added


def set_row(game: str, rule: str, where: str | None, test: str | None, note: str | None) -> None:
    with _locked():
        rows = read_rows()
        for r in rows:
            if r["game"] == game and r["rule"] == rule:
                if where is not None:
                    r["where"] = where
                if test is not None:
                    r["test"] = test
                if note is not None:
                    r["note"] = note
                break
        else:
            raise SystemExit(f"no row for game={game} rule={rule} in {COVERAGE}")
        _write_rows(rows)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m malta_sim.coverage_tool")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("set")
    s.add_argument("--game", required=True, choices=sorted(GAMES))
    s.add_argument("--rule", required=True, nargs="+", help="one or more rule numbers")
    s.add_argument("--where")
    s.add_argument("--test")
    s.add_argument("--note")
    sub.add_parser("init")
    sub.add_parser("report")
    a = p.parse_args(argv)
    if a.cmd == "set":
        for rule in a.rule:
            set_row(a.game, rule, a.where, a.test, a.note)
    elif a.cmd == "init":
        print(f"added {init()} rows")
    else:
        rows = read_rows()
        for game in GAMES:
            g = [r for r in rows if r["game"] == game]
            todo = sum(r["where"] == "todo" for r in g)
            none = sum(r["where"] == "none" for r in g)
            print(f"{game}: {len(g)} rules, {len(g) - todo - none} implemented, {none} need no code, {todo} todo")
    return 0


if __name__ == "__main__":
    sys.exit(main())
