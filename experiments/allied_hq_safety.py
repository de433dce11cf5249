"""Does keeping the Allied HQ out of reach change who wins?

    python experiments/allied_hq_safety.py --games 400 --seed 2024 --reach 3

Replays read move by move showed the ``allied:active`` HQ left where it
starts (1612, with one artillery battalion) until Axis battalions attack and
eliminate it; ``allied_hqs_lost`` is 1 in about half the games.  Rule 16.81
makes that costly on paper: with the HQ gone, every Allied unit not in or
next to a city or fort is out of supply for the rest of the game.

This experiment plays ``allied:active`` against ``allied:active`` plus one
decision, as a user bot (:class:`HqSafeActive`; the engine's presets are not
changed): the first time in a movement phase the HQ may move with an Axis
ground unit within ``--reach`` hexes, it moves to the legal destination
farthest from the nearest Axis ground unit (capped at ``--reach`` + 1),
preferring a hex held by Allied combat units in a city or undestroyed fort
(8.52, 9.91), then any hex held by Allied combat units, then the fewest MP.

Both arms play ``axis:tuned`` on the same games (common random numbers) in
each scenario; the table gives the Allied HQs lost per game, the Axis win
rate of each arm and the paired difference (Tango interval, McNemar p,
:func:`malta_sim.analysis.paired.paired_comparison`).  Nothing is asserted:
this is a measurement (docs/policies.md, "The Allied HQ").
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from malta_sim.analysis.paired import paired_comparison  # noqa: E402
from malta_sim.bots import register_policy  # noqa: E402
from malta_sim.bots.allied import AlliedBot  # noqa: E402
from malta_sim.bots.base import Move  # noqa: E402
from malta_sim.bots.presets import PRESETS  # noqa: E402
from malta_sim.iod import static as st  # noqa: E402
from malta_sim.iod.rules.combat import defenders_in  # noqa: E402
from malta_sim.iod.state import AXIS, BOX_MAP  # noqa: E402
from malta_sim.play import play_games  # noqa: E402

#: Hexes within which an Axis ground unit makes the HQ move (``--reach``).
REACH = [3]


class HqSafeActive(AlliedBot):
    """``allied:active`` whose HQ withdraws from nearby Axis units (rules
    16.81, 8.52, 9.91, 6.1; see the module docstring)."""

    name = "active_hq_safe"
    preset_base = dict(PRESETS["active"][1])

    def next_move(self, game, mode, candidates):
        self._phase_reset(game, mode)
        mv = self._hq_withdrawal(game, mode, candidates)
        return mv if mv is not None else super().next_move(game, mode, candidates)

    def _hq_withdrawal(self, game, mode, candidates):
        t, s, tb = game.static, game.state, game.tables
        hqs = [u for u in candidates if t.utype[u] == st.HQ and ("hq", u) not in self._skip]
        if not hqs:
            return None
        u = int(hqs[0])
        self._skip.add(("hq", u))                     # one try a phase
        lo, hi = tb.side_run[AXIS]
        ax = [x for x in range(lo, hi) if s.box[x] == BOX_MAP and s.hex[x] >= 0
              and t.utype[x] not in (st.LEADER, st.WARSHIP)]
        if not ax:
            return None
        reach = REACH[0]
        dist = t.grid.distance_table
        ax_hexes = np.unique(s.hex[ax])
        here = int(s.hex[u])
        if int(dist[here, ax_hexes].min()) > reach:
            return None

        def score(h, mp):
            own = [x for x in defenders_in(game, h, self.side) if x != u and t.utype[x] != st.HQ]
            strong = bool(own) and bool(t.city[h] or (t.fort[h] and not s.fort_destroyed[h]))
            return (min(int(dist[h, ax_hexes].min()), reach + 1), strong, bool(own), -mp, -h)

        best, best_h = score(here, 0), here
        for h, mp in game.legal_moves(u, mode).items():
            sc = score(int(h), float(mp))
            if sc > best:
                best, best_h = sc, int(h)
        return Move(u, best_h) if best_h != here else None


register_policy("active_hq_safe", f"{__name__}:HqSafeActive")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--reach", type=int, default=3, help="hexes (1..6)")
    ap.add_argument("--scenario", nargs="+", default=["intro", "hercules"], choices=["intro", "hercules"])
    a = ap.parse_args(argv)
    if not 1 <= a.reach <= 6:
        ap.error("--reach must be 1..6")
    REACH[0] = a.reach
    rows = []
    for scen in a.scenario:
        frames = []
        for arm, bot in (("active", "allied:active"), ("hq_safe", "active_hq_safe")):
            g = play_games(scen, a.seed, range(a.games), axis_policy="axis:tuned",
                           allied_policy=bot).games
            frames.append(g.assign(arm=arm))
        df = pd.concat(frames, ignore_index=True)
        r = paired_comparison(df, "active", "hq_safe")
        lost = df.groupby("arm")["allied_hqs_lost"].mean()
        rows.append({"scenario": scen, "games": a.games,
                     "HQ lost (active)": round(float(lost["active"]), 3),
                     "HQ lost (hq_safe)": round(float(lost["hq_safe"]), 3),
                     "Axis wins (active)": round(r.rate_a, 3), "Axis wins (hq_safe)": round(r.rate_b, 3),
                     "difference": round(r.difference, 3),
                     "95% interval": f"[{r.low:+.3f}, {r.high:+.3f}]",
                     "discordant": f"{r.a_only} / {r.b_only}", "McNemar p": f"{r.mcnemar_pvalue:.2g}"})
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
