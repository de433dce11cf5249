"""Every game of the golden panel plays exactly as recorded in ``panel.csv``.

See :mod:`panel` (in this folder) for what the panel holds and how to
re-record it after a deliberate change of play.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import panel  # noqa: E402


def test_panel_has_every_pairing_of_both_scenarios():
    saved = panel.load()
    assert len(saved) >= 300
    cells = saved.groupby(["scenario", "axis_policy", "allied_policy"]).size()
    assert len(cells) == 2 * len(panel.AXIS) * len(panel.ALLIED)


def test_games_play_as_recorded():
    now = panel.play_panel()
    diff = panel.differences(panel.load(), now)
    assert diff.empty, (f"{len(diff)} of {len(now)} games differ from tests/golden/panel.csv:\n"
                        + diff.head(20).to_string(index=False))
