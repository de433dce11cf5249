"""Cold build time of the Island of Death static data (one process per run).

Each run starts a fresh interpreter, imports the engine, then times what the
engine does to get its static data for the packaged folder
(``malta_sim.iod.engine._static_cached``: the validated loaders, then the
array builder).  Prints the median and the spread of ``--runs`` runs::

    python benchmarks/static_build_time.py --runs 5
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CHILD = r"""
import time
from malta_sim.iod.engine import _static_cached
t0 = time.perf_counter()
_static_cached.__wrapped__(None)
print(time.perf_counter() - t0)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    times = []
    for _ in range(args.runs):
        out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
        times.append(float(out.stdout.strip().splitlines()[-1]))
    print(f"cold static build: median {statistics.median(times):.3f} s, "
          f"min {min(times):.3f} s, max {max(times):.3f} s over {len(times)} runs")


if __name__ == "__main__":
    main()
