"""docs/rules_coverage.csv true by execution: the code named for each Island of Death rule
runs in played games.

A subprocess plays a few short seeded games of both scenarios (:data:`GAMES`: the default,
aggressive, cautious, solitaire and random bots, and every optional rule of the scenarios,
so that the invasion's rules run) under coverage.py with ``NUMBA_DISABLE_JIT=1``, so that the
compiled functions run as Python and are seen.  A function named in the ``where`` column of
an Island of Death row *ran* when a line of its body (its docstring apart) was executed.

Every named function must run, unless the row's ``note`` begins with
``not reached in played games:`` followed by the reason (:data:`EXEMPT`): the function
serves something else than play (a kernel library the engine does not call, a per-unit query
play answers with a compiled pass, the map generator...).  An exemption must still be
needed: a row whose named functions all ran must drop it.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import coverage
import pytest

ROOT = Path(__file__).resolve().parents[2]
COV = ROOT / "docs" / "rules_coverage.csv"
#: the note prefix of a row whose named code the played games cannot reach
EXEMPT = "not reached in played games:"

#: (scenario, seed, game, Axis bot, Allied bot, options): short games that reach the rules
#: (hercules seed 7 game 15 under aggressive / counterattack over-stacks a hex, rule 7.2, and
#: catches a leader, 14.42; games 0 and then 6 of that seed did so until the 16.25 mend and
#: then the reform after landing, 18.7, changed them)
GAMES = [
    ("intro", 1, 0, "balanced", "static", []),
    ("intro", 2, 0, "random", "random", []),
    ("intro", 3, 1, "aggressive", "counterattack", ["solitaire"]),
    ("hercules", 1942, 0, "balanced", "static", []),
    ("hercules", 7, 0, "aggressive", "counterattack", []),
    ("hercules", 7, 15, "aggressive", "counterattack", []),
    ("hercules", 5, 0, "random", "random", ["solitaire"]),
    ("hercules", 6, 1, "random", "random", ["variable_allied_placement"]),
    ("hercules", 11, 0, "cautious", "counterattack", ["delayed_landings"]),
]

_PLAY = """
import json, sys
import coverage
cov = coverage.Coverage(data_file=sys.argv[1], source=["malta_sim"])
cov.start()
from malta_sim.iod import sequence
from malta_sim.play import new_game
for scen, seed, g, axis, allied, options in json.loads(sys.argv[2]):
    game = new_game(scen, seed, g, axis_policy=axis, allied_policy=allied, options=tuple(options))
    sequence.play_game(game)
    assert game.state.over[0], (scen, seed, g)
cov.stop()
cov.save()
"""


@pytest.fixture(scope="module")
def executed(tmp_path_factory) -> dict:
    """``{file path relative to the checkout: set of executed line numbers}``
    of the package while :data:`GAMES` are played without compiled code."""
    data = tmp_path_factory.mktemp("coverage") / ".coverage"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    r = subprocess.run([sys.executable, "-c", _PLAY, str(data), json.dumps(GAMES)], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    cd = coverage.CoverageData(basename=str(data))
    cd.read()
    out = {}
    for f in cd.measured_files():
        p = Path(f).resolve()
        if p.is_relative_to(ROOT):
            out[str(p.relative_to(ROOT))] = set(cd.lines(f) or ())
    return out


def _body_lines(path: str, name: str) -> set | None:
    """Line numbers of the body of function (or class) ``name`` (dotted for a
    method) in ``path``, its docstring left out; None when there is none."""
    tree = ast.parse((ROOT / path).read_text())
    node, scope = None, tree.body
    for part in name.split("."):
        node = next((n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                     and n.name == part), None)
        if node is None:
            return None
        scope = node.body
    body = node.body
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    return {n.lineno for st in body for n in ast.walk(st) if hasattr(n, "lineno")}


def _rows() -> list[dict]:
    with open(COV, newline="") as f:
        return [r for r in csv.DictReader(f) if r["game"] == "island_of_death"]


def _named(row) -> list[tuple[str, str]]:
    out = []
    for part in row["where"].split(";"):
        path, _, name = part.strip().partition(":")
        if path not in ("none", "todo", "") and name:
            out.append((path, name))
    return out


def _ran(executed, path, name) -> bool:
    lines = _body_lines(path, name)
    assert lines is not None, f"{path}:{name} is not a function or class"
    return bool(lines & executed.get(path, set()))


def test_named_code_runs_in_played_games(executed):
    """Every function an Island of Death row names runs in the played games,
    or the row says why those games cannot reach it."""
    missing = []
    named = ran = 0
    for r in _rows():
        for path, name in _named(r):
            named += 1
            if _ran(executed, path, name):
                ran += 1
            elif not r["note"].startswith(EXEMPT):
                missing.append(f"rule {r['rule']}: {path}:{name} never ran")
    assert not missing, "\n".join(missing)
    assert named > 150 and ran > 0.7 * named, (named, ran)


def test_exemptions_are_still_needed(executed):
    """A row exempted with ``not reached in played games:`` names at least one
    function that did not run."""
    stale = [r["rule"] for r in _rows() if r["note"].startswith(EXEMPT)
             and all(_ran(executed, p, n) for p, n in _named(r))]
    assert not stale, f"rows whose named code all ran: drop the exemption of {stale}"
