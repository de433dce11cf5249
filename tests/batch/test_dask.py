"""The Dask backend gives the same frames as the local backend."""

from __future__ import annotations

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

import tests.batch.fake_engine  # noqa: F401  (registers the test scenario)
from malta_sim import run_games

S = "batch-fake"


def test_dask_equals_local(tmp_path):
    ref_g, ref_t = run_games(S, 24, 13, per_turn=True, options=["rainy"])
    ck = tmp_path / "ck"
    # Part of the run on the local backend ...
    run_games(S, 10, 13, options=["rainy"], checkpoint=ck, chunk_size=5)
    # ... the rest on a local cluster of two worker processes (no scheduler given).
    g, t = run_games(S, 24, 13, per_turn=True, options=["rainy"], backend="dask", n_jobs=2, chunk_size=5,
                     checkpoint=ck)
    pd.testing.assert_frame_equal(g, ref_g)
    pd.testing.assert_frame_equal(t, ref_t)
    # A running cluster reached through its scheduler address (in-process workers keep this fast).
    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                  dashboard_address=None) as cluster:
        g2 = run_games(S, 24, 13, options=["rainy"], backend="dask", scheduler=cluster.scheduler_address,
                       chunk_size=3)
    pd.testing.assert_frame_equal(g2, ref_g)


def test_unreachable_scheduler_is_an_option_error(monkeypatch):
    from malta_sim import batch
    from malta_sim.errors import OptionError

    monkeypatch.setattr(batch, "DASK_CONNECT_TIMEOUT", "1s")
    with pytest.raises(OptionError, match="--scheduler"):
        run_games(S, 2, 1, backend="dask", scheduler="tcp://127.0.0.1:9")
