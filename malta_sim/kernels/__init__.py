"""Compiled (numba) kernels for the random and spatial work of Island of Death:
combat (:mod:`.crt`), bombardment (:mod:`.bombard`), drop and scatter
(:mod:`.drop`), hex paths (:mod:`.paths`) and line of fire (:mod:`.los`).

Every kernel is a pure function of arrays and, where dice are rolled, a per-game
xoshiro256** state from :mod:`malta_sim.rng`; each has an exact or plain-Python
counterpart in :mod:`malta_sim.exact` or beside it that the tests hold it to.
Why numba: these run inside the batch loop millions of times; Python-level
objects there would dominate the cost (see ``benchmarks/bench_kernels.py``).
"""
