"""Smoke tests of the benchmark scripts: the measuring functions of ``benchmarks/run.py``
run on tiny sizes and its report renders (no timing is asserted: figures depend on the
machine and its load); the replay check of ``benchmarks/kernel_replay.py`` sees a changed
answer."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from benchmarks import kernel_replay as KR  # noqa: E402
from benchmarks import run as R  # noqa: E402
from malta_sim.bots import forecast as fc, move_choice as mc  # noqa: E402


def _fake_results(quick=True):
    """A result dict shaped like ``run_all``'s, with made-up numbers."""
    return {
        "machine": R.machine_info(),
        "quick": quick,
        "setup": [{"scenario": "hercules", "import_s": 1.0, "data_load_s": 0.5, "first_game_s": 2.0,
                   "same_game_again_s": 0.5, "numba_and_lazy_setup_s": 1.5, "setup_total_s": 3.0,
                   "setup_cpu_s": 2.0}],
        "games": [{"scenario": s, "workers": w, "games": 2, "wall_s": 1.0, "games_per_s": 2.0, "cpu_s": 1.0,
                   "games_per_cpu_s": 2.0, "load_average": 1.0} for s in ("intro", "hercules") for w in (1, 2)],
        "kernels": [{"kernel": "combat (CRT)", "per_s_per_core": 2e7, "speedup_vs_reference": 100.0,
                     "reference_per_s": 2e5, "n_compiled": 10, "n_reference": 10}],
        "memory": {"real": {"peak_rss_bytes": 3 * 2**28}, "replay_small": {"peak_rss_bytes": 2**28},
                   "replay_full": {"peak_rss_bytes": 2**29}, "measured_games": 5, "full_games": 100_000,
                   "peak_memory_gib_full": 1.0},
        "peak_memory_gib_100k": 1.0,
        "warm_start": {"runs_s": [2.0, 3.0], "warm_start_s": 2.0, "cpu_s": [1.5, 1.6], "numba_compiled": 0,
                       "numba_loaded_from_cache": 13},
        "warm_start_s": 2.0,
    }


def test_machine_info_and_cpu_accounting():
    m = R.machine_info()
    for key in ("cpu", "logical_cores", "usable_cores", "python", "numba", "date_utc"):
        assert key in m
    cpu = R.tree_cpu_seconds()
    if Path("/proc").is_dir():
        assert any(v >= 0 for v in cpu.values())


def test_games_rate_on_one_game():
    g = R.bench_games("hercules", 1, 1)
    assert g["scenario"] == "hercules" and g["workers"] == 1 and g["games"] == 1
    assert g["games_per_s"] > 0 and g["wall_s"] > 0


def test_memory_probe_replay_mode(tmp_path):
    """The replaying engine of the memory estimate runs the real runner to disk."""
    rows = tmp_path / "rows.parquet"
    pd.DataFrame({"game": [0, 1], "winner": ["axis", "allied"], "end_reason": ["surrender", "last_turn"],
                  "end_turn": [5, 47]}).to_parquet(rows)
    out = R._probe(["memory", "replay", "25", "1", str(tmp_path / "ck"), str(tmp_path / "o.parquet"), str(rows)])
    assert out["rows"] == 25 and out["peak_rss_bytes"] > 0
    assert (tmp_path / "ck" / "manifest.json").is_file()
    df = pd.read_parquet(tmp_path / "o.parquet")
    assert list(df["game"]) == list(range(25))


def test_report_table_and_docs_refresh(tmp_path):
    res = _fake_results()
    table = R.results_table(res)
    assert "| hercules | 2 |" in table and "combat (CRT)" in table and "< 2 GiB" in table and "< 5 s" in table
    doc = tmp_path / "performance.md"
    doc.write_text(f"# Performance\n\nintro text\n\n{R.MARK_START}\nold\n{R.MARK_END}\n\n## After\n")
    R.refresh_docs(res, doc)
    text = doc.read_text()
    assert "old" not in text and "intro text" in text and "## After" in text and "| intro | 1 |" in text
    R.refresh_docs(res, doc)  # idempotent: one table, markers kept
    assert doc.read_text().count(R.MARK_START) == 1
    json.dumps(res)


def test_main_json_without_slow_parts(tmp_path, monkeypatch):
    """``main --quick --json`` end to end, with the expensive measurements stubbed to tiny sizes."""
    monkeypatch.setattr(R, "QUICK", R.Sizes(games={"intro": 1, "hercules": 1}, memory_games=1, memory_full=10,
                                            warm_start_runs=1, kernels_quick=True))
    monkeypatch.setattr(R, "bench_setup", lambda sc: _fake_results()["setup"][0] | {"scenario": sc})
    monkeypatch.setattr(R, "bench_games", lambda sc, w, n: _fake_results()["games"][0] | {"scenario": sc, "workers": w})
    out = tmp_path / "bench.json"
    doc = tmp_path / "perf.md"
    R.main(["--quick", "--json", str(out), "--docs", str(doc), "--skip", "kernels", "memory", "warm_start"])
    res = json.loads(out.read_text())
    for key in ("machine", "games", "kernels", "peak_memory_gib_100k", "warm_start_s"):
        assert key in res
    assert {(g["scenario"], g["workers"]) for g in res["games"]} == {(s, w) for s in ("intro", "hercules") for w in (1, 2)}
    assert R.MARK_START in doc.read_text()


@pytest.mark.parametrize("name", ["run", "profile_game", "_probe", "kernel_share"])
def test_scripts_have_docstrings(name):
    import importlib

    mod = importlib.import_module(f"benchmarks.{name}")
    assert mod.__doc__ and len(mod.__doc__) > 40


def test_docs_from_saved_json(tmp_path):
    """``--from-json`` re-renders the table (with the idle estimate) without measuring."""
    res = _fake_results()
    src = tmp_path / "r.json"
    src.write_text(json.dumps(res))
    doc = tmp_path / "perf.md"
    R.main(["--from-json", str(src), "--docs", str(doc)])
    text = doc.read_text()
    assert "idle estimate" in text and "| hercules | 2 | 2 | 1.0 | 2.00 | 2.00 |" in text


def test_kernel_share_on_two_games():
    """``benchmarks/kernel_share.py`` times the compiled calls of real games and
    puts every dispatcher back afterwards."""
    from benchmarks import kernel_share as K
    from malta_sim.iod import game as game_mod

    before = game_mod.units_in_run
    r = K.kernel_share("intro", n_games=2, warm_games=1)
    assert game_mod.units_in_run is before                     # restored
    assert r["kernel_calls"] > 0 and 0 < r["kernel_ms"] < r["wrapped_ms"]
    assert {"kernel", "calls", "us_per_call", "ms", "args"} <= set(r["kernels"][0])
    assert r["kernels"] == sorted(r["kernels"], key=lambda k: -k["ms"])
    # arguments counted per call: at least one a call for every kernel that takes one
    assert r["kernel_args"] == pytest.approx(sum(k["args"] for k in r["kernels"]))
    by_name = {k["kernel"]: k for k in r["kernels"]}
    assert by_name["units_in_run"]["args"] == pytest.approx(4 * by_name["units_in_run"]["calls"])


def test_dispatch_cost_measures_both_calls():
    """``kernel_share.dispatch_cost`` times an empty compiled call with no
    argument and with arrays; the per-array figure is their difference."""
    from benchmarks import kernel_share as K

    d = K.dispatch_cost(n_arrays=8, repeat=200)
    assert d["n_arrays"] == 8 and d["no_args_us"] > 0 and d["arrays_us"] > 0
    assert d["per_array_us"] == pytest.approx((d["arrays_us"] - d["no_args_us"]) / 8)


# ------------------------------------------------------------------ benchmarks/kernel_replay.py
@pytest.fixture(scope="module", params=["hercules", "intro"])
def recorded(request):
    """The calls of the walk and the attack pick in whole seeded games of one
    scenario (default bots), with their answers."""
    return KR.capture(("axis_walk_kernel", "best_attack"), (request.param,), n_games=4, seed=77,
                      warm_games=1)


def test_replay_check_can_fail(recorded):
    """The comparison passes the kernels themselves and sees a difference: a
    kernel that moves one walk's destination one hex, or scores one attack
    otherwise, is caught."""
    def shifted(*a):
        out = mc.axis_walk_kernel(*a)
        steps = out[0].copy()
        if steps[0, 1] == mc.MOVE:
            steps[0, 2] += 1
        return (steps,) + tuple(out[1:])

    walk = recorded["calls"]["axis_walk_kernel"]
    picks = recorded["calls"]["best_attack"]
    assert len(walk) >= 5 and len(picks) >= 5
    assert KR.check_calls(mc.axis_walk_kernel, walk, recorded["arrays"], "axis_walk_kernel") == []
    assert KR.check_calls(fc.best_attack, picks, recorded["arrays"], "best_attack") == []
    assert KR.check_calls(shifted, walk, recorded["arrays"], "axis_walk_kernel")

    def other_status(*a):
        best, size = fc.best_attack(*a)
        return best + 1, size

    assert KR.check_calls(other_status, picks, recorded["arrays"], "best_attack")


def test_old_vs_new_times_both_versions_in_turns():
    """``benchmarks/old_vs_new.py``: one round over one game per version (both the
    checkout here) gives a rate per version and their ratio; a revision that is
    not one of this repository is refused with exit status 2."""
    from benchmarks import old_vs_new as OV

    seen = []
    res = OV.compare(ROOT, ROOT, "intro", 1, 1, echo=seen.append, warm=1)
    assert len(res["old"]) == len(res["new"]) == len(res["ratios"]) == 1
    assert res["median_old"] > 0 and res["median_new"] > 0
    assert res["median_ratio"] == pytest.approx(res["median_new"] / res["median_old"])
    assert seen and seen[0].startswith("round 1/1")
    assert OV.main(["no-such-revision-xyz"]) == 2
    # a named pairing reaches the timed games
    t = OV.time_version(ROOT, "hercules", 1, 5, {"axis_policy": "cautious", "allied_policy": "static"}, warm=2)
    assert t["bots"] == ["cautious", "static"] and t["games"] == 1
    # every turn of the timed game is timed, by its turn number (Hercules starts on turn 0)
    per = {int(k): v for k, v in t["per_turn"].items()}
    assert sorted(per) == list(range(len(per))) and sum(n for n, _ in per.values()) == t["turns"]
    assert all(c > 0 for _, c in per.values())
    # bots named for the old version only: each version plays its own pairing
    res = OV.compare(ROOT, ROOT, "hercules", 1, 1, echo=seen.append, warm=1,
                     policies={"axis_policy": "cautious", "allied_policy": "static"},
                     old_policies={"axis_policy": "random", "allied_policy": "static"})
    assert res["old_bots"] == ["random", "static"] and res["new_bots"] == ["cautious", "static"]


def test_turn_matched_ratio_weighs_both_versions_turns_alike():
    """The turn-matched ratio compares the mean cost of each turn number, weighted by
    how often both versions played it: a version whose games skip cheap late turns
    is not credited for it, and rare turn numbers are left out."""
    from benchmarks import old_vs_new as OV

    # same cost per turn number, the new games end sooner: ratio 1 (games per
    # CPU-second would favour the new, turns per CPU-second the old)
    old = {"0": [10, 1.0], "1": [10, 1.0], "2": [10, 0.1], "3": [10, 0.1]}
    new = {"0": [10, 1.0], "1": [10, 1.0], "2": [4, 0.04]}
    assert OV.turn_matched_ratio(old, new) == pytest.approx(1.0)
    # the new costs twice as much on turn 0 only: (20*0.1 + 20*0.1) / (20*0.2 + 20*0.1)
    new = {"0": [10, 2.0], "1": [10, 1.0]}
    assert OV.turn_matched_ratio(old, new) == pytest.approx(4.0 / 6.0)
    # turn numbers either version played fewer than min_count times are left out
    assert OV.turn_matched_ratio(old, {"0": [2, 5.0], "1": [10, 1.0]}) == pytest.approx(1.0)
    assert math.isnan(OV.turn_matched_ratio({"0": [1, 1.0]}, {"0": [1, 1.0]}))


def test_interleaved_unpacks_a_revision_as_a_package_of_its_own(tmp_path):
    """``benchmarks/interleaved.py``: the old revision's ``malta_sim`` is unpacked
    under another package name with every ``malta_sim`` word of its Python files
    renamed (so both versions import side by side), and kept for the next run;
    a revision that is not one of this repository is refused (exit status 2)."""
    import re

    from benchmarks import interleaved as IL

    path, name = IL.old_package("HEAD", root=tmp_path)
    assert re.fullmatch(r"malta_sim_[0-9a-f]{10}", name)
    pkg = path / name
    assert (pkg / "__init__.py").exists() and (pkg / "iod" / "sequence.py").exists()
    word = re.compile(r"\bmalta_sim\b")
    assert not [p for p in pkg.rglob("*.py") if word.search(p.read_text(encoding="utf-8"))]
    assert f"from {name}." in (pkg / "iod" / "sequence.py").read_text(encoding="utf-8")
    stamp = (pkg / "__init__.py").stat().st_mtime_ns
    assert IL.old_package("HEAD", root=tmp_path) == (path, name)          # kept, not unpacked again
    assert (pkg / "__init__.py").stat().st_mtime_ns == stamp
    with pytest.raises(ValueError, match="not a revision"):
        IL.old_package("no-such-revision-xyz", root=tmp_path)
    assert IL.main(["no-such-revision-xyz"]) == 2
    assert IL.main(["no-such-revision-xyz", "--processes", "2"]) == 2


def test_interleaved_keeps_only_the_games_every_version_plays_alike():
    """``benchmarks/interleaved.py --identical``: a game counts as played alike
    only when its event log and its per-turn rows have the same digests in
    every version; a version whose log differs in one game, or whose per-turn
    rows differ in another, loses exactly those games."""
    from benchmarks import interleaved as IL
    from malta_sim.games.registry import get_scenario

    play = get_scenario("intro").play_fn()
    kw = {"axis_policy": "random", "allied_policy": "static", "options": ("no_invasion",)}

    def changed(log_game, turn_game):
        def play2(*args, **kw2):
            res = play(*args, **kw2)
            ev = res.events
            first = ev.index[ev["game"] == log_game][0]
            ev.loc[first, "result"] = str(ev.loc[first, "result"]) + " (changed)"
            pt = res.per_turn
            last = pt.index[pt["game"] == turn_game][-1]
            pt.loc[last, pt.columns[-1]] = -1
            return res
        return play2

    same = IL.identical_games({"a": (play, kw), "b": (play, kw)}, "intro", 5, 4)
    assert same.tolist() == [0, 1, 2, 3] and same.dtype == np.int64
    same = IL.identical_games({"a": (play, kw), "b": (changed(1, 2), kw)}, "intro", 5, 4)
    assert same.tolist() == [0, 3]

    def no_log(*args, **kw2):                  # a version that keeps no log cannot be compared
        res = play(*args, **kw2)
        res.events = None
        return res

    with pytest.raises(ValueError, match="no event log"):
        IL.identical_games({"a": (play, kw), "b": (no_log, kw)}, "intro", 5, 2)
    # the games timed without logs are checked again on their result rows
    res = play("intro", 5, np.arange(3), **kw)
    IL._same_results(res.games, res.games.copy(), np.arange(3))
    other = res.games.copy()
    other.loc[1, "end_turn"] = int(other.loc[1, "end_turn"]) + 1
    with pytest.raises(ValueError, match="game 7 gave other result rows"):
        IL._same_results(res.games, other, np.array([4, 7, 9]))


def test_interleaved_ratios_and_their_paired_intervals():
    """The ratios new/old of ``benchmarks/interleaved.py`` from per-block CPU
    seconds: a new version at half the old's time per block is twice as fast
    per game, with an interval around 2 that the block-to-block drift of the
    host (common to both versions of a block) does not widen; per game turn
    the ratio also weighs the turns each version played."""
    from benchmarks import interleaved as IL

    rng = np.random.default_rng(3)
    drift = rng.uniform(0.5, 2.0, 60)                      # the host's speed, block by block
    old = 0.4 * drift * rng.normal(1.0, 0.01, 60)
    new = 0.2 * drift * rng.normal(1.0, 0.01, 60)
    turns = np.full(60, 50.0)
    r = IL.summarise(old, new, turns, turns)
    assert r["ratio"] == pytest.approx(2.0, rel=0.01)
    lo, hi = r["ratio_ci"]
    assert lo < r["ratio"] < hi and hi - lo < 0.05
    assert r["turn_ratio"] == pytest.approx(r["ratio"])
    # the new plays games half as long: per turn it is no faster
    r = IL.summarise(old, new, turns, turns / 2)
    assert r["turn_ratio"] == pytest.approx(1.0, rel=0.01)
    assert r["turn_ratio_ci"][0] < 1.0 < r["turn_ratio_ci"][1]


def test_interleaved_interval_over_runs_and_compile_clock():
    """``benchmarks/interleaved.py``: the interval over separate runs is
    Student's t on the logarithms of their ratios (none for one run); the
    compile clock counts a numba compilation once however deeply it nests,
    and not a second call of the compiled function."""
    import numba as nb
    from numba.core import event
    from scipy import stats

    from benchmarks import interleaved as IL

    g, lo, hi = IL.over_runs([0.9, 1.0, 1.1])
    x = np.log([0.9, 1.0, 1.1])
    half = stats.t.ppf(0.975, 2) * x.std(ddof=1) / np.sqrt(3)
    assert g == pytest.approx(np.exp(x.mean()))
    assert (lo, hi) == pytest.approx((np.exp(x.mean() - half), np.exp(x.mean() + half)))
    assert lo < 0.9 and hi > 1.1
    g, lo, hi = IL.over_runs([1.2])
    assert g == pytest.approx(1.2) and math.isnan(lo) and math.isnan(hi)

    @nb.njit
    def inner(a):
        return a + 1

    @nb.njit
    def outer(a):
        return inner(a) * 2

    clock = IL.CompileClock()
    with event.install_listener("numba:compile", clock.listener()):
        assert outer(3) == 8
        n, spent = clock.count, clock.total
        assert outer(4) == 10                      # compiled already: nothing more
    assert n == 1 and spent > 0
    assert clock.count == 1 and clock.total == spent


def test_work_matched_times_each_operation_of_the_engine():
    """``benchmarks/work_matched.py``: the timers go around the engine's own
    functions (calls from inside their modules included), count the calls,
    leave the games as they were, and are taken off again; an unknown
    revision is refused (exit status 2)."""
    from benchmarks import work_matched as WM
    from malta_sim.batch import run_games
    from malta_sim.iod.rules import combat, movement

    kw = {"axis_policy": "balanced", "allied_policy": "static"}
    before = run_games("hercules", 1, 11, n_jobs=1, **kw)
    plain = movement.execute_move, combat.resolve_attack
    acc, restore = WM.instrument("malta_sim")
    try:
        assert set(acc) == {label for label, _m, _f in WM.OPERATIONS}
        after = run_games("hercules", 1, 11, n_jobs=1, **kw)
        for label in ("move (6.1)", "attack (9.3)"):
            calls, spent = acc[label]
            assert calls > 0 and spent > 0
    finally:
        restore()
    assert (movement.execute_move, combat.resolve_attack) == plain
    same = [c for c in before.columns if "time" not in c and "seconds" not in c]
    pd.testing.assert_frame_equal(before[same], after[same])
    assert WM.main(["no-such-revision-xyz"]) == 2
