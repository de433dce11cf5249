"""The rule knock-out script (benchmarks/rule_knockout.py): how it places mutants in the
rule code, scores rule sections and matches explained survivors.  The mutation run itself
needs the ``mutation`` extra and is not run here."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import rule_knockout as K  # noqa: E402

SRC = '''from __future__ import annotations


def alone(x: int | None = None) -> bool:
    return x is None


class Grid:
    def __init__(self, n):
        self.n = n

    @property
    def size(self):
        return self.n + 1


def outer(v):
    def inner(w):
        return w - 1
    return inner(v) * 2
'''


def test_section_of():
    assert [K.section_of(r) for r in ("3.24", "3.2", "8.4", "3.0", "7.14", "1.3")] == ["3.2", "3.2", "8.4", "3.0", "7.1", "1.3"]


def test_locate_functions_methods_nested_and_classes():
    spans = K.function_spans(SRC)
    names = {s[2] for s in spans}
    assert names == {"alone", "Grid.__init__", "Grid.size", "outer", "outer.inner"}
    line = {text.strip(): k for k, text in enumerate(SRC.splitlines(), 1)}
    assert K.locate(spans, {"alone"}, line["return x is None"]) == "alone"
    assert K.locate(spans, {"outer"}, line["return w - 1"]) == "outer"  # nested: the cited outer function
    assert K.locate(spans, {"outer", "outer.inner"}, line["return w - 1"]) == "outer.inner"
    assert K.locate(spans, {"Grid"}, line["return self.n + 1"]) == "Grid"  # a cited class covers its methods
    assert K.locate(spans, {"Grid.size"}, line["self.n = n"]) is None
    assert K.locate(spans, {"alone"}, line["class Grid:"]) is None


def test_annotations_are_left_out():
    spans = K.annotation_spans(SRC)
    ln = next(k for k, t in enumerate(SRC.splitlines(), 1) if t.startswith("def alone"))
    col_bar = SRC.splitlines()[ln - 1].index("|")
    col_none_default = SRC.splitlines()[ln - 1].index("= None") + 2
    assert K.in_spans(spans, (ln, col_bar))
    assert not K.in_spans(spans, (ln, col_none_default))


def _rows():
    pk = "malta_sim/games/invasion_malta"
    return [
        dict(game="invasion_malta", rule="3.24", where_list=[f"{pk}/zoc.py:zoc_map"], test_list=["t1"]),
        dict(game="invasion_malta", rule="3.21", where_list=[f"{pk}/zoc.py:zoc_map", f"{pk}/zoc.py:crossable"],
             test_list=["t2"]),
        dict(game="invasion_malta", rule="4.16", where_list=[f"{pk}/engine.py:Game.play"], test_list=["t3"]),
        dict(game="invasion_malta", rule="2.0", where_list=[], test_list=[]),
    ]


def test_rows_by_function_and_section_scores():
    target = K.TARGETS["invasion_malta"]
    fns = K.rows_by_function(_rows(), target)
    assert sorted(fns) == [("zoc.py", "crossable"), ("zoc.py", "zoc_map")]
    assert [r["rule"] for r in fns[("zoc.py", "zoc_map")]] == ["3.24", "3.21"]
    ms = [dict(game="invasion_malta", module="zoc.py", function="zoc_map", outcome=o, original="a = 1", mutated="a = 2")
          for o in ("killed", "timeout", "survived")]
    ms.append(dict(game="invasion_malta", module="zoc.py", function="crossable", outcome="survived", original="b < 0",
                   mutated="b <= 0"))
    explained = [dict(module="zoc.py", function="crossable", original="b < 0", kind="equivalent", reason="r")]
    secs = {s["section"]: s for s in K.section_scores(ms, _rows(), target, explained)}
    s32 = secs["3.2"]
    assert (s32["mutants"], s32["killed"], s32["survived"], s32["explained"], s32["unexplained"]) == (4, 2, 2, 1, 1)
    assert s32["score"] == 0.5 and s32["rules"] == "3.24 3.21"
    assert secs["4.1"]["mutants"] == 0 and "engine.py" in secs["4.1"]["note"]
    assert secs["2.0"]["note"] == "no code (rule needs none)"


def test_explanations_match_line_and_optional_mutant():
    m = dict(game="invasion_malta", module="zoc.py", function="f", original="  x < 0 ", mutated="x <= 0")
    assert K.explanation_for(m, [dict(module="zoc.py", function="f", original="x < 0", kind="equivalent", reason="")])
    assert not K.explanation_for(m, [dict(module="zoc.py", function="f", original="x < 0", mutated="x < 1",
                                          kind="equivalent", reason="")])
    assert not K.explanation_for(m, [dict(module="zoc.py", function="g", original="x < 0", kind="equivalent", reason="")])
    assert not K.explanation_for(m, [dict(game="island_of_death", module="zoc.py", function="f", original="x < 0",
                                          kind="equivalent", reason="")])


def test_targets_cover_every_module_the_rows_name():
    """Every module of a target's package that a coverage row names is mutated or
    listed as excluded, with a reason; and each listed module exists."""
    for game, target in K.TARGETS.items():
        pkg = ROOT / target.package
        for mod in list(target.modules) + list(target.excluded):
            assert (pkg / mod).is_file(), mod
        named = {Path(w.partition(":")[0]).name for r in K.read_rows(game) for w in r["where_list"]
                 if str(Path(w.partition(":")[0]).parent) == target.package}
        assert named <= set(target.modules) | set(target.excluded), named - set(target.modules) - set(target.excluded)


def test_explained_survivors_name_live_code():
    """Each explanation names a function of a mutated module, the line it explains is
    still in that function, and it says which kind and why."""
    entries = K.load_explained()
    for e in entries:
        target = K.TARGETS[e.get("game", "invasion_malta")]
        assert e["module"] in target.modules, e
        assert e["kind"] in ("equivalent", "unreachable"), e
        assert len(e["reason"]) > 20, e
        src = (ROOT / target.package / e["module"]).read_text()
        spans = {s[2]: s for s in K.function_spans(src)}
        first, last = next(((a, b) for a, b, n in spans.values() if n == e["function"]), (None, None))
        if first is None:  # a cited class
            tree = ast.parse(src)
            cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == e["function"])
            first, last = cls.lineno, cls.end_lineno
        body = [x.strip() for x in src.splitlines()[first - 1:last]]
        assert e["original"].strip() in body, e


@pytest.mark.parametrize("game", sorted(K.TARGETS))
def test_operators_exist_when_cosmic_ray_is_installed(game):
    plugins = pytest.importorskip("cosmic_ray.plugins")
    names = set(plugins.operator_names())
    assert set(K.OPERATORS) <= names, set(K.OPERATORS) - names


JIT_SRC = '''import numba as nb
from numba import njit

TABLE = build_table()


@nb.njit(cache=True)
def kernel(a):
    return a + 1


@njit
def bare(a):
    return a


def plain(x, y=default_y()):
    return kernel(x) + helper(y)


class Box:
    size = measure()

    @staticmethod
    def method():
        return inside_only()
'''


def test_compiled_functions_and_import_time_calls():
    assert K.compiled_functions(JIT_SRC) == ["kernel", "bare"]
    assert K.compiled_functions(SRC) == []
    calls = K.import_time_calls(JIT_SRC)
    # module statements, default values, decorators and class bodies run at import ...
    assert {"build_table", "default_y", "njit", "measure"} <= calls
    # ... function bodies do not
    assert not {"kernel", "helper", "inside_only"} & calls


def test_jit_plan_for_the_island_of_death_modules(tmp_path):
    """A module that defines compiled functions runs as Python; the others keep the JIT on,
    except a function called while the package is imported."""
    target = K.Target(package="malta_sim/pkg", modules=("compiled.py", "plain.py"))
    (tmp_path / "malta_sim" / "pkg").mkdir(parents=True)
    (tmp_path / "malta_sim" / "pkg" / "compiled.py").write_text(JIT_SRC)
    (tmp_path / "malta_sim" / "pkg" / "plain.py").write_text(SRC + "\n\nN = outer(3)\n")
    plan = K.jit_plan(target, tmp_path)
    assert set(plan[0]) == {"compiled.py"} and "kernel" in plan[0]["compiled.py"]
    assert not K.jit_on(plan, "compiled.py", "plain")          # its module has compiled functions
    assert K.jit_on(plan, "plain.py", "alone")
    assert K.jit_on(plan, "plain.py", "Grid.size")
    assert not K.jit_on(plan, "plain.py", "outer")             # runs at import (N = outer(3))
    assert not K.jit_on(plan, "plain.py", "outer.inner")      # nested in a function that runs at import
    as_python = K.Target(package="malta_sim/pkg", modules=("plain.py",), env={"NUMBA_DISABLE_JIT": "1"})
    assert not K.jit_on(K.jit_plan(as_python, tmp_path), "plain.py", "alone")


def test_real_targets_plan():
    """The Island of Death modules with kernels (movement.py) run as Python, combat.py
    (no kernel) with the JIT on; Invasion: Malta's rule modules have no kernels."""
    plan = K.jit_plan(K.TARGETS["island_of_death"], ROOT)
    assert "movement.py" in plan[0] and "combat.py" not in plan[0]
    assert K.jit_on(plan, "combat.py", "resolve_attack")
    assert K.jit_plan(K.TARGETS["invasion_malta"], ROOT)[0] == {}


def test_run_env_and_command():
    cache = Path("/scratch/numba0")
    on = K.run_env(cache, True, {})
    off = K.run_env(cache, False, {"X": "1"})
    # a NUMBA_DISABLE_JIT or fingerprint folder inherited from the caller never leaks in
    assert on[:4] == ["-u", "MALTA_SIM_NUMBA_CACHE_SET", "-u", "NUMBA_DISABLE_JIT"]
    assert "NUMBA_CACHE_DIR=/scratch/numba0" in on and "NUMBA_DISABLE_JIT=1" not in on
    assert "NUMBA_DISABLE_JIT=1" in off and off[-1] == "X=1"
    cmd = K.pytest_command(Path("/scratch/w0"), ["t::a"], env=off)
    assert cmd[:3] == ["env", "-C", "/scratch/w0"] and cmd[3:3 + len(off)] == off
    assert cmd[-1] == "t::a" and "-x" in cmd


def test_parse_only():
    assert K.parse_only(None) == []
    assert K.parse_only("victory.py") == [("victory.py", "")]
    assert K.parse_only("victory.py:surrender_phase, morale.py") == [("victory.py", "surrender_phase"), ("morale.py", "")]


def test_write_doc_keeps_the_other_games_part_and_labels_a_partial_run(tmp_path):
    import csv
    import json

    out = tmp_path / "run"
    out.mkdir()
    cols = ["game", "module", "function", "rules", "line", "col", "operator", "occurrence", "original", "mutated",
            "outcome", "explained", "jit", "seconds", "tests"]
    ms = [dict(game="island_of_death", module="victory.py", function="surrender_phase", rules="4.41 20.3", line=l,
               col=1, operator="op", occurrence=0, original=o, mutated=o + " ", outcome=r, explained="", jit="off",
               seconds=1.0, tests="t")
          for l, o, r in ((140, "total = r + mod", "killed"), (141, "x = not_explained_here", "survived"))]
    with open(out / "mutants.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        w.writerows(ms)
    (out / "sections.csv").write_text("section\n")
    (out / "run.json").write_text(json.dumps(dict(
        game="island_of_death", jobs=1, mutants=2, skipped=dict(operator=1, annotation=0, outside_rule_code=2),
        wall_s=60.0, cpu_count=2, load_average=1.0, only="victory.py:surrender_phase", modules=["victory.py"],
        mutants_jit_on=0, date="2026-01-01 00:00")))
    other = "<!-- game: invasion_malta -->\n## Invasion: Malta, scores\n\nkept as it is\n<!-- end game: invasion_malta -->"
    doc = tmp_path / "doc.md"
    doc.write_text("# old header\n\n" + other + "\n")
    K.write_doc("island_of_death", out, doc)
    text = doc.read_text()
    blocks = K.game_blocks(text)
    assert blocks["invasion_malta"] == other and list(blocks) == ["invasion_malta", "island_of_death"]
    iod = blocks["island_of_death"]
    assert "Partial run" in iod and "`victory.py`" in iod and "1 of the 22 rule modules" in iod
    assert "| 4.4 *partial* |" in iod            # 4.4 also names functions of other modules
    assert "| 20.3 | 20.3 | 2 | 1 | 1 (0) | 1 | 0.50 |" in iod
    assert "UNEXPLAINED" in iod and "\n| 9.1 |" not in iod  # sections of modules not run are not listed as unreached
    assert text.startswith("# Rule knock-out") and "old header" not in text


def _fake_run(folder, rows, only, modules, date):
    import csv
    import json

    folder.mkdir()
    cols = ["game", "module", "function", "rules", "line", "col", "operator", "occurrence", "original", "mutated",
            "outcome", "explained", "jit", "seconds", "tests"]
    with open(folder / "mutants.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cols)
        w.writeheader()
        for mod, fn, line, outcome in rows:
            w.writerow(dict(game="island_of_death", module=mod, function=fn, rules="20.3", line=line, col=1,
                            operator="op", occurrence=0, original=f"x{line}", mutated=f"y{line}",
                            outcome=outcome, explained="", jit="on", seconds=1.0, tests="t"))
    (folder / "sections.csv").write_text("section\n")
    (folder / "run.json").write_text(json.dumps(dict(
        game="island_of_death", jobs=1, mutants=len(rows), skipped=dict(operator=1, annotation=0, outside_rule_code=2),
        wall_s=60.0, cpu_count=2, load_average=1.0, only=only, modules=modules, mutants_jit_on=len(rows), date=date)))


def test_combine_runs_lets_a_later_run_replace_the_code_it_ran(tmp_path):
    """A re-run of one function replaces that function's mutants in the run of its
    module and leaves the module's other functions as they were; a run of whole
    modules replaces every mutant of those modules; run records are listed in order."""
    _fake_run(tmp_path / "a", [("victory.py", "surrender_phase", 1, "survived"), ("victory.py", "weather", 2, "killed"),
                               ("morale.py", "recover", 3, "survived")], None, ["victory.py", "morale.py"], "2026-01-01 00:00")
    _fake_run(tmp_path / "b", [("victory.py", "surrender_phase", 5, "killed"), ("victory.py", "surrender_phase", 6, "killed")],
              "victory.py:surrender_phase", ["victory.py"], "2026-01-02 00:00")
    _fake_run(tmp_path / "c", [("morale.py", "recover", 3, "killed")], "morale.py", ["morale.py"], "2026-01-03 00:00")
    ms, info = K.combine_runs([tmp_path / "a", tmp_path / "b", tmp_path / "c"])
    got = sorted((m["module"], m["function"], m["line"], m["outcome"]) for m in ms)
    assert got == [("morale.py", "recover", "3", "killed"), ("victory.py", "surrender_phase", "5", "killed"),
                   ("victory.py", "surrender_phase", "6", "killed"), ("victory.py", "weather", "2", "killed")]
    assert info["mutants"] == 4 and info["modules"] == ["morale.py", "victory.py"] and info["only"] is None
    assert [r["date"][:10] for r in info["runs"]] == ["2026-01-01", "2026-01-02", "2026-01-03"]
    assert info["skipped"]["outside_rule_code"] == 4          # the runs of whole modules (a and c)
    with pytest.raises(SystemExit, match="no earlier run"):
        K.combine_runs([tmp_path / "b"] + [tmp_path / "a"])
    doc = tmp_path / "doc.md"
    K.write_doc("island_of_death", [tmp_path / "a", tmp_path / "b", tmp_path / "c"], doc)
    iod = K.game_blocks(doc.read_text())["island_of_death"]
    assert "3 runs taken together" in iod and "`--only victory.py:surrender_phase`" in iod


def test_env_parts():
    env = K.run_env(Path("/c"), False, {"A": "1"})
    unset, values = K.env_parts(env)
    assert unset == ["MALTA_SIM_NUMBA_CACHE_SET", "NUMBA_DISABLE_JIT"]
    assert values == {"NUMBA_CACHE_DIR": "/c", "NUMBA_DISABLE_JIT": "1", "A": "1"}


def test_worker_runs_tests_in_the_copy_and_reports_failures(tmp_path):
    """A fork of the worker runs pytest in the given folder: a passing test gives 0, a failing
    run (here: an id that does not exist) a non-zero status, as a fresh python -m pytest would."""
    env = K.run_env(tmp_path / "numba", False, {})
    w = K.Worker(["numpy"], env, tmp_path / "log.txt")
    try:
        rc, out = w.run(ROOT, ["tests/test_rule_knockout.py::test_section_of"], env, timeout=120)
        assert rc == 0, out
        rc, out = w.run(ROOT, ["tests/test_rule_knockout.py::no_such_test"], env, timeout=120)
        assert rc not in (0, None), out
    finally:
        w.close()


# --- the results ledger -----------------------------------------------------------------------------------

def _outcomes(ms):
    return sorted((m["module"], m["function"], int(m["line"]), m["outcome"]) for m in ms)


def test_ledger_takes_a_partial_run_over_it_and_keeps_the_rest(tmp_path):
    """A ledger written from a full run, with a later --only run laid over it: the re-run
    function's mutants are the new ones, the others stay, each row keeps its run's record;
    a run of single functions needs no earlier run of their module when the ledger holds it."""
    _fake_run(tmp_path / "a", [("victory.py", "surrender_phase", 1, "survived"), ("victory.py", "weather", 2, "killed"),
                               ("morale.py", "recover", 3, "survived")], None, ["victory.py", "morale.py"], "2026-01-01 00:00")
    led = tmp_path / "ledger" / "island_of_death.csv"
    ms, info = K.combine_runs([tmp_path / "a"], "island_of_death")
    K.write_ledger("island_of_death", ms, info, led)
    assert K.is_ledger(led) and K.is_ledger(led.with_suffix(".json")) and not K.is_ledger(tmp_path / "a")
    text = led.read_text().splitlines()
    assert text[0] == ",".join(K.LEDGER_COLS)
    killed = next(x for x in text if ",weather," in x)
    assert killed.endswith(",,")                     # the text of a killed mutant is not kept
    assert "x1,y1" in next(x for x in text if ",surrender_phase," in x)
    rows, record = K.read_ledger(led)
    assert _outcomes(rows) == _outcomes(ms) and record["modules"] == ["morale.py", "victory.py"]
    assert record["skipped"] == {"morale.py+victory.py": dict(operator=1, annotation=0, outside_rule_code=2)}

    _fake_run(tmp_path / "b", [("victory.py", "surrender_phase", 5, "killed"), ("victory.py", "surrender_phase", 6, "killed")],
              "victory.py:surrender_phase", ["victory.py"], "2026-01-02 00:00")
    with pytest.raises(SystemExit, match="no earlier run"):
        K.combine_runs([tmp_path / "b"])
    ms, info = K.combine_runs([led, tmp_path / "b"], "island_of_death")
    assert _outcomes(ms) == [("morale.py", "recover", 3, "survived"), ("victory.py", "surrender_phase", 5, "killed"),
                             ("victory.py", "surrender_phase", 6, "killed"), ("victory.py", "weather", 2, "killed")]
    assert [(r["date"][:10], r["counted"]) for r in info["runs"]] == [("2026-01-01", 2), ("2026-01-02", 2)]
    K.write_ledger("island_of_death", ms, info, led)
    rows, record = K.read_ledger(led)
    assert _outcomes(rows) == _outcomes(ms)
    assert [r["only"] for r in record["runs"]] == [None, "victory.py:surrender_phase"]
    assert {(m["function"], m["_run"]["date"][:10]) for m in rows} == {
        ("recover", "2026-01-01"), ("weather", "2026-01-01"), ("surrender_phase", "2026-01-02")}

    # a run of a whole module replaces all of it; a run left with no row is dropped from the records
    _fake_run(tmp_path / "c", [("victory.py", "weather", 7, "survived")], "victory.py", ["victory.py"], "2026-01-03 00:00")
    ms, info = K.combine_runs([led, tmp_path / "c"], "island_of_death")
    assert _outcomes(ms) == [("morale.py", "recover", 3, "survived"), ("victory.py", "weather", 7, "survived")]
    assert [(r["date"][:10], r["counted"]) for r in info["runs"]] == [("2026-01-01", 1), ("2026-01-03", 1)]
    # the left-out counts: the later enumeration of victory.py cannot split the group it shared with morale.py
    assert info["skipped"]["outside_rule_code"] == 4
    with pytest.raises(SystemExit, match="not of invasion_malta"):
        K.combine_runs([led], "invasion_malta")


def test_ledger_option_updates_the_ledger_and_renders_it(tmp_path, capsys):
    """``--ledger CSV --from RUN --write-doc DOC``: the ledger is read first, the run laid
    over it, the ledger written back, and the report rendered from it."""
    _fake_run(tmp_path / "a", [("victory.py", "surrender_phase", 1, "survived"), ("victory.py", "weather", 2, "killed")],
              None, ["victory.py"], "2026-01-01 00:00")
    _fake_run(tmp_path / "b", [("victory.py", "surrender_phase", 5, "killed")], "victory.py:surrender_phase",
              ["victory.py"], "2026-01-02 00:00")
    led, doc = tmp_path / "island_of_death.csv", tmp_path / "doc.md"
    with pytest.raises(SystemExit, match="does not exist yet"):
        K.main(["--game", "island_of_death", "--ledger", str(led)])
    assert K.main(["--game", "island_of_death", "--ledger", str(led), "--from", str(tmp_path / "a")]) == 0
    assert K.main(["--game", "island_of_death", "--ledger", str(led), "--from", str(tmp_path / "b"),
                   "--write-doc", str(doc)]) == 0
    rows, record = K.read_ledger(led)
    assert _outcomes(rows) == [("victory.py", "surrender_phase", 5, "killed"), ("victory.py", "weather", 2, "killed")]
    assert len(record["runs"]) == 2
    iod = K.game_blocks(doc.read_text())["island_of_death"]
    assert "2 runs taken together" in iod and "`--only victory.py:surrender_phase`" in iod
    assert "These modules: 2 mutants, 2 killed" in iod
    # the fake functions are not in victory.py: the report says their results are not of the code now
    assert "Code changed since its run: 2 mutants of 2 functions" in iod
    # the same ledger named in --from too is read once
    assert K.main(["--game", "island_of_death", "--ledger", str(led), "--from", str(led)]) == 0
    assert len(K.read_ledger(led)[0]) == 2


def test_check_code_follows_moved_functions_and_flags_changed_ones(tmp_path):
    target = K.Target(package="pkg", modules=("plain.py",))
    (tmp_path / "pkg").mkdir()
    mod = tmp_path / "pkg" / "plain.py"
    mod.write_text(SRC)
    idx = K.CodeIndex(target, tmp_path)
    lines = SRC.splitlines()

    def row(fn, text, fp=True):
        line = next(k for k, t in enumerate(lines, 1) if t.strip() == text)
        r = dict(module="plain.py", function=fn, line=str(line), original=text)
        if fp:  # a row of a run folder written before runs recorded the fingerprint has none
            r["fn_line"], r["fn_hash"] = idx.fingerprint("plain.py", fn)
        return r

    assert idx.fingerprint("plain.py", "Grid")[0] == 8 and idx.fingerprint("plain.py", "nothing") == (0, "")
    rows = [row("alone", "return x is None"), row("Grid", "return self.n + 1"), row("outer", "return w - 1"),
            row("outer", "return inner(v) * 2", fp=False)]
    assert K.check_code(rows, target, tmp_path) == {}
    assert rows[3]["fn_hash"] == rows[2]["fn_hash"]      # an old row that still reads as it did takes the hash now
    # two lines above Grid, and outer changed: Grid's rows move with it, outer's are flagged
    mod.write_text(SRC.replace("class Grid:", "X = 1\n\n\nclass Grid:").replace("return w - 1", "return w - 2"))
    before = [int(r["line"]) for r in rows]
    changed = K.check_code(rows, target, tmp_path)
    assert changed == {("plain.py", "outer"): 2}
    assert [int(r["line"]) for r in rows] == [before[0], before[1] + 3, before[2], before[3]]
    new = K.CodeIndex(target, tmp_path)
    assert new.line("plain.py", int(rows[1]["line"])) == "return self.n + 1"
    legacy = [dict(row("outer", "return inner(v) * 2", fp=False), original="return w - 1")]
    assert K.check_code(legacy, target, tmp_path) == {("plain.py", "outer"): 1} and legacy[0]["fn_hash"] == ""


def test_recover_reads_the_report_block():
    from benchmarks import rule_knockout_recover as R

    block = "\n".join([
        "<!-- game: island_of_death -->",
        "- 2026-12-02 13:47: 15 mutants of `--only a.py,b.py`, 1 jobs, 69.3 minutes",
        "- 2026-12-02 14:28: 7 mutants of `--only a.py:f`, 2 jobs, 1.2 minutes",
        "**`a.py` `f`**", "",
        "- line 3, `x < 1` → `x <= 1`: UNEXPLAINED",
        "- line 4, `y = `z`` → `y = `z` + 1`: equivalent: a reason: with → an arrow",
        "<!-- end game: island_of_death -->"])
    runs, survivors = R.parse_block(block)
    assert [(r["date"][-5:], r["only"], r["modules"], r["mutants"], r["jobs"], r["wall_s"]) for r in runs] == [
        ("13:47", "a.py,b.py", ["a.py", "b.py"], 15, 1, 4158.0), ("14:28", "a.py:f", ["a.py"], 7, 2, 72.0)]
    assert survivors == [("a.py", "f", 3, "x < 1", "x <= 1"), ("a.py", "f", 4, "y = `z`", "y = `z` + 1")]
    assert R.covers(runs[1], "a.py", "f", ()) and not R.covers(runs[1], "a.py", "g", ())
    assert [R.covers(r, "b.py", "g", ()) for r in runs] == [True, False]


def _doc_totals(game):
    block = K.game_blocks((ROOT / "docs" / "rule_knockout.md").read_text())[game]
    import re

    m = re.search(r"^All rule code: (\d+) mutants, (\d+) killed \(\d+%\), (\d+) survived", block, re.M)
    return tuple(int(x) for x in m.groups())


@pytest.mark.parametrize("game", sorted(K.TARGETS))
def test_committed_ledger_parses_and_agrees_with_the_report(game):
    """The committed ledger of each game reads back, every row names a run record and a
    mutated module, and its totals are those of the game's part of docs/rule_knockout.md
    (render the report with --ledger, so that the two stay together)."""
    led = K.ledger_path(game)
    rows, record = K.read_ledger(led)
    assert record["game"] == game and record["mutants"] == len(rows)
    assert set(record["modules"]) <= set(K.TARGETS[game].modules)
    assert {m["module"] for m in rows} <= set(record["modules"])
    assert all(0 <= int(m["run"]) < len(record["runs"]) for m in rows)
    assert all(m["outcome"] for m in rows)
    assert all(m["original"] for m in rows if m["outcome"] == "survived")
    killed = sum(m["outcome"] in ("killed", "timeout") for m in rows)
    survived = sum(m["outcome"] == "survived" for m in rows)
    assert (len(rows), killed, survived) == _doc_totals(game)


def test_runs_that_list_their_functions_and_left_out_counts_per_module(tmp_path):
    """A run folder that lists the functions it scored and its left-out mutants per module:
    a later run of one module replaces that module's counts only, and the report names the
    functions the coverage rows name that no run scored (their sections partial)."""
    import json

    def fake(folder, rows, only, modules, date, by_module, functions):
        _fake_run(folder, rows, only, modules, date)
        info = json.loads((folder / "run.json").read_text())
        info.update(skipped_by_module=by_module, functions=functions)
        (folder / "run.json").write_text(json.dumps(info))

    cnt = lambda n: dict(operator=n, annotation=0, outside_rule_code=n)  # noqa: E731
    fake(tmp_path / "a", [("victory.py", "surrender_phase", 1, "killed"), ("morale.py", "recover", 3, "survived")], None,
         ["victory.py", "morale.py"], "2026-01-01 00:00", {"victory.py": cnt(1), "morale.py": cnt(2)},
         ["morale.py:recover", "victory.py:surrender_phase"])
    fake(tmp_path / "b", [("victory.py", "surrender_phase", 5, "killed")], "victory.py", ["victory.py"], "2026-01-02 00:00",
         {"victory.py": cnt(5)}, ["victory.py:surrender_phase"])
    ms, info = K.combine_runs([tmp_path / "a", tmp_path / "b"], "island_of_death")
    assert info["skipped"]["outside_rule_code"] == 7 and set(info["skipped_parts"]) == {"victory.py", "morale.py"}
    assert info["functions"] == ["morale.py:recover", "victory.py:surrender_phase"]
    doc = tmp_path / "doc.md"
    K.write_doc("island_of_death", [tmp_path / "a", tmp_path / "b"], doc)
    iod = K.game_blocks(doc.read_text())["island_of_death"]
    cited = K.cited_functions(K.read_rows("island_of_death"), K.TARGETS["island_of_death"], modules=["victory.py"])
    others = [x for x in cited if x != "victory.py:surrender_phase"]
    assert others and "Named by coverage rows but never run" in iod and f"`{others[0]}`" in iod
    # 20.3 names only surrender_phase; 20.0 names surrender_modifier, never run: not listed as a section without code
    assert "| 20.3 | 20.3 | 1 | 1 |" in iod and "| 20.0 " not in iod and "victory.py:surrender_modifier" in cited
