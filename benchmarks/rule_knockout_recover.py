"""Recover a game's results ledger (``docs/rule_knockout/GAME.csv``) from the report page,
for runs whose folders are lost.

    python benchmarks/rule_knockout_recover.py --game island_of_death --commit 5bd7e38
    python benchmarks/rule_knockout_recover.py --game invasion_malta --commit 5bd7e38

The report (``docs/rule_knockout.md`` as committed at ``--commit``) lists every surviving
mutant of the game (module, function, line, original and mutated text) and the runs it
came from (date, ``--only``, mutants, jobs, minutes); it does not list the killed ones.
This script enumerates today's mutants as the knock-out does (``rule_knockout.py --list``:
same operators, same coverage rows), so it must run on the code those runs ran on.  Each
mutant is marked survived when the report lists it among the survivors of its function
(same module, function, original and mutated text, on the same line or, when code above
moved the function, on the line moved by the shift that places most of its listed
survivors, else the nearest; where the same pair repeats, the report's k-th listing takes
the k-th such mutant in cosmic-ray's order), killed otherwise (a timed-out mutant is not told apart from a killed one).  Each row is credited to
the last listed run whose ``--only`` covers its function (the run that the report's
combination took it from).  When today's mutants outnumber the report's, main's history
is read: a function that no coverage row named when its run began was never run (its
mutants are left out, and the report lists it as never run), and a function whose code
differs from main's then is named (its sections' counts tell whether the run had today's).  The run records say that their rows were recovered.

It prints what it could not match: survivors of the report that no mutant of today's code
reproduces, and the mutant count per function when it differs from the report's sections.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import rule_knockout as K  # noqa: E402

RUN_LINE = re.compile(r"^- (\d{4}-\d\d-\d\d \d\d:\d\d): (\d+) mutants of (.*), (\d+) jobs, ([\d.]+) minutes")
ONE_RUN = re.compile(r"^Last (?:full )?run: (\d{4}-\d\d-\d\d \d\d:\d\d), (\d+) mutants, (\d+) jobs, ([\d.]+) minutes")
GROUP = re.compile(r"^\*\*`([^`]+)` `([^`]+)`\*\*$")
SURVIVOR = re.compile(r"^- line (\d+), `(.*?)` → `(.*)`: (UNEXPLAINED|equivalent: .*|unreachable: .*)$")


def parse_block(block: str) -> tuple[list, list]:
    """``(runs, survivors)`` of a game's block of the report: run records (date, only,
    modules, mutants, jobs, wall_s) in the listed order, and survivors as
    ``(module, function, line, original, mutated)`` in the listed order."""
    runs, survivors, group = [], [], None
    for line in block.splitlines():
        if m := RUN_LINE.match(line):
            what = m.group(3)
            if what.startswith("`--only "):
                only = what[len("`--only "):-1]
                modules = sorted({mod for mod, _ in K.parse_only(only)})
            else:
                only, modules = None, sorted(re.findall(r"`([^`]+)`", what))
            runs.append(dict(date=m.group(1), only=only, modules=modules, mutants=int(m.group(2)),
                             jobs=int(m.group(4)), wall_s=round(float(m.group(5)) * 60, 1)))
        elif m := ONE_RUN.match(line):
            runs.append(dict(date=m.group(1), only=None, modules=None, mutants=int(m.group(2)), jobs=int(m.group(3)),
                             wall_s=round(float(m.group(4)) * 60, 1)))
        elif m := GROUP.match(line):
            group = (m.group(1), m.group(2))
        elif (m := SURVIVOR.match(line)) and group:
            survivors.append((*group, int(m.group(1)), m.group(2), m.group(3)))
    return runs, survivors


def covers(run: dict, module: str, function: str, all_modules: tuple) -> bool:
    picks = K.parse_only(run["only"])
    if not picks:
        return module in (run["modules"] or all_modules)
    return any(pm == module and (not pf or pf == function) for pm, pf in picks)


def enumerate_today(game: str) -> tuple[list, dict]:
    """Today's mutants of ``game`` (records as a run writes them, with ``mutated``) and what
    was left out per module."""
    target = K.TARGETS[game]
    by_module: dict = {}
    with tempfile.TemporaryDirectory() as d:
        src = K.scratch_copy(K.ROOT, Path(d) / "src", K.tracked_files(K.ROOT))
        items, _ = K.enumerate_mutants(target, src, K.read_rows(game), Path(d) / "s.sqlite", by_module=by_module)
        recs = [dict(r, mutated=K.mutated_line(src, r, it)) for it, r in items]
    zero = dict(operator=0, annotation=0, outside_rule_code=0)
    return recs, {m: by_module.get(m, zero) for m in target.modules}


def recover(game: str, commit: str, recs: list, skipped: dict, recovered_on: str) -> tuple[list, dict, list]:
    """The ledger rows and record of ``game`` from the report at ``commit`` and today's
    mutants ``recs``.  Returns ``(rows, info, problems)``."""
    target = K.TARGETS[game]
    text = subprocess.run(["git", "show", f"{commit}:docs/rule_knockout.md"], cwd=K.ROOT, capture_output=True,
                          text=True, check=True).stdout
    runs, survivors = parse_block(K.game_blocks(text)[game])
    note = (f"rows recovered from docs/rule_knockout.md at commit {commit} (the run folders are lost), by "
            f"benchmarks/rule_knockout_recover.py on {recovered_on}: each mutant enumerated on that code is survived "
            "when that report lists it among its function's survivors, killed otherwise (a timeout counts as killed), "
            "and is credited to the last run listed there whose --only covers its function; the runs' dates, mutant "
            "counts and times are those the report gives.")
    for r in runs:
        r["recovered"] = note
        r["modules"] = r["modules"] or list(target.modules)
    problems = []
    by_fn: dict = {}
    for r in sorted(recs, key=lambda r: (r["module"], r["line"], r["col"], r["operator"], r["occurrence"])):
        by_fn.setdefault((r["module"], r["function"]), []).append(r)
    for r in recs:
        r["outcome"] = "killed"
    def same(r, orig, mut):
        return r["original"].strip() == orig.strip() and r["mutated"].strip() == mut.strip()

    # code above a function may have moved it since its run: the shift that places most of
    # its listed survivors on a mutant of the same text (0 first, then the smallest)
    shift_of: dict = {}
    for key in dict.fromkeys((mod, fn) for mod, fn, *_ in survivors):
        listed = [(line, o, u) for mod, fn, line, o, u in survivors if (mod, fn) == key]
        votes: dict = {}
        for line, o, u in listed:
            for d in {r["line"] - line for r in by_fn.get(key, []) if same(r, o, u)}:
                votes[d] = votes.get(d, 0) + 1
        shift_of[key] = min(votes, key=lambda d: (-votes[d], abs(d), d)) if votes else 0
    shifted: dict = {}
    for mod, fn, line, orig, mut in survivors:
        cands = [r for r in by_fn.get((mod, fn), []) if r["outcome"] == "killed" and same(r, orig, mut)]
        if not cands:
            problems.append(f"survivor not found in today's mutants: {mod}:{fn} line {line} `{orig}` -> `{mut}`")
            continue
        # on the line the function's shift gives, else the nearest such mutant
        want = line + shift_of[(mod, fn)]
        pick = min(cands, key=lambda r: (abs(r["line"] - want), r["line"]))
        if pick["line"] != line:
            shifted.setdefault((mod, fn, pick["line"] - line), []).append(line)
        pick["outcome"] = "survived"
    for (mod, fn, d), lines in sorted(shifted.items()):
        problems.append(f"note: {mod}:{fn}: {len(lines)} survivors listed {abs(d)} lines {'above' if d > 0 else 'below'} "
                        f"where today's code has them (lines {', '.join(map(str, lines))} in the report)")
    # what each run scored: when today's mutants outnumber the report's, the functions the
    # coverage rows named when each run began (main's history) in its scope; a function
    # named since was never run and gets no rows
    total = re.search(r"^All rule code: (\d+) mutants", K.game_blocks(text)[game], re.M)
    history = total is not None and int(total.group(1)) != len(recs)
    owner_of, unscored = {}, set()
    for mod, fn in K.rows_by_function(K.read_rows(game), target):
        owner = [run for run in runs if covers(run, mod, fn, target.modules)]
        if not owner:
            problems.append(f"no listed run covers {mod}:{fn}")
            continue
        owner_of[(mod, fn)] = owner[-1]
        if not history:
            continue
        base = commit_before(owner[-1])
        if (mod, fn) not in cited_at(base, game):
            unscored.add((mod, fn))
            n = sum((r["module"], r["function"]) == (mod, fn) for r in recs)
            problems.append(f"note: {mod}:{fn} was not named by a coverage row when its run ({owner[-1]['date']}) began "
                            f"(main at {base[:7]}): its {n} mutants were never run and are left out")
        elif function_text(base, target, mod, fn) != function_text("HEAD", target, mod, fn):
            problems.append(f"note: {mod}:{fn} differs between main when its run ({owner[-1]['date']}) began "
                            f"({base[:7]}) and now: check its sections' counts against the report")
    code = K.CodeIndex(target)
    for r in recs:
        key = (r["module"], r["function"])
        if key in owner_of and key not in unscored:
            r["_run"] = owner_of[key]
            r["game"] = game
            r["fn_line"], r["fn_hash"] = code.fingerprint(*key)
    rows = [r for r in recs if "_run" in r]
    if total is not None and int(total.group(1)) != len(rows):
        problems.append(f"the report counts {total.group(1)} mutants, the recovered rows {len(rows)}")
    functions = sorted(f"{m}:{f}" for m, f in set(owner_of) - unscored)
    info = dict(runs=runs, modules=sorted(target.modules), skipped_parts=skipped, functions=functions)
    return rows, info, problems


def commit_before(run: dict) -> str:
    """The commit of main (first parents) when ``run`` began: its date (the end) less its time."""
    end = datetime.datetime.strptime(run["date"], "%Y-%m-%d %H:%M").replace(tzinfo=datetime.timezone.utc)
    start = end - datetime.timedelta(seconds=run["wall_s"])
    return subprocess.run(["git", "rev-list", "-1", "--first-parent", f"--before={start.isoformat()}", "HEAD"],
                          cwd=K.ROOT, capture_output=True, text=True, check=True).stdout.strip()


_CITED: dict = {}


def cited_at(commit: str, game: str) -> set:
    """``(module, function)`` named by the coverage rows of ``game`` at ``commit``."""
    if (commit, game) not in _CITED:
        text = subprocess.run(["git", "show", f"{commit}:docs/rules_coverage.csv"], cwd=K.ROOT, capture_output=True,
                              text=True, check=True).stdout
        with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
            f.write(text)
        _CITED[(commit, game)] = set(K.rows_by_function(K.read_rows(game, Path(f.name)), K.TARGETS[game]))
        Path(f.name).unlink()
    return _CITED[(commit, game)]


def function_text(commit: str, target, mod: str, fn: str) -> str | None:
    src = subprocess.run(["git", "show", f"{commit}:{target.package}/{mod}"], cwd=K.ROOT, capture_output=True,
                         text=True).stdout
    span = K.definition_spans(src).get(fn) if src else None
    return "\n".join(src.splitlines()[span[0] - 1:span[1]]) if span else None


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=sorted(K.TARGETS), required=True)
    p.add_argument("--commit", required=True, help="the commit whose docs/rule_knockout.md to recover from")
    p.add_argument("--ledger", type=Path, help="where to write (default docs/rule_knockout/GAME.csv)")
    p.add_argument("--enumerated", type=Path,
                   help="JSON {items: [records with mutated], by_module: {...}} of an enumeration made before on the "
                        "same code (skips the enumeration, a few minutes)")
    a = p.parse_args(argv)
    if a.enumerated:
        data = json.loads(a.enumerated.read_text())
        zero = dict(operator=0, annotation=0, outside_rule_code=0)
        recs, skipped = data["items"], {m: data["by_module"].get(m, zero) for m in K.TARGETS[a.game].modules}
    else:
        recs, skipped = enumerate_today(a.game)
    rows, info, problems = recover(a.game, a.commit, recs, skipped, time.strftime("%Y-%m-%d"))
    led = a.ledger or K.ledger_path(a.game)
    K.write_ledger(a.game, rows, info, led)
    surv = sum(r["outcome"] == "survived" for r in rows)
    print(f"{led}: {len(rows)} mutants, {surv} survived, {len(info['runs'])} runs listed")
    for x in problems:
        print("  " + x)
    return 1 if any(not x.startswith("note:") for x in problems) else 0


if __name__ == "__main__":
    sys.exit(main())
