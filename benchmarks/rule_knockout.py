"""Rule knock-out check: mutation testing of the rule code, each mutant against the tests
that ``docs/rules_coverage.csv`` names for it.

    python benchmarks/rule_knockout.py --game invasion_malta --list          # count the mutants only
    python benchmarks/rule_knockout.py --game invasion_malta --jobs 2 --out out/knockout
    python benchmarks/rule_knockout.py --game invasion_malta --from out/knockout --write-doc docs/rule_knockout.md

Needs the ``mutation`` extra (``pip install -e '.[mutation]'``: cosmic-ray).

Method
------
1. The rows of ``docs/rules_coverage.csv`` for the game give, per printed rule, the code
   that implements it (``where``: ``file:function``) and the tests that show it (``test``).
2. cosmic-ray lists every mutant of the game's rule modules (:data:`TARGETS`): one
   operator applied at one place (``<`` to ``<=``, ``and`` to ``or``, a number plus or
   minus one, a ``for`` loop that never runs, ...; :data:`OPERATORS`).  A mutant counts
   when it lies inside a function that some row names; mutants in type annotations
   (never evaluated here) and in functions no row names are left out.
3. Each mutant is applied to its own scratch copy of the checkout (the checkout itself
   is never changed) and the tests named by every row that names its function are run
   with pytest (``-x``).  A failing or timed-out run kills the mutant; a passing run lets
   it survive.  ``--jobs`` copies run side by side.
4. Scores per rule section (``3.2`` gathers 3.2 and 3.21-3.26): mutants in the code the
   section's rows name, killed, survived.  A surviving mutant is either killed by a new
   test or explained in :data:`EXPLAINED` (an equivalent mutant, or code the position
   cannot reach); the run lists the survivors that are neither, and exits 1 when there
   are any.

The results (``mutants.csv``, ``sections.csv``, ``run.json``) go to ``--out``; the cosmic-ray
session database (``session.sqlite``) lies beside them, so cosmic-ray's own report tools can
read it too.

Adding a game: list its rule modules in :data:`TARGETS`.  numba-compiled functions cannot
be mutated through their compiled code: set ``env={"NUMBA_DISABLE_JIT": "1"}`` so the
Python source runs, or leave such modules out and say which rows that leaves unreached
(``excluded``).
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COVERAGE = ROOT / "docs" / "rules_coverage.csv"
#: Survivors explained (equivalent or unreachable), one TOML table per mutant or line.
EXPLAINED = Path(__file__).resolve().parent / "rule_knockout_explained.toml"


@dataclass(frozen=True)
class Target:
    """A game's rule code for the knock-out.

    Attributes
    ----------
    package : str
        Folder of the game's modules, relative to the checkout.
    modules : tuple of str
        Module file names (in ``package``) whose rule functions are mutated.
    excluded : dict
        Module file name -> why it is not mutated (listed in the report).
    env : dict
        Extra environment for the test runs (e.g. ``NUMBA_DISABLE_JIT``).
    """

    package: str
    modules: tuple
    excluded: dict = field(default_factory=dict)
    env: dict = field(default_factory=dict)


#: Game names as the rulebooks print them.
TITLES = {"invasion_malta": "Invasion: Malta", "island_of_death": "Island of Death"}

TARGETS = {
    "invasion_malta": Target(
        package="malta_sim/games/invasion_malta",
        modules=("activation.py", "efficiency.py", "grid.py", "movement.py", "sequence.py", "setup.py", "supply.py",
                 "terrain.py", "units.py", "weather.py", "zoc.py"),
        excluded={
            "engine.py": "the game loop: it calls the rule functions above; its own rows need whole games",
            "components.py": "reconstructed combat, bombardment, air, paradrop, naval transport, victory (not printed)",
            "data.py": "data loaders (their rows are checked by the data tests)",
        },
    ),
    "island_of_death": Target(
        package="malta_sim/iod/rules",
        modules=("airborne.py", "airfields.py", "ammunition_routes.py", "amphibious.py", "artillery.py",
                 "breakdown_reform.py", "coastal_guns.py", "column_shifts.py", "combat.py",
                 "combat_options.py", "militia.py", "morale.py", "movement.py", "one_hex_movement.py",
                 "organisation.py", "phase_end_checks.py", "retreat_advance.py", "solitaire.py",
                 "special_rules.py", "supply.py", "victory.py", "warships.py"),
        # Outside this package and not mutated: the sequence of play (iod/sequence.py), set-up
        # and static data (iod/setup.py, iod/static.py), the invasion's shared data
        # (iod/invasion.py) and the numba kernels (kernels/: their own exact and statistical
        # tests); the report names them per section ("also in, not mutated").
        # compiled rule functions run as Python, so that a mutant of their source takes effect
        env={"NUMBA_DISABLE_JIT": "1"},
    ),
}

#: cosmic-ray operators used: for each operator one natural replacement (a boundary moved,
#: a test negated, an arithmetic sign swapped), not every pair, so that a run fits on a
#: two-core machine and a survivor says something.
OPERATORS = (
    "core/NumberReplacer", "core/AddNot", "core/ReplaceAndWithOr", "core/ReplaceOrWithAnd",
    "core/ReplaceTrueWithFalse", "core/ReplaceFalseWithTrue", "core/ZeroIterationForLoop",
    "core/ReplaceBreakWithContinue", "core/ReplaceContinueWithBreak", "core/ExceptionReplacer",
    "core/ReplaceComparisonOperator_Lt_LtE", "core/ReplaceComparisonOperator_LtE_Lt",
    "core/ReplaceComparisonOperator_Gt_GtE", "core/ReplaceComparisonOperator_GtE_Gt",
    "core/ReplaceComparisonOperator_Eq_NotEq", "core/ReplaceComparisonOperator_NotEq_Eq",
    "core/ReplaceComparisonOperator_Is_IsNot", "core/ReplaceComparisonOperator_IsNot_Is",
    "core/ReplaceBinaryOperator_Add_Sub", "core/ReplaceBinaryOperator_Sub_Add",
    "core/ReplaceBinaryOperator_Mul_Add", "core/ReplaceBinaryOperator_Div_Mul",
    "core/ReplaceBinaryOperator_FloorDiv_Mul", "core/ReplaceBinaryOperator_Mod_FloorDiv",
    "core/ReplaceBinaryOperator_Pow_Mul", "core/ReplaceBinaryOperator_BitAnd_BitOr",
    "core/ReplaceBinaryOperator_BitOr_BitAnd", "core/ReplaceBinaryOperator_BitXor_BitOr",
    "core/ReplaceBinaryOperator_LShift_RShift", "core/ReplaceBinaryOperator_RShift_LShift",
    "core/ReplaceUnaryOperator_Delete_Not", "core/ReplaceUnaryOperator_Delete_USub",
    "core/ReplaceUnaryOperator_Delete_Invert",
)


# --- the coverage rows --------------------------------------------------------------------------------

def section_of(rule: str) -> str:
    """Rule section of a printed rule number: ``'3.24'`` -> ``'3.2'``, ``'8.4'`` -> ``'8.4'``."""
    major, _, minor = rule.partition(".")
    return f"{major}.{minor[:1] or '0'}"


def read_rows(game: str, path: Path = COVERAGE) -> list[dict]:
    """The coverage rows of ``game``, each with ``where`` and ``test`` split into lists."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["game"] == game]
    for r in rows:
        r["where_list"] = [] if r["where"] in ("none", "todo") else [p.strip() for p in r["where"].split(";") if p.strip()]
        r["test_list"] = [] if r["test"] in ("none", "todo") else [p.strip() for p in r["test"].split(";") if p.strip()]
    return rows


def rows_by_function(rows: list[dict], target: Target) -> dict:
    """``(module file name, qualified name) -> [row, ...]`` for the functions of ``target.modules``."""
    out: dict = {}
    for r in rows:
        for w in r["where_list"]:
            path, _, func = w.partition(":")
            p = Path(path)
            if str(p.parent) == target.package and p.name in target.modules and func:
                out.setdefault((p.name, func), []).append(r)
    return out


# --- where a mutant lies ------------------------------------------------------------------------------

def function_spans(source: str) -> list[tuple]:
    """``(first line, last line, qualified name)`` of every function and method in ``source``
    (nested functions as ``outer.inner``, methods as ``Class.method``), outermost first."""
    out = []

    def walk(node, prefix):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + ch.name
                first = min([ch.lineno] + [d.lineno for d in ch.decorator_list])
                out.append((first, ch.end_lineno, name))
                walk(ch, name + ".")
            elif isinstance(ch, ast.ClassDef):
                walk(ch, prefix + ch.name + ".")
            else:
                walk(ch, prefix)

    walk(ast.parse(source), "")
    return out


def annotation_spans(source: str) -> list[tuple]:
    """``((line, col), (end line, end col))`` of every annotation in ``source``: with
    ``from __future__ import annotations`` they are never evaluated, so mutants there
    are left out."""
    spans = []
    for node in ast.walk(ast.parse(source)):
        anns = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            anns = [x.annotation for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x is not None]
            anns.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            anns = [node.annotation]
        for x in anns:
            if x is not None:
                spans.append(((x.lineno, x.col_offset), (x.end_lineno, x.end_col_offset)))
    return spans


def locate(spans: list[tuple], cited: set, line: int) -> str | None:
    """The cited name in ``cited`` that holds ``line``: the innermost enclosing function
    if it is cited, else the nearest cited enclosing function or class (a row naming a
    class, ``grid.py:IMGrid``, covers its methods)."""
    inside = [s for s in spans if s[0] <= line <= s[1]]
    if not inside:
        return None
    innermost = max(inside, key=lambda s: s[0])[2].split(".")
    for k in range(len(innermost), 0, -1):
        name = ".".join(innermost[:k])
        if name in cited:
            return name
    return None


def in_spans(spans: list[tuple], pos: tuple) -> bool:
    return any(a <= tuple(pos) < b for a, b in spans)


# --- explanations ---------------------------------------------------------------------------------------

def load_explained(path: Path = EXPLAINED) -> list[dict]:
    """Entries ``{game, module, function, original, mutated (optional), kind, reason}``."""
    if not path.exists():
        return []
    with open(path, "rb") as f:
        return tomllib.load(f).get("survivor", [])


def explanation_for(m: dict, explained: list[dict]) -> dict | None:
    """The entry explaining surviving mutant ``m`` (same game, module, function and original
    line, and the same mutated line when the entry gives one), or None."""
    for e in explained:
        if (e.get("game", m["game"]) == m["game"] and e["module"] == m["module"] and e["function"] == m["function"]
                and e["original"].strip() == m["original"].strip()
                and ("mutated" not in e or e["mutated"].strip() == m["mutated"].strip())):
            return e
    return None


# --- scores ------------------------------------------------------------------------------------------------

def section_scores(mutants: list[dict], rows: list[dict], target: Target, explained: list[dict]) -> list[dict]:
    """One record per rule section of ``rows``.

    ``mutants`` are result records (``module, function, outcome``, ...).  A section's
    mutants are those in the functions its rows name; ``killed`` counts failing and
    timed-out test runs.  Sections whose rows name no mutated code say why.
    """
    by_fn: dict = {}
    for m in mutants:
        by_fn.setdefault((m["module"], m["function"]), []).append(m)
    sections: dict = {}
    for r in rows:
        sec = sections.setdefault(section_of(r["rule"]), dict(rules=[], fns=set(), other=set()))
        sec["rules"].append(r["rule"])
        for w in r["where_list"]:
            path, _, func = w.partition(":")
            p = Path(path)
            if str(p.parent) == target.package and p.name in target.modules:
                sec["fns"].add((p.name, func))
            else:
                sec["other"].add(p.name)
    out = []
    for name in sorted(sections, key=lambda s: tuple(int(x) for x in s.split("."))):
        sec = sections[name]
        ms = [m for fn in sorted(sec["fns"]) for m in by_fn.get(fn, [])]
        killed = sum(m["outcome"] in ("killed", "timeout") for m in ms)
        surv = [m for m in ms if m["outcome"] == "survived"]
        expl = [m for m in surv if explanation_for(m, explained)]
        other = sorted(x for x in sec["other"] if x)
        note = ""
        if not ms:
            parts = [f"{x} ({target.excluded.get(x, 'not a rule module')})" for x in other]
            parts += [f"{mod}:{fn} has no mutant" for mod, fn in sorted(sec["fns"])]
            note = "; ".join(parts) if parts else "no code (rule needs none)"
        out.append(dict(section=name, rules=" ".join(sec["rules"]), not_mutated=" ".join(other),
                        functions=len(sec["fns"]), mutants=len(ms),
                        killed=killed, survived=len(surv), explained=len(expl), unexplained=len(surv) - len(expl),
                        errors=sum(m["outcome"] not in ("killed", "timeout", "survived") for m in ms),
                        score=round(killed / len(ms), 3) if ms else None, note=note))
    return out


# --- running ------------------------------------------------------------------------------------------------

def tracked_files(root: Path) -> list[str]:
    """Files of the checkout (tracked, plus untracked ones git does not ignore)."""
    r = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=root, capture_output=True, text=True,
                       check=True)
    return [x for x in r.stdout.splitlines() if x]


def scratch_copy(root: Path, dest: Path, files: list[str]) -> Path:
    for rel in files:
        src = root / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    return dest


def pytest_command(copy: Path, tests: list[str], extra: tuple = ()) -> list[str]:
    """The test command run in ``copy`` (``env -C`` so that cosmic-ray, which runs it, needs no cwd)."""
    return ["env", "-C", str(copy), f"PYTHONPATH={copy}", "PYTHONDONTWRITEBYTECODE=1", sys.executable, "-m", "pytest",
            "-x", "-q", "-p", "no:cacheprovider", *extra, *tests]


def baseline(copy: Path, tests: list[str], env: dict) -> dict:
    """Run every named test once unmutated in ``copy``; returns seconds per test id.

    Raises
    ------
    SystemExit
        If a test fails, or the copy's package is not the one imported.
    """
    e = dict(os.environ, **env)
    probe = subprocess.run(["env", "-C", str(copy), f"PYTHONPATH={copy}", sys.executable, "-c",
                            "import malta_sim; print(malta_sim.__file__)"], capture_output=True, text=True, env=e)
    if not probe.stdout.strip().startswith(str(copy)):
        raise SystemExit(f"the scratch copy's package is not the one imported: {probe.stdout.strip()} {probe.stderr[-300:]}")
    xml = copy / "baseline.xml"
    r = subprocess.run(pytest_command(copy, tests, ("--junitxml", str(xml))), capture_output=True, text=True, env=e)
    if r.returncode != 0:
        raise SystemExit("the named tests do not pass unmutated:\n" + r.stdout[-3000:])
    times = {}
    for tc in ET.parse(xml).getroot().iter("testcase"):
        path = tc.get("classname", "").replace(".", "/") + ".py"
        times[f"{path}::{tc.get('name')}"] = float(tc.get("time", 0))
    return times


def enumerate_mutants(target: Target, root: Path, rows: list[dict], db_path: Path) -> tuple[list, dict]:
    """cosmic-ray's work items for the target's modules, kept when their operator is in
    :data:`OPERATORS` and they lie in a function some row names (not in an annotation).

    Returns
    -------
    (items, skipped)
        ``items``: ``(work item, record)`` pairs; ``skipped``: counts of what was left out.
    """
    from cosmic_ray.commands.init import init
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    fns = rows_by_function(rows, target)
    paths = [Path(target.package) / m for m in target.modules]
    info = {}
    for p in paths:
        src = (root / p).read_text()
        info[p.name] = (function_spans(src), annotation_spans(src), src.splitlines())
    keep, skipped = [], dict(operator=0, annotation=0, outside_rule_code=0)
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with use_db(db_path, WorkDB.Mode.create) as db:
            init(paths, db, {})
            for item in list(db.work_items):
                mu = item.mutations[0]
                mod = Path(mu.module_path).name
                spans, anns, lines = info[mod]
                cited = {f for (m, f) in fns if m == mod}
                why = None
                if mu.operator_name not in OPERATORS:
                    why = "operator"
                elif in_spans(anns, mu.start_pos):
                    why = "annotation"
                else:
                    fn = locate(spans, cited, mu.start_pos[0])
                    if fn is None:
                        why = "outside_rule_code"
                if why:
                    skipped[why] += 1
                    db.set_result(item.job_id, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
                    continue
                rs = fns[(mod, fn)]
                tests = sorted({t for r in rs for t in r["test_list"]})
                keep.append((item, dict(job_id=item.job_id, module=mod, function=fn,
                                        rules=" ".join(sorted({r["rule"] for r in rs}, key=lambda x: [int(y) for y in x.split(".")])),
                                        operator=mu.operator_name.split("/", 1)[1], occurrence=mu.occurrence,
                                        line=mu.start_pos[0], col=mu.start_pos[1],
                                        original=lines[mu.start_pos[0] - 1].strip(), tests=tests)))
    finally:
        os.chdir(cwd)
    return keep, skipped


def mutated_line(root: Path, rec: dict, item) -> str:
    """The mutated text of the mutant's first line (for the report and the explanations)."""
    import cosmic_ray.plugins
    from cosmic_ray.mutating import mutate_code

    mu = item.mutations[0]
    op = cosmic_ray.plugins.get_operator(mu.operator_name)(**(mu.operator_args or {}))
    code = mutate_code((root / mu.module_path).read_text(), op, mu.occurrence)
    if code is None:
        return ""
    lines = code.splitlines()
    i = rec["line"] - 1
    return lines[i].strip() if i < len(lines) else ""


def run(game: str, jobs: int, out: Path, only: str | None = None) -> int:
    """Enumerate, run and score the mutants of ``game``; writes ``out``/mutants.csv,
    sections.csv and run.json.  Returns the number of unexplained survivors."""
    from attrs import evolve
    from cosmic_ray.mutating import mutate_and_test
    from cosmic_ray.work_db import WorkDB, use_db

    target = TARGETS[game]
    rows = read_rows(game)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    files = tracked_files(ROOT)
    work = Path(tempfile.mkdtemp(prefix="rule_knockout_"))
    try:
        src_copy = scratch_copy(ROOT, work / "src", files)  # cosmic-ray enumerates on a copy, never the checkout
        db_path = out / "session.sqlite"
        if db_path.exists():
            db_path.unlink()
        items, skipped = enumerate_mutants(target, src_copy, rows, db_path)
        if only:
            mod, _, fn = only.partition(":")
            items = [(it, r) for it, r in items if r["module"] == mod and (not fn or r["function"] == fn)]
        for it, rec in items:
            rec["mutated"] = mutated_line(src_copy, rec, it)
        copies = [scratch_copy(ROOT, work / f"w{k}", files) for k in range(max(1, jobs))]
        all_tests = sorted({t for _, r in items for t in r["tests"]})
        t_base = time.time()
        times = baseline(copies[0], all_tests, target.env) if all_tests else {}
        t_base = time.time() - t_base
        for k, v in target.env.items():
            os.environ[k] = v  # cosmic-ray passes the environment on to the test runs
        free: queue.Queue = queue.Queue()
        for c in copies:
            free.put(c)

        def one(pair):
            item, rec = pair
            copy = free.get()
            try:
                mu = item.mutations[0]
                spec = evolve(mu, module_path=copy / mu.module_path)
                timeout = 20 + 5 * sum(times.get(t, 1.0) for t in rec["tests"])
                cmd = " ".join(pytest_command(copy, rec["tests"]))
                t = time.time()
                res = mutate_and_test([spec], cmd, timeout)
                return item, rec, res, time.time() - t
            finally:
                free.put(copy)

        results = []
        with use_db(db_path, WorkDB.Mode.open) as db, ThreadPoolExecutor(max_workers=len(copies)) as ex:
            futs = [ex.submit(one, p) for p in items]
            for n, f in enumerate(as_completed(futs), 1):
                item, rec, res, dt = f.result()
                db.set_result(item.job_id, res)
                if res.test_outcome is None:
                    outcome = str(res.worker_outcome.value)
                elif res.test_outcome.value == "killed":
                    outcome = "timeout" if res.output == "timeout" else "killed"
                else:
                    outcome = res.test_outcome.value
                rec = dict(rec, game=game, outcome=outcome, seconds=round(dt, 2))
                results.append(rec)
                if n % 25 == 0 or n == len(futs):
                    print(f"{n}/{len(futs)} mutants, {time.time() - t0:.0f} s", file=sys.stderr, flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results.sort(key=lambda r: (r["module"], r["line"], r["col"], r["operator"], r["occurrence"]))
    explained = load_explained()
    for r in results:
        e = explanation_for(r, explained) if r["outcome"] == "survived" else None
        r["explained"] = e["kind"] if e else ""
    cols = ["game", "module", "function", "rules", "line", "col", "operator", "occurrence", "original", "mutated",
            "outcome", "explained", "seconds", "tests"]
    with open(out / "mutants.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for r in results:
            w.writerow({k: (";".join(r[k]) if k == "tests" else r[k]) for k in cols})
    secs = section_scores(results, rows, target, explained)
    with open(out / "sections.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(secs[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(secs)
    wall = time.time() - t0
    summary = dict(game=game, jobs=len(copies), mutants=len(results), skipped=skipped, baseline_s=round(t_base, 1),
                   wall_s=round(wall, 1), cpu_count=os.cpu_count(), load_average=os.getloadavg()[0],
                   only=only, date=time.strftime("%Y-%m-%d %H:%M"))
    (out / "run.json").write_text(json.dumps(summary, indent=2))
    unexplained = [r for r in results if r["outcome"] == "survived" and not r["explained"]]
    print(f"{len(results)} mutants in {wall:.0f} s: "
          f"{sum(r['outcome'] in ('killed', 'timeout') for r in results)} killed, "
          f"{sum(r['outcome'] == 'survived' for r in results)} survived "
          f"({len(unexplained)} unexplained)")
    for r in unexplained:
        print(f"  {r['module']}:{r['line']} {r['function']} [{r['operator']}] {r['original']}  ->  {r['mutated']}")
    return len(unexplained)


# --- the report page -------------------------------------------------------------------------------------

def read_results(out: Path) -> tuple[list, list, dict]:
    with open(out / "mutants.csv", newline="", encoding="utf-8") as f:
        ms = list(csv.DictReader(f))
    for m in ms:
        m["tests"] = m["tests"].split(";") if m["tests"] else []
    with open(out / "sections.csv", newline="", encoding="utf-8") as f:
        secs = list(csv.DictReader(f))
    return ms, secs, json.loads((out / "run.json").read_text())


def write_doc(game: str, out: Path, doc: Path) -> None:
    """Render ``doc`` (markdown) from a finished run in ``out`` and :data:`EXPLAINED`."""
    target = TARGETS[game]
    ms, _, run_info = read_results(out)
    explained = load_explained()
    secs = section_scores(ms, read_rows(game), target, explained)
    lines = [
        "# Rule knock-out (mutation testing of the rule code)",
        "",
        "Does each rule's test fail when the rule is wrong?  `benchmarks/rule_knockout.py` answers by mutation testing with",
        "[cosmic-ray](https://pypi.org/project/cosmic-ray/): it changes the rule code one small edit at a time (a mutant) and runs",
        "the tests that `docs/rules_coverage.csv` names for that code.  A mutant is *killed* when a named test fails (or runs past",
        "its time limit) and *survives* when they all pass.  Every survivor is either killed by a new test or explained below.",
        "",
        "```",
        "pip install -e '.[mutation]'",
        f"python benchmarks/rule_knockout.py --game {game} --jobs 2 --out out/knockout",
        f"python benchmarks/rule_knockout.py --game {game} --from out/knockout --write-doc docs/rule_knockout.md",
        "```",
        "",
        "How it works (the script's docstring has the details):",
        "",
        "- The mutants come from cosmic-ray's operators, one natural replacement each (`<` to `<=`, `==` to `!=`, `and` to `or`,",
        "  `+` to `-`, a number plus or minus one, `not` added or removed, a `for` loop that never runs, `break` and `continue`",
        "  swapped, `True` and `False` swapped).  Only mutants inside a function that a coverage row names count; mutants in",
        "  type annotations (never evaluated) are left out.",
        "- Each mutant runs against the tests of every row that names its function, in a scratch copy of the checkout, with",
        "  `--jobs` copies side by side.  The checkout itself is never changed.",
        "- A section's score is killed / mutants, over the mutants in the code its rows name.  A function named by several",
        "  sections counts in each.",
        "",
        f"## {TITLES.get(game, game)}, scores per rule section",
        "",
        f"Last full run: {run_info['date']}, {run_info['mutants']} mutants, {run_info['jobs']} jobs, "
        f"{run_info['wall_s'] / 60:.1f} minutes on {run_info['cpu_count']} cores (load average {run_info['load_average']:.1f} at the end).",
        f"Left out: {run_info['skipped']['outside_rule_code']} mutants in code no row names, "
        f"{run_info['skipped']['annotation']} in annotations, {run_info['skipped']['operator']} of the operators not used.",
        "",
        "The last column names modules that some of the section's rows also point to but that are not mutated (see below).",
        "",
        "| section | rules | mutants | killed | survived (explained) | unexplained | score | also in, not mutated |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for s in secs:
        if int(s["mutants"]):
            lines.append(f"| {s['section']} | {s['rules']} | {s['mutants']} | {s['killed']} | {s['survived']} ({s['explained']}) "
                         f"| {s['unexplained']} | {float(s['score']):.2f} | {s['not_mutated']} |")
    total = len(ms)
    killed = sum(m["outcome"] in ("killed", "timeout") for m in ms)
    surv = [m for m in ms if m["outcome"] == "survived"]
    lines += ["", f"All rule code: {total} mutants, {killed} killed ({killed / max(1, total):.0%}), {len(surv)} survived, "
              f"{sum(1 for m in surv if not explanation_for(m, explained))} unexplained.", ""]
    unreached = [s for s in secs if not int(s["mutants"])]
    if unreached:
        lines += ["Sections with no mutated code:", "", "| section | rules | why |", "|---|---|---|"]
        lines += [f"| {s['section']} | {s['rules']} | {s['note']} |" for s in unreached]
        lines.append("")
    if target.excluded:
        lines += ["Modules not mutated:", ""]
        lines += [f"- `{target.package}/{k}`: {v}." for k, v in target.excluded.items()]
        lines.append("")
    if not target.env.get("NUMBA_DISABLE_JIT"):
        lines += ["No rule module of this game is compiled with numba, so every mutant runs as plain Python.", ""]
    lines += ["## Surviving mutants and why they may survive", "",
              "Equivalent: the mutant computes the same result as the original for every input the rule code can receive.",
              "Unreachable: the mutated code only runs for inputs the callers never pass (stated in each case).", ""]
    groups: dict = {}
    for m in surv:
        e = explanation_for(m, explained)
        groups.setdefault((m["module"], m["function"]), []).append((m, e))
    for (mod, fn), lst in sorted(groups.items()):
        lines.append(f"**`{mod}` `{fn}`**")
        lines.append("")
        for m, e in lst:
            why = f"{e['kind']}: {e['reason']}" if e else "UNEXPLAINED"
            lines.append(f"- line {m['line']}, `{m['original']}` → `{m['mutated']}`: {why}")
        lines.append("")
    doc.write_text("\n".join(lines).rstrip() + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(TARGETS), default="invasion_malta")
    p.add_argument("--jobs", type=int, default=2, help="scratch copies run side by side")
    p.add_argument("--out", type=Path, default=Path("out/knockout"))
    p.add_argument("--only", help="MODULE[:FUNCTION], e.g. zoc.py:zoc_map (a partial run)")
    p.add_argument("--list", action="store_true", help="count the mutants per module and function, run nothing")
    p.add_argument("--from", dest="from_", type=Path, help="a finished run's folder (with --write-doc)")
    p.add_argument("--write-doc", type=Path, help="write the markdown report of the run in --from")
    a = p.parse_args(argv)
    if a.write_doc:
        write_doc(a.game, a.from_ or a.out, a.write_doc)
        return 0
    if a.list:
        target = TARGETS[a.game]
        with tempfile.TemporaryDirectory() as d:
            src = scratch_copy(ROOT, Path(d) / "src", tracked_files(ROOT))
            items, skipped = enumerate_mutants(target, src, read_rows(a.game), Path(d) / "s.sqlite")
        counts: dict = {}
        for _, r in items:
            counts[(r["module"], r["function"])] = counts.get((r["module"], r["function"]), 0) + 1
        for (mod, fn), n in sorted(counts.items()):
            print(f"{n:5d}  {mod}:{fn}")
        print(f"{len(items)} mutants; left out: {skipped}")
        return 0
    return 1 if run(a.game, a.jobs, a.out, a.only) else 0


if __name__ == "__main__":
    sys.exit(main())
