"""Write the balance tables of docs/balance.md: the preset matrix and its
equilibrium for both Island of Death scenarios.

    python benchmarks/balance_tables.py --games 300 --seed 1942 --jobs 2

plays ``malta-sim balance`` for ``intro`` and ``hercules`` (every Axis preset
against every Allied preset, ``--games`` games a cell on common random
numbers; finished games are kept in ``--work``, so an interrupted run resumes
when run again), then rewrites the text between the ``<!-- balance:start -->``
and ``<!-- balance:end -->`` markers of ``docs/balance.md`` with the matrices,
the equilibria and how the tables were made.  ``--from-results`` re-renders
the doc from the result files of an earlier run without playing.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DOCS = ROOT / "docs" / "balance.md"
MARK_START, MARK_END = "<!-- balance:start -->", "<!-- balance:end -->"
SCENARIOS = ("intro", "hercules")


def _commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def section(scenario: str, games) -> str:
    """Markdown of one scenario's matrix and equilibrium from its result frame."""
    from malta_sim.analysis.balance import SUPPORT_TOL, analyse_balance, matrix_table

    res = analyse_balance(games)
    tab = matrix_table(res)
    L = [f"### {scenario}", ""]
    L.append("| Axis \\ Allied | " + " | ".join(f"`{c}`" for c in tab.columns) + " |")
    L.append("|---|" + "---|" * len(tab.columns))
    dom_ax = {d["preset"] for d in res.dominated_axis}
    dom_al = {d["preset"] for d in res.dominated_allied}
    for name, row in tab.iterrows():
        L.append(f"| `{name}`" + (" (dominated)" if name in dom_ax else "") + " | " + " | ".join(row) + " |")
    L.append("")

    def mix(names, w):
        return ", ".join(f"`{n}` {100 * x:.0f}%" for n, x in zip(names, w) if x > SUPPORT_TOL)
    L.append(f"Equilibrium Axis win rate **{100 * res.value:.1f}%** (95% bootstrap interval "
             f"{100 * res.value_low:.1f}% - {100 * res.value_high:.1f}%, {res.n_boot} resamples); Axis mixture "
             f"{mix(res.axis, res.axis_mixture)}; Allied mixture {mix(res.allied, res.allied_mixture)}."
             + (f" Dominated Allied presets: {', '.join(f'`{d}`' for d in sorted(dom_al))}." if dom_al else "")
             + (f" Games a cell for ±2 points: about {res.games_needed['0.04']}." if res.games_needed.get('0.04')
                else ""))
    L.append("")
    return "\n".join(L)


def render(frames: dict, games: int, seed: int) -> str:
    """The text between the markers: how it was made, then one section per scenario."""
    import malta_sim

    L = [f"Made on {_dt.date.today().isoformat()} at commit `{_commit()}` (malta_sim {malta_sim.__version__}) "
         f"with `python benchmarks/balance_tables.py --games {games} --seed {seed}`: {games} games a cell, seed "
         f"{seed}, the packaged (reconstructed) data.  Cell: Axis win rate (95% Wilson interval); `*`: a cell the "
         "equilibrium rests on.", ""]
    for scen, df in frames.items():
        L.append(section(scen, df))
    return "\n".join(L).rstrip()


def refresh_docs(text: str, path: Path = DOCS) -> None:
    """Replace the text between the balance markers of ``path``."""
    doc = path.read_text()
    if MARK_START not in doc or MARK_END not in doc:
        doc = doc.rstrip() + f"\n\n## Results\n\n{MARK_START}\n{MARK_END}\n"
    a = doc.index(MARK_START) + len(MARK_START)
    b = doc.index(MARK_END)
    path.write_text(doc[:a] + "\n" + text + "\n" + doc[b:])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300, help="games a cell (default 300)")
    ap.add_argument("--seed", type=int, default=1942)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--scenarios", nargs="*", default=list(SCENARIOS), choices=SCENARIOS)
    ap.add_argument("--work", default=str(ROOT / "benchmarks" / "balance_work"),
                    help="folder of the result files and checkpoints (resumable)")
    ap.add_argument("--docs", default=str(DOCS), help="markdown file whose balance tables are rewritten")
    ap.add_argument("--from-results", action="store_true", help="play nothing: re-render from --work")
    a = ap.parse_args(argv)
    from malta_sim.batch import read_frame, run_balance, write_frame

    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    frames = {}
    for scen in a.scenarios:
        out = work / f"{scen}_balance_{a.games}_{a.seed}.parquet"
        if out.exists():
            frames[scen] = read_frame(out)
            continue
        if a.from_results:
            raise SystemExit(f"no results for {scen} in {work} (run without --from-results first)")
        df = run_balance(scen, a.games, a.seed, n_jobs=a.jobs, checkpoint=work / f"{scen}.checkpoint",
                         progress=True)
        write_frame(df, out)
        frames[scen] = df
    text = render(frames, a.games, a.seed)
    refresh_docs(text, Path(a.docs))
    print(text)
    return frames


if __name__ == "__main__":
    main()
