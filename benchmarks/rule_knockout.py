"""Rule knock-out check: mutation testing of the rule code, each mutant against the tests
that ``docs/rules_coverage.csv`` names for it.

    python benchmarks/rule_knockout.py --game invasion_malta --list          # count the mutants only
    python benchmarks/rule_knockout.py --game invasion_malta --jobs 2 --out out/knockout
    python benchmarks/rule_knockout.py --game island_of_death --only victory.py,morale.py --out out/ko   # some modules
    # lay the run over the game's ledger, write the ledger back and render the report from it:
    python benchmarks/rule_knockout.py --game island_of_death --ledger --from out/ko --write-doc docs/rule_knockout.md
    python benchmarks/rule_knockout.py --game invasion_malta --from out/knockout --write-doc docs/rule_knockout.md
    python benchmarks/rule_knockout.py --game island_of_death --sample 60 --jobs 1 --out out/ko_sample  # time a run

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
3. Each job (``--jobs``, side by side) has one scratch copy of the checkout at a fixed path
   (the checkout itself is never changed) and its own numba cache folder
   (``NUMBA_CACHE_DIR``, which ``malta_sim.numba_cache`` leaves as it is: its default folder
   is named after a hash of the package's source, new for every mutant).  Each mutant of
   the job is applied to its one file in that copy, the tests named by every row that names
   its function are run with pytest (``-x``), and the file is put back byte for byte, with
   its modification time.  A failing or timed-out run kills the mutant; a passing run lets
   it survive.  The test runs are forks of the job's worker (``knockout_worker.py``), a
   process that imported the third-party modules the tests use (pytest, numpy, pandas,
   scipy, numba, hypothesis: about two CPU-seconds a run) but never the package or the
   tests, which each run imports from the copy; ``--fresh-python`` starts each run as a
   new ``python -m pytest`` instead (same outcomes, slower).
4. JIT on or off (:func:`jit_plan`).  numba loads a compiled function from its cache while
   the function's own source file is unchanged, and a compiled function carries a copy of
   every compiled function it calls, also from other modules (and of the module globals it
   reads).  So:

   - a mutant in a module that defines no compiled function (``combat.py``,
     ``organisation.py``, ...), in a function that does not run at import time, runs with
     the JIT ON: the mutated code is Python either way, and every compiled kernel, loaded
     from the job's cache (warmed once by the unmutated baseline run), is the unchanged one;
   - every other mutant runs with ``NUMBA_DISABLE_JIT=1``, all code as Python, as the whole
     run once did: a mutant inside a compiled function would otherwise be missed wherever a
     kernel of another module holds a stale compiled copy of it, and a mutant elsewhere in
     a module with kernels would recompile that module's kernels for every mutant.

   ``--all-as-python`` runs every mutant as Python (to compare).
5. Scores per rule section (``3.2`` gathers 3.2 and 3.21-3.26): mutants in the code the
   section's rows name, killed, survived.  A surviving mutant is either killed by a new
   test or explained in :data:`EXPLAINED` (an equivalent mutant, or code the position
   cannot reach); the run lists the survivors that are neither, and exits 1 when there
   are any.

Cost (Island of Death, 3131 mutants, measured on 2 cores shared with other work, load
average 4-6).  A test run started as a new ``python -m pytest`` (``--fresh-python``) took
5.2 s a mutant for ``victory.surrender_phase`` and 9.8 s for ``organisation.formation_changes``
with every mutant as Python; of the fixed part about two CPU-seconds are imports (hypothesis
1.3 s and scipy 1.0 s of them).  The named tests themselves are short: all 165 take 21 s as
Python.  With the worker and the JIT plan: 1.7 and 4.4 s; over a random sample of 60 mutants
of the whole game (``--sample 60``) 2.9 s a mutant and 1.2 CPU-seconds in the test run.  Fixed
costs per run: listing the mutants about a minute, the baseline (compiling the kernels the
named tests use, once per job) 2-3 minutes.

The results (``mutants.csv``, ``sections.csv``, ``run.json``) go to ``--out``; the cosmic-ray
session database (``session.sqlite``) lies beside them, so cosmic-ray's own report tools can
read it too.

The ledger
----------
A run folder lives outside the repository, and a full Island of Death run costs about five
CPU-hours, so the results are also kept in the repository, one ledger per game:
``docs/rule_knockout/GAME.csv`` (:func:`write_ledger`; one row per mutant counted in the
report: place, operator, outcome, JIT, the run it comes from, its function's first line and
fingerprint, and the original and mutated line of the mutants that were not killed) and
``GAME.json`` beside it (the modules it holds, the mutants left out per module, the records
of the runs its rows come from).  ``--from`` takes a ledger (its ``.csv``) like a run folder,
in any place of the list (:func:`combine_runs`: each later entry replaces what the earlier
ones hold of the code it ran).  ``--ledger [CSV]`` updates one (by default the game's): it is
read first, the runs of ``--from`` are laid over it, it is written back, and ``--write-doc``
renders the report from it, so the report is always the ledger's:

    python benchmarks/rule_knockout.py --game island_of_death --ledger --from out/ko_a out/ko_b --write-doc docs/rule_knockout.md
    python benchmarks/rule_knockout.py --game island_of_death --ledger --write-doc docs/rule_knockout.md  # the ledger alone

A run of single functions (``--only victory.py:surrender_phase``) may go over the ledger, which
holds their modules whole.  ``--write-doc`` without ``--ledger`` and without the ledger in
``--from`` renders only the runs named (and says so on stderr); the ledger is unchanged.

Each row keeps its function's fingerprint (:meth:`CodeIndex.fingerprint`) from the code it
ran on; the report lists the functions whose code has changed since (their rows are results
of the old code until they run again), and the line numbers of an unchanged function that
moved follow it (:func:`check_code`).  Run folders written before runs recorded
fingerprints take the current one when every mutant's original line still reads the same.
The first ledgers were recovered from the report itself (``rule_knockout_recover.py``); their
run records say so.

Adding a game: list its rule modules in :data:`TARGETS`.  Modules with numba-compiled
functions need nothing more (their mutants run as Python, step 4); ``env={"NUMBA_DISABLE_JIT":
"1"}`` runs every mutant so.
"""

from __future__ import annotations

import argparse
import ast
import csv
import hashlib
import json
import os
import queue
import random
import shlex
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
        Extra environment for the test runs (``NUMBA_DISABLE_JIT=1`` runs every mutant as
        Python; by default only those :func:`jit_plan` cannot run compiled).
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
        # the mutants of a module with compiled rule functions run as Python, so that they
        # take effect; the others keep the compiled kernels (jit_plan)
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


#: Decorators (their last name: ``nb.njit(cache=True)`` -> ``njit``) whose function numba compiles.
COMPILING_DECORATORS = frozenset({"njit", "jit", "vectorize", "guvectorize", "cfunc", "stencil", "generated_jit",
                                  "overload", "overload_method", "intrinsic"})


def _last_name(node) -> str:
    node = node.func if isinstance(node, ast.Call) else node
    return node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")


def compiled_functions(source: str) -> list[str]:
    """Names of the functions in ``source`` that a numba decorator compiles."""
    return [n.name for n in ast.walk(ast.parse(source)) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(_last_name(d) in COMPILING_DECORATORS for d in n.decorator_list)]


def import_time_calls(source: str) -> set:
    """Names called while ``source`` is imported: calls outside function bodies (module and
    class statements, decorators, default values), by their last name."""
    names: set = set()

    def visit(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            a = node.args
            for x in getattr(node, "decorator_list", []) + a.defaults + [d for d in a.kw_defaults if d is not None]:
                visit(x)
            return
        if isinstance(node, ast.Call):
            names.add(_last_name(node))
        for ch in ast.iter_child_nodes(node):
            visit(ch)

    visit(ast.parse(source))
    return names


def jit_plan(target: Target, root: Path) -> tuple[dict, set]:
    """Which mutants of ``target`` may run with the JIT on, in the checkout ``root``.

    With the JIT on, numba loads each compiled function from its cache as long as the
    function's own source file is unchanged, and a compiled function carries inside it a
    copy of every compiled function it calls (also those of other modules) and the values
    of the module globals it reads.  So a mutant takes effect with the JIT on, and cannot
    leave a compiled copy of itself in the cache, only when it lies in a module that
    defines no compiled function, in a function that does not run at import time (its
    result could be frozen into a compiled function as a global).

    Returns
    -------
    (as_python, at_import)
        ``as_python``: module file name -> why its mutants run with ``NUMBA_DISABLE_JIT=1``
        (absent: the JIT stays on); ``at_import``: the names called anywhere in the package
        while it is imported (:func:`import_time_calls`).
    """
    at_import: set = set()
    for path in sorted((root / "malta_sim").rglob("*.py")):
        at_import |= import_time_calls(path.read_text())
    as_python = {}
    for mod in target.modules:
        comp = compiled_functions((root / target.package / mod).read_text())
        if target.env.get("NUMBA_DISABLE_JIT"):
            as_python[mod] = "the target runs every test as Python"
        elif comp:
            as_python[mod] = f"defines compiled functions ({', '.join(comp[:3])}{', ...' if len(comp) > 3 else ''})"
    return as_python, at_import


def jit_on(plan: tuple[dict, set], module: str, function: str) -> bool:
    """Whether the mutants of ``module:function`` run with the JIT on (see :func:`jit_plan`)."""
    as_python, at_import = plan
    # a nested function or method runs at import when its enclosing function or class is called then
    return module not in as_python and not set(function.split(".")) & at_import


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
                        score=round(killed / len(ms), 3) if ms else None, note=note,
                        where=" ".join(sorted(f"{mod}:{fn}" for mod, fn in sec["fns"]))))
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


def run_env(cache: Path, jit: bool, env: dict) -> list[str]:
    """``env`` arguments of a test run: the job's own numba cache folder (``NUMBA_CACHE_DIR``,
    which ``malta_sim.numba_cache`` leaves as it is), the JIT on or off, and the target's
    extra environment."""
    out = ["-u", "MALTA_SIM_NUMBA_CACHE_SET", "-u", "NUMBA_DISABLE_JIT", f"NUMBA_CACHE_DIR={cache}"]
    if not jit:
        out.append("NUMBA_DISABLE_JIT=1")
    return out + [f"{k}={v}" for k, v in env.items()]


def pytest_command(copy: Path, tests: list[str], extra: tuple = (), env: tuple = ()) -> list[str]:
    """The test command run in ``copy`` (``env -C`` so that cosmic-ray, which runs it, needs no
    cwd; ``env`` from :func:`run_env`, so that side-by-side jobs need no shared environment)."""
    return ["env", "-C", str(copy), *env, f"PYTHONPATH={copy}", "PYTHONDONTWRITEBYTECODE=1", sys.executable, "-m",
            "pytest", "-x", "-q", "-p", "no:cacheprovider", *extra, *tests]


def baseline(copy: Path, tests: list[str], env: tuple) -> dict:
    """Run every named test once unmutated in ``copy``; returns seconds per test id.

    Raises
    ------
    SystemExit
        If a test fails, or the copy's package is not the one imported.
    """
    probe = subprocess.run(["env", "-C", str(copy), *env, f"PYTHONPATH={copy}", sys.executable, "-c",
                            "import malta_sim; print(malta_sim.__file__)"], capture_output=True, text=True)
    if not probe.stdout.strip().startswith(str(copy)):
        raise SystemExit(f"the scratch copy's package is not the one imported: {probe.stdout.strip()} {probe.stderr[-300:]}")
    xml = copy / "baseline.xml"
    r = subprocess.run(pytest_command(copy, tests, ("--junitxml", str(xml)), env), capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("the named tests do not pass unmutated:\n" + r.stdout[-3000:])
    times: dict = {}
    for tc in ET.parse(xml).getroot().iter("testcase"):
        # parametrized cases add up under the test id that the coverage rows name
        path = tc.get("classname", "").replace(".", "/") + ".py"
        key = f"{path}::{tc.get('name').split('[')[0]}"
        times[key] = times.get(key, 0.0) + float(tc.get("time", 0))
    xml.unlink()
    return times


WORKER = Path(__file__).resolve().parent / "knockout_worker.py"


def env_parts(env: list[str]) -> tuple[list, dict]:
    """:func:`run_env` arguments as ``(names to unset, values to set)``."""
    unset = [env[i + 1] for i, x in enumerate(env) if x == "-u"]
    values = dict(x.split("=", 1) for i, x in enumerate(env) if "=" in x and (i == 0 or env[i - 1] != "-u"))
    return unset, values


class Worker:
    """One job's test runner (``knockout_worker.py``): the third-party modules the tests use
    are imported once, and every test run is a fork of that process (see its docstring)."""

    def __init__(self, preload: list[str], env: list[str], log: Path):
        self.log = log
        self.proc = subprocess.Popen(["env", *env, sys.executable, str(WORKER), "--preload", *preload],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def run(self, copy: Path, tests: list[str], env: list[str], timeout: float) -> tuple[int | None, str]:
        """Run ``tests`` in ``copy``; returns (exit status or None after a timeout, output).
        The run's CPU seconds are left in ``self.cpu_s``."""
        unset, values = env_parts(env)
        job = dict(cwd=str(copy), args=["-x", "-q", "-p", "no:cacheprovider", *tests], unset=unset,
                   env=dict(values, PYTHONDONTWRITEBYTECODE="1"), timeout=timeout, log=str(self.log))
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"knockout_worker stopped (exit {self.proc.poll()})")
        r = json.loads(line)
        self.cpu_s = r.get("cpu_s")
        return r["rc"], ("timeout" if r["timeout"] else self.log.read_text(errors="replace")[-5000:])

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def test_in_worker(worker: Worker, spec, copy: Path, tests: list[str], env: list[str], timeout: float):
    """cosmic-ray's ``mutate_and_test`` for one mutant, the tests run by ``worker``: the same
    outcomes (a non-zero exit or a timeout kills the mutant)."""
    import difflib

    import cosmic_ray.plugins
    from cosmic_ray.mutating import use_mutation
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome, WorkResult

    op = cosmic_ray.plugins.get_operator(spec.operator_name)(**(spec.operator_args or {}))
    with use_mutation(Path(spec.module_path), op, spec.occurrence) as (original, mutated):
        if mutated is None:
            return WorkResult(worker_outcome=WorkerOutcome.NO_TEST)
        rc, output = worker.run(copy, tests, env, timeout)
    diff = "\n".join(difflib.unified_diff(original.splitlines(), mutated.splitlines(), str(spec.module_path),
                                          str(spec.module_path), lineterm=""))
    return WorkResult(output=output, diff=diff, worker_outcome=WorkerOutcome.NORMAL,
                      test_outcome=TestOutcome.KILLED if rc != 0 else TestOutcome.SURVIVED)


def enumerate_mutants(target: Target, root: Path, rows: list[dict], db_path: Path,
                      modules: tuple | None = None, by_module: dict | None = None) -> tuple[list, dict]:
    """cosmic-ray's work items for the target's modules (or for ``modules`` of them), kept when
    their operator is in :data:`OPERATORS` and they lie in a function some row names (not in
    an annotation).  Each record says whether its test runs keep the JIT on (:func:`jit_on`).

    Returns
    -------
    (items, skipped)
        ``items``: ``(work item, record)`` pairs; ``skipped``: counts of what was left out
        (also per module into ``by_module``, when given: module file name -> counts).
    """
    from cosmic_ray.commands.init import init
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    fns = rows_by_function(rows, target)
    paths = [Path(target.package) / m for m in (modules or target.modules)]
    plan = jit_plan(target, root)
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
            left_out = []
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
                    if by_module is not None:
                        counts = by_module.setdefault(mod, dict(operator=0, annotation=0, outside_rule_code=0))
                        counts[why] += 1
                    left_out.append(item.job_id)
                    continue
                rs = fns[(mod, fn)]
                tests = sorted({t for r in rs for t in r["test_list"]})
                keep.append((item, dict(job_id=item.job_id, module=mod, function=fn,
                                        rules=" ".join(sorted({r["rule"] for r in rs}, key=lambda x: [int(y) for y in x.split(".")])),
                                        operator=mu.operator_name.split("/", 1)[1], occurrence=mu.occurrence,
                                        line=mu.start_pos[0], col=mu.start_pos[1],
                                        original=lines[mu.start_pos[0] - 1].strip(), tests=tests,
                                        jit="on" if jit_on(plan, mod, fn) else "off")))
            # one transaction for all (one each takes minutes on a busy disk)
            db.set_multiple_results(left_out, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))
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


def parse_only(only: str | None) -> list[tuple[str, str]]:
    """``'a.py,b.py:f'`` -> ``[('a.py', ''), ('b.py', 'f')]`` (empty for None)."""
    return [(m.strip(), f.strip()) for m, _, f in (x.partition(":") for x in (only or "").split(",") if x.strip())]


def cited_functions(rows: list[dict], target: Target, only: str | None = None,
                    modules: list | None = None) -> list[str]:
    """``MODULE:FUNCTION`` of every function the coverage ``rows`` name in ``target``'s modules
    (or in ``modules``) that a run with ``only`` covers, mutants or none: what the run scores."""
    picks = parse_only(only)
    return sorted(f"{m}:{f}" for m, f in rows_by_function(rows, target)
                  if (modules is None or m in modules)
                  and (not picks or any(m == pm and (not pf or f == pf) for pm, pf in picks)))


def run(game: str, jobs: int, out: Path, only: str | None = None, all_as_python: bool = False,
        fresh_python: bool = False, sample: int = 0) -> int:
    """Enumerate, run and score the mutants of ``game``; writes ``out``/mutants.csv,
    sections.csv and run.json.  Returns the number of unexplained survivors.

    ``only``: ``MODULE[:FUNCTION]``, several separated by commas (a partial run).
    ``all_as_python``: run every mutant with ``NUMBA_DISABLE_JIT=1`` (the slower way that
    needs no compiled code; for comparison).  ``fresh_python``: start every test run as a new
    ``python -m pytest`` instead of a fork of the job's worker (slower; for comparison).
    ``sample``: run only that many mutants drawn at random (seed 0), to time a full run.
    """
    from attrs import evolve
    from cosmic_ray.mutating import mutate_and_test
    from cosmic_ray.work_db import WorkDB, use_db

    target = TARGETS[game]
    rows = read_rows(game)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    files = tracked_files(ROOT)
    work = Path(tempfile.mkdtemp(prefix="rule_knockout_"))
    picks = parse_only(only)
    for mod, _ in picks:
        if mod not in target.modules:
            raise SystemExit(f"--only {mod}: not a rule module of {game} ({', '.join(target.modules)})")
    try:
        src_copy = scratch_copy(ROOT, work / "src", files)  # cosmic-ray enumerates on a copy, never the checkout
        db_path = out / "session.sqlite"
        if db_path.exists():
            db_path.unlink()
        modules = tuple(dict.fromkeys(m for m, _ in picks)) or None
        skipped_by_module: dict = {}
        items, skipped = enumerate_mutants(target, src_copy, rows, db_path, modules, skipped_by_module)
        if picks:
            items = [(it, r) for it, r in items if any(r["module"] == m and (not f or r["function"] == f) for m, f in picks)]
        if sample:
            items = random.Random(0).sample(items, min(sample, len(items)))
        code = CodeIndex(target, src_copy)
        for it, rec in items:
            rec["mutated"] = mutated_line(src_copy, rec, it)
            rec["fn_line"], rec["fn_hash"] = code.fingerprint(rec["module"], rec["function"])
            if all_as_python:
                rec["jit"] = "off"
        # one persistent copy per job, at a fixed path, with its own numba cache folder
        copies = [scratch_copy(ROOT, work / f"w{k}", files) for k in range(max(1, jobs))]
        caches = [work / f"numba{k}" for k in range(len(copies))]
        tests_on = sorted({t for _, r in items if r["jit"] == "on" for t in r["tests"]})
        tests_off = sorted({t for _, r in items if r["jit"] == "off" for t in r["tests"]})
        t_base = time.time()
        times = {"on": {}, "off": {}}
        if tests_on:
            # compile once per job (the cache folder is per copy: numba keys it by the source's path) ...
            with ThreadPoolExecutor(max_workers=len(copies)) as ex:
                list(ex.map(lambda k: baseline(copies[k], tests_on, run_env(caches[k], True, target.env)),
                            range(len(copies))))
            # ... then time the tests as the mutants will run them, on the warm cache
            times["on"] = baseline(copies[0], tests_on, run_env(caches[0], True, target.env))
        if tests_off:
            times["off"] = baseline(copies[0], tests_off, run_env(caches[0], False, target.env))
        t_base = time.time() - t_base
        workers = []
        if not fresh_python and items:
            # what the tests import from outside the copy: each job's worker imports it once
            probe = subprocess.run(["env", *run_env(caches[0], True, target.env), sys.executable, str(WORKER), "--probe",
                                    str(copies[0]), *sorted(set(tests_on) | set(tests_off))],
                                   capture_output=True, text=True, check=True)
            names = json.loads(probe.stdout.strip().splitlines()[-1])
            workers = [Worker(names, run_env(caches[k], True, target.env), work / f"log{k}.txt")
                       for k in range(len(copies))]
        free: queue.Queue = queue.Queue()
        for k in range(len(copies)):
            free.put(k)

        def one(pair):
            item, rec = pair
            k = free.get()
            try:
                mu = item.mutations[0]
                path = copies[k] / mu.module_path
                before = path.stat()
                spec = evolve(mu, module_path=path)
                timeout = 20 + 5 * sum(times[rec["jit"]].get(t, 1.0) for t in rec["tests"])
                env = run_env(caches[k], rec["jit"] == "on", target.env)
                cmd = shlex.join(pytest_command(copies[k], rec["tests"], env=env))
                t = time.time()
                if workers:
                    res = test_in_worker(workers[k], spec, copies[k], rec["tests"], env, timeout)
                    rec = dict(rec, cpu_s=workers[k].cpu_s)
                else:
                    res = mutate_and_test([spec], cmd, timeout)  # applies the mutant, runs, puts the source back
                os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # and its time, for numba's stamps
                return item, rec, res, time.time() - t
            finally:
                free.put(k)

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
        for w in workers:
            w.close()
        for k, c in enumerate(copies):  # each mutated file is back as it was
            for rel in {it.mutations[0].module_path for it, _ in items}:
                if (c / rel).read_bytes() != (src_copy / rel).read_bytes():
                    raise SystemExit(f"{c / rel} was not restored")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results.sort(key=lambda r: (r["module"], r["line"], r["col"], r["operator"], r["occurrence"]))
    explained = load_explained()
    for r in results:
        e = explanation_for(r, explained) if r["outcome"] == "survived" else None
        r["explained"] = e["kind"] if e else ""
    cols = ["game", "module", "function", "rules", "line", "col", "operator", "occurrence", "original", "mutated",
            "outcome", "explained", "jit", "seconds", "cpu_s", "fn_line", "fn_hash", "tests"]
    with open(out / "mutants.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for r in results:
            w.writerow({k: (";".join(r[k]) if k == "tests" else r.get(k, "")) for k in cols})
    secs = section_scores(results, rows, target, explained)
    with open(out / "sections.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(secs[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(secs)
    wall = time.time() - t0
    summary = dict(game=game, jobs=len(copies), mutants=len(results), skipped=skipped,
                   skipped_by_module={m: skipped_by_module[m] for m in sorted(skipped_by_module)},
                   baseline_s=round(t_base, 1),
                   wall_s=round(wall, 1), cpu_count=os.cpu_count(), load_average=os.getloadavg()[0],
                   only=only, modules=list(modules or target.modules), all_as_python=all_as_python,
                   fresh_python=fresh_python, sample=sample,
                   mutants_jit_on=sum(r["jit"] == "on" for r in results), date=time.strftime("%Y-%m-%d %H:%M"),
                   functions=cited_functions(rows, target, only))
    (out / "run.json").write_text(json.dumps(summary, indent=2))
    unexplained = [r for r in results if r["outcome"] == "survived" and not r["explained"]]
    print(f"{len(results)} mutants in {wall:.0f} s: "
          f"{sum(r['outcome'] in ('killed', 'timeout') for r in results)} killed, "
          f"{sum(r['outcome'] == 'survived' for r in results)} survived "
          f"({len(unexplained)} unexplained)")
    for r in unexplained:
        print(f"  {r['module']}:{r['line']} {r['function']} [{r['operator']}] {r['original']}  ->  {r['mutated']}")
    return len(unexplained)


# --- the code a result was taken on ----------------------------------------------------------------------

def definition_spans(source: str) -> dict:
    """Qualified name -> ``(first line, last line)`` of every function, method and class in
    ``source`` (decorators included; names as :func:`function_spans` gives them)."""
    out: dict = {}

    def walk(node, prefix):
        for ch in ast.iter_child_nodes(node):
            if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + ch.name
                out.setdefault(name, (min([ch.lineno] + [d.lineno for d in ch.decorator_list]), ch.end_lineno))
                walk(ch, name + ".")
            else:
                walk(ch, prefix)

    walk(ast.parse(source), "")
    return out


class CodeIndex:
    """The rule modules of ``target`` in the checkout ``root``, each read once: where a
    function (or a cited class) starts, a fingerprint of its source text, its lines."""

    def __init__(self, target: Target, root: Path = ROOT):
        self.target, self.root, self.modules = target, root, {}

    def _module(self, mod: str) -> tuple[list, dict]:
        if mod not in self.modules:
            path = self.root / self.target.package / mod
            src = path.read_text(encoding="utf-8") if path.is_file() else ""
            self.modules[mod] = (src.splitlines(), definition_spans(src) if src else {})
        return self.modules[mod]

    def fingerprint(self, mod: str, name: str) -> tuple[int, str]:
        """``(first line, hash)`` of ``mod:name``: the first ten hex digits of the SHA-1 of
        its lines (trailing blanks dropped), so a function that only moves keeps its hash;
        ``(0, "")`` when there is no such function."""
        lines, spans = self._module(mod)
        if name not in spans:
            return 0, ""
        first, last = spans[name]
        text = "\n".join(x.rstrip() for x in lines[first - 1:last])
        return first, hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]

    def line(self, mod: str, n: int) -> str | None:
        lines, _ = self._module(mod)
        return lines[n - 1].strip() if 0 < n <= len(lines) else None


def check_code(ms: list[dict], target: Target, root: Path = ROOT) -> dict:
    """Compare the result rows ``ms`` with the rule code in ``root`` (rows changed in place).

    A row's ``fn_hash`` and ``fn_line`` are its function's fingerprint and first line when
    it ran (:meth:`CodeIndex.fingerprint`; empty: not known).  A row without them (from a
    run folder written before runs recorded them) takes the function's current ones when every row of its
    function still reads as it did (each ``original`` is the current text of its line), and
    none otherwise.  A function unchanged but moved takes its rows' line numbers along.

    Returns ``(module, function) -> number of rows`` for the functions whose code differs
    from (or is unknown for) the code their rows ran on, or that are gone: those rows are
    results of old code until the function runs again."""
    idx = CodeIndex(target, root)
    groups: dict = {}
    for m in ms:
        groups.setdefault((m["module"], m["function"]), []).append(m)
    changed = {}
    for (mod, fn), rows in groups.items():
        first, h = idx.fingerprint(mod, fn)
        legacy = [m for m in rows if "fn_hash" not in m]
        if legacy:
            same = h and all(m.get("original") and idx.line(mod, int(m["line"])) == m["original"].strip() for m in legacy)
            for m in legacy:
                m["fn_line"], m["fn_hash"] = (first, h) if same else ("", "")
        n = 0
        for m in rows:
            if h and m["fn_hash"] == h:
                shift = first - int(m["fn_line"])
                if shift:
                    m["line"], m["fn_line"] = str(int(m["line"]) + shift), first
            else:
                n += 1
        if n:
            changed[(mod, fn)] = n
    return changed


# --- the results ledger ------------------------------------------------------------------------------------

#: The committed results of each game (:func:`write_ledger`): ``GAME.csv`` and ``GAME.json``.
LEDGER_DIR = ROOT / "docs" / "rule_knockout"
#: Columns of a ledger's rows; ``original`` and ``mutated`` only for mutants that were not killed.
LEDGER_COLS = ["module", "function", "line", "col", "operator", "occurrence", "outcome", "jit", "run", "fn_line",
               "fn_hash", "original", "mutated"]
#: What a ledger keeps of a run's record.
RUN_KEYS = ("date", "only", "modules", "mutants", "jobs", "wall_s", "folder", "recovered")


def ledger_path(game: str) -> Path:
    """The committed ledger of ``game``: ``docs/rule_knockout/GAME.csv`` (its run records beside
    it in ``GAME.json``)."""
    return LEDGER_DIR / f"{game}.csv"


def is_ledger(path: Path) -> bool:
    """Whether ``path`` names a ledger (its ``.csv`` or its ``.json``) rather than a run folder."""
    return path.suffix in (".csv", ".json") and path.with_suffix(".csv").is_file()


def read_ledger(path: Path) -> tuple[list, dict]:
    """The rows and record of the ledger ``path`` (:func:`write_ledger`).  Each row is a
    result record as in a run's ``mutants.csv`` (``game`` added; no ``rules`` or
    ``tests``), its ``_run`` the record of the run it comes from."""
    info = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    with open(path.with_suffix(".csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    for m in rows:
        m.update(game=info["game"], rules="", tests=[], explained="", _run=info["runs"][int(m["run"])])
    return rows, info


def write_ledger(game: str, ms: list[dict], info: dict, path: Path) -> None:
    """Write the combined results ``ms`` (:func:`combine_runs`) as ``game``'s ledger ``path``.

    ``path`` (csv): one row per mutant (:data:`LEDGER_COLS`), sorted by module, line,
    column, operator and occurrence; ``run`` indexes the run records.  ``original`` and
    ``mutated`` are kept only for the mutants that were not killed (what the report
    lists); the others are counted.  Beside it, ``.json``: the game, the modules held
    whole, the mutants left out per module, the functions scored (:func:`combine_runs`), and the records of the
    runs the rows come from (date, ``--only``, modules, mutants, jobs, minutes, folder),
    in the order they were laid over each other."""
    runs = []
    seen: dict = {}
    for r in info["runs"]:
        if any(m.get("_run") is r for m in ms) and id(r) not in seen:
            seen[id(r)] = len(runs)
            runs.append({k: r[k] for k in RUN_KEYS if k in r})
    if any(id(m.get("_run")) not in seen for m in ms):
        raise ValueError("a row without its run record")
    rows = sorted(ms, key=lambda m: (m["module"], int(m["line"]), int(m["col"]), m["operator"], int(m["occurrence"])))
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_suffix(".csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=LEDGER_COLS, lineterminator="\n")
        w.writeheader()
        for m in rows:
            keep = m["outcome"] not in ("killed", "timeout")
            w.writerow(dict({k: m.get(k, "") for k in LEDGER_COLS}, run=seen[id(m["_run"])],
                            original=m["original"].strip() if keep else "", mutated=m["mutated"].strip() if keep else ""))
    record = dict(game=game, modules=info["modules"], mutants=len(rows),
                  skipped={k: info["skipped_parts"][k] for k in sorted(info["skipped_parts"])},
                  functions=info["functions"], runs=runs)
    path.with_suffix(".json").write_text(_lines_json(record), encoding="utf-8")


def _lines_json(record: dict) -> str:
    """``record`` as JSON with one line per list item or dict entry of its values (diffs
    line by line)."""
    def one(v):
        return json.dumps(v, ensure_ascii=False)

    out = []
    for k, v in record.items():
        if isinstance(v, list) and v:
            body = ",\n".join("  " + one(x) for x in v)
            out.append(f" {one(k)}: [\n{body}\n ]")
        elif isinstance(v, dict) and v:
            body = ",\n".join(f"  {one(a)}: {one(b)}" for a, b in v.items())
            out.append(f" {one(k)}: {{\n{body}\n }}")
        else:
            out.append(f" {one(k)}: {one(v)}")
    return "{\n" + ",\n".join(out) + "\n}\n"


# --- the report page -------------------------------------------------------------------------------------

def read_results(out: Path) -> tuple[list, list, dict]:
    with open(out / "mutants.csv", newline="", encoding="utf-8") as f:
        ms = list(csv.DictReader(f))
    for m in ms:
        m["tests"] = m["tests"].split(";") if m["tests"] else []
    with open(out / "sections.csv", newline="", encoding="utf-8") as f:
        secs = list(csv.DictReader(f))
    return ms, secs, json.loads((out / "run.json").read_text())


def combine_runs(outs: list[Path], game: str | None = None) -> tuple[list, dict]:
    """The mutants and run record of several finished runs taken together, in
    order: each run replaces what the earlier ones hold of the code it ran (a
    run of whole modules their mutants, a ``--only MODULE:FUNCTION`` run those
    functions' mutants), so a re-run of some functions after new tests lands
    on the run of their modules.  An entry of ``outs`` may be a ledger
    (:func:`write_ledger`): it holds its modules whole, and each of its rows
    keeps the record of the run it came from.

    Returns ``(mutants, run record)``; each mutant's ``_run`` is the record of
    its run, and the record's ``runs`` lists, in order, the runs that still hold
    some mutant (date, modules, ``--only``, mutants run, ``counted``: how many of
    them are still counted), its ``functions`` the functions named by coverage rows
    that the runs scored (``MODULE:FUNCTION``, with mutants or none; for a run folder
    that did not list them, those the rows name now in its scope).  The mutants left out (``skipped``) add up what the
    last enumeration of each module left out (``skipped_parts``: per module, or
    per group of modules for a run folder that did not count them per module).

    Raises SystemExit for a sample run (``--sample``), for a run of another game
    than ``game``, or for a run of single functions of a module no earlier run
    covered whole (its other functions would not be scored)."""
    ms: list = []
    whole: set = set()
    runs, parts, funcs = [], {}, set()
    zero = dict(operator=0, annotation=0, outside_rule_code=0)
    cited = read_rows(game) if game else []
    for out in outs:
        if is_ledger(out):
            rows, led = read_ledger(out)
            run_game, mods, fn_level = led["game"], set(led["modules"]), set()
            mod_level = mods
            new_parts = led["skipped"]
            new_funcs = set(led["functions"])
            runs += led["runs"]
        else:
            rows, _, info = read_results(out)
            if info.get("sample"):
                raise SystemExit(f"{out} holds a random sample of mutants (--sample): it times a run, it scores no section")
            run_game = info.get("game", game)
            picks = parse_only(info.get("only"))
            mods = set(info.get("modules") or [])
            fn_level = {(m, f) for m, f in picks if f}
            mod_level = (mods - {m for m, _ in fn_level}) if picks else mods
            lone = {m for m, _ in fn_level} - whole - mod_level
            if lone:
                raise SystemExit(f"{out} re-runs functions of {', '.join(sorted(lone))}, which no earlier run in --from "
                                 "covered whole; put that module's run (or the ledger) first")
            if "skipped_by_module" in info:  # the run enumerated its modules whole, whatever it ran of them
                new_parts = {m: info["skipped_by_module"].get(m, zero) for m in mods}
            else:
                new_parts = {"+".join(sorted(mod_level)): info["skipped"]} if mod_level else {}
            if "functions" in info:
                new_funcs = set(info["functions"])
            else:  # a run folder written before runs listed them: what the rows name now in its scope
                new_funcs = set(cited_functions(cited, TARGETS[game], info.get("only"), mods)) if game else set()
                new_funcs |= {f"{m['module']}:{m['function']}" for m in rows}
            rec = dict(folder=str(out), date=info["date"], modules=sorted(mods), only=info.get("only"),
                       mutants=info["mutants"], jobs=info["jobs"], wall_s=info["wall_s"])
            for m in rows:
                m["_run"] = rec
            runs.append(rec)
        if game and run_game != game:
            raise SystemExit(f"{out} holds a run of {run_game}, not of {game}")
        ms = [m for m in ms if m["module"] not in mod_level and (m["module"], m["function"]) not in fn_level]
        ms += rows
        funcs = {x for x in funcs if x.partition(":")[0] not in mod_level and tuple(x.split(":", 1)) not in fn_level}
        funcs |= new_funcs
        whole |= mod_level
        covered = {x for k in new_parts for x in k.split("+")}
        parts = {k: v for k, v in parts.items() if not set(k.split("+")) <= covered}
        parts.update(new_parts)
    counted: dict = {}
    for m in ms:
        counted[id(m["_run"])] = counted.get(id(m["_run"]), 0) + 1
    runs = [r for r in runs if id(r) in counted]
    for r in runs:
        r["counted"] = counted[id(r)]
    skipped = dict(zero)
    for v in parts.values():
        for k in skipped:
            skipped[k] += v.get(k, 0)
    info = dict(date=max((r["date"] for r in runs), default=""), mutants=len(ms),
                jobs=max((r["jobs"] for r in runs), default=0), wall_s=sum(r["wall_s"] for r in runs),
                cpu_count=os.cpu_count(), load_average=0.0, modules=sorted(whole), only=None, skipped=skipped,
                skipped_parts=parts, functions=sorted(funcs), runs=runs,
                mutants_jit_on=sum(m["jit"] == "on" for m in ms))
    return ms, info


def game_blocks(text: str) -> dict:
    """``game -> its block`` of a report page: the lines between ``<!-- game: NAME -->`` and
    ``<!-- end game: NAME -->``, markers included."""
    blocks, cur = {}, None
    for line in text.splitlines():
        if line.startswith("<!-- game: "):
            cur = line[len("<!-- game: "):].rstrip(" ->")
            blocks[cur] = []
        if cur is not None:
            blocks[cur].append(line)
        if line.startswith("<!-- end game: "):
            cur = None
    return {g: "\n".join(b) for g, b in blocks.items()}


def load_results(game: str, outs: list[Path], combine: bool = False) -> tuple[list, dict, dict]:
    """The results of ``outs``: one run folder as it is (unless ``combine``), or runs and
    ledgers taken together (:func:`combine_runs`), checked against the rule code now
    (:func:`check_code`).  Returns ``(mutants, run record, changed functions)``."""
    if len(outs) == 1 and not is_ledger(outs[0]) and not combine:
        ms, _, run_info = read_results(outs[0])
        if run_info.get("sample"):
            raise SystemExit(f"{outs[0]} holds a random sample of mutants (--sample): it times a run, it scores no section")
    else:
        ms, run_info = combine_runs(outs, game)
    return ms, run_info, check_code(ms, TARGETS[game])


def write_doc(game: str, out: Path | list[Path], doc: Path) -> None:
    """Render ``game``'s part of ``doc`` (markdown) from a finished run in ``out`` (or
    several, or a ledger, taken together by :func:`combine_runs`) and :data:`EXPLAINED`;
    the parts of the other games already in ``doc`` are kept."""
    target = TARGETS[game]
    outs = [out] if isinstance(out, Path) else list(out)
    ms, run_info, changed = load_results(game, outs)
    explained = load_explained()
    secs = section_scores(ms, read_rows(game), target, explained)
    title = TITLES.get(game, game)
    run_mods = set(run_info.get("modules") or target.modules)
    picks = parse_only(run_info.get("only"))
    partial = bool(picks) or run_mods != set(target.modules)

    scored = set(run_info["functions"]) if "functions" in run_info else None
    # functions the rows name now in modules the results hold, that no run scored (named since)
    unscored = sorted(x for x in cited_functions(read_rows(game), target, run_info.get("only"), run_mods)
                      if scored is not None and x not in scored)

    def not_run(sec: dict) -> set:
        """The functions a section's rows name that this run left out."""
        fns = [w.partition(":")[::2] for w in sec["where"].split()]
        return {f"{m}:{f}" for m, f in fns
                if m not in run_mods or (picks and not any(m == pm and (not pf or f == pf) for pm, pf in picks))
                or f"{m}:{f}" in unscored}
    header = [
        "# Rule knock-out (mutation testing of the rule code)",
        "",
        "Does each rule's test fail when the rule is wrong?  `benchmarks/rule_knockout.py` answers by mutation testing with",
        "[cosmic-ray](https://pypi.org/project/cosmic-ray/): it changes the rule code one small edit at a time (a mutant) and runs",
        "the tests that `docs/rules_coverage.csv` names for that code.  A mutant is *killed* when a named test fails (or runs past",
        "its time limit) and *survives* when they all pass.  Every survivor is either killed by a new test or explained below.",
        "",
        "```",
        "pip install -e '.[mutation]'",
        "python benchmarks/rule_knockout.py --game GAME --jobs 2 --out out/knockout      # invasion_malta, island_of_death",
        "python benchmarks/rule_knockout.py --game GAME --only victory.py,morale.py ...   # some modules (a partial run)",
        "python benchmarks/rule_knockout.py --game GAME --ledger --from out/knockout --write-doc docs/rule_knockout.md",
        "python benchmarks/rule_knockout.py --game GAME --ledger --from out/a out/b --write-doc docs/rule_knockout.md  # runs together",
        "python benchmarks/rule_knockout.py --game GAME --ledger --write-doc docs/rule_knockout.md   # the ledger alone",
        "```",
        "",
        "The results are kept in the repository, one ledger per game: `docs/rule_knockout/GAME.csv` (one row per mutant:",
        "where, operator, outcome, the run it comes from, a fingerprint of its function's code, and the original and mutated",
        "line of the mutants that were not killed) and `GAME.json` (the runs' records).  `--ledger` reads the game's ledger",
        "first, lays the runs of `--from` over it (each run replaces what the ledger holds of the code it ran: whole modules,",
        "or the functions of `--only MODULE:FUNCTION`), writes it back and renders this page from it; so a partial run adds",
        "to the finished work instead of replacing it.  `--from` also takes a ledger's `.csv` like a run folder.  Functions",
        "whose code changed after their mutants ran are listed under the totals until they run again.",
        "",
        "How it works (the script's docstring has the details):",
        "",
        "- The mutants come from cosmic-ray's operators, one natural replacement each (`<` to `<=`, `==` to `!=`, `and` to `or`,",
        "  `+` to `-`, a number plus or minus one, `not` added or removed, a `for` loop that never runs, `break` and `continue`",
        "  swapped, `True` and `False` swapped).  Only mutants inside a function that a coverage row names count; mutants in",
        "  type annotations (never evaluated) are left out.",
        "- Each mutant runs against the tests of every row that names its function.  Each of the `--jobs` side-by-side jobs",
        "  keeps one scratch copy of the checkout and one numba cache folder; a mutant is applied to its file in the copy, the",
        "  tests run, and the file is put back byte for byte (and its time).  The checkout itself is never changed.  A test",
        "  run is a fork of the job's worker process, which has pytest, numpy, pandas, scipy, numba and hypothesis imported",
        "  already (never the package or the tests: each run imports them, mutant included, from the copy).",
        "- JIT on or off: a mutant in a rule module that defines no numba-compiled function runs with the JIT on, on compiled",
        "  kernels loaded from the job's cache (compiled once, by the unmutated baseline run): only Python code is mutated, so",
        "  the kernels are the unchanged ones.  A mutant in a module that defines compiled functions runs with",
        "  `NUMBA_DISABLE_JIT=1`, all code as Python: a kernel of another module that calls a mutated kernel would keep its",
        "  own compiled copy of the original, and any change to a module with kernels recompiles them.",
        "- A section's score is killed / mutants, over the mutants in the code its rows name.  A function named by several",
        "  sections counts in each.",
        "",
    ]
    when = "Last run" if not partial else "Partial run"
    if "runs" in run_info:
        n = len(run_info["runs"])
        lines = [
            f"<!-- game: {game} -->",
            f"## {title}, scores per rule section",
            "",
            (f"{n} runs taken together (each replaces what the earlier ones hold of the code it ran), " if n != 1 else
             "One run, ") + f"{run_info['mutants']} mutants, {run_info['mutants_jit_on']} of them with the JIT on, "
            f"{run_info['wall_s'] / 60:.1f} minutes in all:",
            "",
        ]
        notes = list(dict.fromkeys(r["recovered"] for r in run_info["runs"] if r.get("recovered")))
        lines += [f"- {r['date']}: {r['mutants']} mutants of " + (f"`--only {r['only']}`" if r["only"] else
                  ", ".join(f"`{m}`" for m in r["modules"])) + f", {r['jobs']} jobs, {r['wall_s'] / 60:.1f} minutes"
                  + (f" ({r['counted']} of them counted here)" if r.get("counted", r["mutants"]) != r["mutants"] else "")
                  + (" (recovered" + (f" {1 + notes.index(r['recovered'])}" if len(notes) > 1 else "") + ")"
                     if r.get("recovered") else "")
                  for r in run_info["runs"]]
        lines.append("")
        lines += [f"Recovered{f' {k}' if len(notes) > 1 else ''}: {note}" for k, note in enumerate(notes, 1)]
        lines += [""] if notes else []
    else:
        lines = [
            f"<!-- game: {game} -->",
            f"## {title}, scores per rule section",
            "",
            f"{when}: {run_info['date']}, {run_info['mutants']} mutants, {run_info['jobs']} jobs, "
            f"{run_info['wall_s'] / 60:.1f} minutes on {run_info['cpu_count']} cores (load average "
            f"{run_info['load_average']:.1f} at the end)"
            + (f", {run_info['mutants_jit_on']} of them with the JIT on." if "mutants_jit_on" in run_info else "."),
        ]
    if partial:
        lines.append(f"Only the mutants of {', '.join(f'`{m}`' for m in sorted(run_mods))} were run "
                     f"({len(run_mods)} of the {len(target.modules)} rule modules"
                     + (f"; `--only {run_info['only']}`" if run_info.get("only") else "") + "); a section marked *partial* "
                     "also has rows naming functions that were not run, whose mutants it does not count.")
    lines += [
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
            mark = " *partial*" if not_run(s) else ""
            lines.append(f"| {s['section']}{mark} | {s['rules']} | {s['mutants']} | {s['killed']} | {s['survived']} ({s['explained']}) "
                         f"| {s['unexplained']} | {float(s['score']):.2f} | {s['not_mutated']} |")
    total = len(ms)
    killed = sum(m["outcome"] in ("killed", "timeout") for m in ms)
    surv = [m for m in ms if m["outcome"] == "survived"]
    lines += ["", f"{'All rule code' if not partial else 'These modules'}: {total} mutants, {killed} killed "
              f"({killed / max(1, total):.0%}), {len(surv)} survived, "
              f"{sum(1 for m in surv if not explanation_for(m, explained))} unexplained.", ""]
    if unscored:
        lines += ["Named by coverage rows but never run (a row names them since; their sections are marked *partial* and do "
                  "not count their mutants until a run of them, `--only MODULE:FUNCTION`, is added): "
                  + ", ".join(f"`{x}`" for x in unscored) + ".", ""]
    if changed:
        lines += [f"Code changed since its run: {sum(changed.values())} mutants of {len(changed)} functions whose code "
                  "differs from the code they ran on (or is gone); they count as they came out until those functions "
                  "run again: " + ", ".join(f"`{m}:{f}` ({n})" for (m, f), n in sorted(changed.items())) + ".", ""]
    unreached = [s for s in secs if not int(s["mutants"]) and not not_run(s)]
    if unreached:
        lines += ["Sections with no mutated code:", "", "| section | rules | why |", "|---|---|---|"]
        lines += [f"| {s['section']} | {s['rules']} | {s['note']} |" for s in unreached]
        lines.append("")
    if target.excluded:
        lines += ["Modules not mutated:", ""]
        lines += [f"- `{target.package}/{k}`: {v}." for k, v in target.excluded.items()]
        lines.append("")
    as_python = jit_plan(target, ROOT)[0]
    if not as_python:
        lines += ["No rule module of this game is compiled with numba, so every mutant runs with the JIT on.", ""]
    else:
        lines += ["Modules whose mutants run as Python (`NUMBA_DISABLE_JIT=1`): "
                  + ", ".join(f"`{m}`" for m in sorted(as_python)) + ".", ""]
    lines += [f"### {title}, surviving mutants and why they may survive", "",
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
    if not groups:
        lines += ["None.", ""]
    lines.append(f"<!-- end game: {game} -->")
    blocks = game_blocks(doc.read_text()) if doc.exists() else {}
    blocks[game] = "\n".join(lines)
    order = [g for g in TARGETS if g in blocks]
    doc.write_text("\n".join(header) + "\n" + "\n\n".join(blocks[g] for g in order) + "\n")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--game", choices=sorted(TARGETS), default="invasion_malta")
    p.add_argument("--jobs", type=int, default=2, help="scratch copies run side by side")
    p.add_argument("--out", type=Path, default=Path("out/knockout"))
    p.add_argument("--only", help="MODULE[:FUNCTION], several separated by commas, e.g. zoc.py:zoc_map (a partial run)")
    p.add_argument("--all-as-python", action="store_true",
                   help="run every mutant with NUMBA_DISABLE_JIT=1 (slower; to compare with the default)")
    p.add_argument("--fresh-python", action="store_true",
                   help="start each test run as a new python -m pytest, not a fork of the job's worker (slower; to compare)")
    p.add_argument("--sample", type=int, default=0, help="run N mutants drawn at random (seed 0), to time a full run")
    p.add_argument("--list", action="store_true", help="count the mutants per module and function, run nothing")
    p.add_argument("--from", dest="from_", type=Path, nargs="+",
                   help="a finished run's folder or a ledger (.csv), or several taken together in order: each "
                        "replaces what the earlier ones hold of the code it ran (with --write-doc or --ledger)")
    p.add_argument("--ledger", nargs="?", const="", metavar="CSV",
                   help="update the results ledger (default docs/rule_knockout/GAME.csv): it is read first, the runs "
                        "of --from replace what it holds of the code they ran, and it is written back; --write-doc "
                        "then renders the ledger")
    p.add_argument("--write-doc", type=Path, help="write the markdown report of the run(s) in --from (or of the ledger)")
    a = p.parse_args(argv)
    if a.ledger is not None:
        led = Path(a.ledger) if a.ledger else ledger_path(a.game)
        if led.suffix != ".csv":
            raise SystemExit(f"--ledger {a.ledger}: a ledger is a .csv file (run folders go to --from)")
        outs = list(a.from_ or [])
        if led.is_file() and not any(is_ledger(o) and o.with_suffix(".csv").resolve() == led.resolve() for o in outs):
            outs.insert(0, led)
        if not outs:
            raise SystemExit(f"{led} does not exist yet: name the runs that start it with --from")
        ms, info, changed = load_results(a.game, outs, combine=True)
        write_ledger(a.game, ms, info, led)
        print(f"{led}: {len(ms)} mutants from {len(info['runs'])} runs"
              + (f"; {sum(changed.values())} of them ran on code that has changed since" if changed else ""))
        if a.write_doc:
            write_doc(a.game, [led], a.write_doc)
        return 0
    if a.write_doc:
        outs = a.from_ or [a.out]
        if ledger_path(a.game).is_file() and not any(is_ledger(o) for o in outs):
            print(f"note: {ledger_path(a.game)} is not in --from, so the report shows only these runs and the ledger "
                  "stays as it is; --ledger adds them to it", file=sys.stderr)
        write_doc(a.game, outs, a.write_doc)
        return 0
    if a.list:
        target = TARGETS[a.game]
        with tempfile.TemporaryDirectory() as d:
            src = scratch_copy(ROOT, Path(d) / "src", tracked_files(ROOT))
            items, skipped = enumerate_mutants(target, src, read_rows(a.game), Path(d) / "s.sqlite")
        counts: dict = {}
        for _, r in items:
            key = (r["module"], r["function"], r["jit"])
            counts[key] = counts.get(key, 0) + 1
        for (mod, fn, jit), n in sorted(counts.items()):
            print(f"{n:5d}  {mod}:{fn}{'' if jit == 'on' else '  (as Python)'}")
        print(f"{len(items)} mutants ({sum(r['jit'] == 'on' for _, r in items)} with the JIT on); left out: {skipped}")
        return 0
    return 1 if run(a.game, a.jobs, a.out, a.only, a.all_as_python, a.fresh_python, a.sample) else 0


if __name__ == "__main__":
    sys.exit(main())
