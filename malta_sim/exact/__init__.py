"""Exact counterparts of the kernels: full outcome distributions of a combat, a
bombardment and a drop (odds calculators), used by tests and ``malta-sim odds``."""
