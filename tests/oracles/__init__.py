"""Second implementations of rule queries and bot decisions: test oracles.

Each function here answers what a function of the package answers, written
the plain way (loops over units and hexes, no compiled kernels, no kept
answers).  The tests run both on random positions and on every call of
recorded games and demand equal answers.  Nothing in the package imports
this folder.
"""
