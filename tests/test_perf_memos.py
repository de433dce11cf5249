"""The engine's and the bots' memos give the answers a fresh computation
gives, through whole games (``benchmarks/memo_oracle.py``).

The oracle runs in a child process (it wraps engine functions for its whole
process), plays a few games with every memo answer recomputed afresh at the
moment it is used, and fails on the first difference; the test also demands
that each memo was actually consulted, so a renamed or bypassed memo cannot
pass unchecked.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ORACLE = Path(__file__).resolve().parent.parent / "benchmarks" / "memo_oracle.py"

#: Memos every Hercules game under the default bots consults.
HERCULES_MEMOS = {"_zoc_memo", "_occupancy_memo", "_masks",
                  "dist_to_allied", "aa_within",
                  "phase_end_skip"}


def _run(*args):
    r = subprocess.run([sys.executable, str(ORACLE), *args], capture_output=True, text=True,
                       timeout=600)
    out = r.stdout + r.stderr
    checks = {}
    for line in out.splitlines():
        if line.startswith("checks:"):
            checks = ast.literal_eval(line.split(":", 1)[1].strip())
    return r.returncode, checks, out


@pytest.mark.parametrize("args, must_check", [
    (("hercules", "balanced", "static", "0", "2"), HERCULES_MEMOS),
    (("intro", "aggressive", "counterattack", "0", "1"), {"_zoc_memo"}),
    (("hercules", "random", "random", "0", "1", "delayed_landings"), {"_zoc_memo", "_masks", "last_legal"}),
])
def test_memos_equal_fresh_answers(args, must_check):
    rc, checks, out = _run(*args)
    assert rc == 0, out[-3000:]
    missing = sorted(m for m in must_check if checks.get(m, 0) == 0)
    assert not missing, f"memos never consulted: {missing}\n{out[-1500:]}"
