"""docs/rules_coverage.csv: one row per printed rule id; named files, functions and tests exist."""

import ast
import csv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT.parent / "shared" / "rules"
COV = ROOT / "docs" / "rules_coverage.csv"
GAMES = {"island_of_death": "island_of_death_rule_ids.txt", "invasion_malta": "invasion_malta_rule_ids.txt"}


def _rows():
    with open(COV, newline="") as f:
        return list(csv.DictReader(f))


def test_columns():
    with open(COV, newline="") as f:
        assert next(csv.reader(f)) == ["game", "rule", "where", "test", "note"]


@pytest.mark.skipif(not RULES.is_dir(), reason="shared rulebooks not beside the checkout")
@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_rule_id_listed(game):
    ids = (RULES / GAMES[game]).read_text().split()
    have = {r["rule"] for r in _rows() if r["game"] == game}
    missing = [i for i in ids if i not in have]
    assert not missing, f"rules missing from rules_coverage.csv: {missing}"


def test_no_duplicates_and_known_games():
    keys = [(r["game"], r["rule"]) for r in _rows()]
    assert len(keys) == len(set(keys))
    assert {g for g, _ in keys} <= set(GAMES)


def _defined_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    names.add(t.id)
    return names


def test_where_points_to_existing_code():
    bad = []
    for r in _rows():
        where = r["where"].strip()
        if where in ("todo", "none"):
            continue
        for part in where.split(";"):
            part = part.strip()
            path, _, func = part.partition(":")
            p = ROOT / path
            if not p.is_file():
                bad.append(f"{r['game']} {r['rule']}: no file {path}")
                continue
            if func and p.suffix == ".py":
                head = func.split(".")[0]
                if head not in _defined_names(p):
                    bad.append(f"{r['game']} {r['rule']}: no {func} in {path}")
    assert not bad, "\n".join(bad)


def test_tests_exist():
    bad = []
    for r in _rows():
        t = r["test"].strip()
        if t in ("todo", "none"):
            continue
        for part in t.split(";"):
            path, _, name = part.strip().partition("::")
            p = ROOT / path
            if not p.is_file():
                bad.append(f"{r['game']} {r['rule']}: no test file {path}")
                continue
            func = name.split("::")[-1].split("[")[0]
            if func and func not in _defined_names(p):
                bad.append(f"{r['game']} {r['rule']}: no test {name} in {path}")
    assert not bad, "\n".join(bad)


def test_exemptions_say_why():
    """A note that begins ``not reached in played games:`` (the convention of
    tests/engine/test_coverage_by_execution.py) gives a reason, on an Island of
    Death row that names code."""
    prefix = "not reached in played games:"
    for r in _rows():
        if r["note"].startswith(prefix):
            assert r["game"] == "island_of_death", r["rule"]
            assert r["where"] not in ("none", "todo"), r["rule"]
            assert len(r["note"][len(prefix):].split("|")[0].strip()) > 20, f"{r['rule']}: give the reason"


def test_none_rows_say_why():
    for r in _rows():
        if r["where"] == "none":
            assert r["note"].strip(), f"{r['game']} {r['rule']} needs no code but gives no reason"
