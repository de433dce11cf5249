"""The Dask backend (local cluster) gives the same frames as the local backend."""

from __future__ import annotations

import pandas as pd
import pytest

pytest.importorskip("distributed")

import test_batch_fake_engine  # noqa: F401  (registers the test scenario)
from malta_sim import run_games

S = "batch-fake"


def test_dask_local_cluster_equals_local(tmp_path):
    ref_g, ref_t = run_games(S, 24, 13, per_turn=True, options=["rainy"])
    ck = tmp_path / "ck"
    # Part of the run on the local backend, the rest on Dask from the same checkpoint.
    run_games(S, 10, 13, options=["rainy"], checkpoint=ck, chunk_size=5)
    g, t = run_games(S, 24, 13, per_turn=True, options=["rainy"], backend="dask", n_jobs=2, chunk_size=5)
    pd.testing.assert_frame_equal(g, ref_g)
    pd.testing.assert_frame_equal(t, ref_t)
    g2 = run_games(S, 24, 13, options=["rainy"], backend="dask", n_jobs=2, chunk_size=3, checkpoint=ck)
    pd.testing.assert_frame_equal(g2, ref_g)
