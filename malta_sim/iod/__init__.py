"""The Island of Death engine.

========================  ==========================================================
module                    holds
========================  ==========================================================
:mod:`.state`             the one registry of game-state fields (``FIELDS``)
:mod:`.static`            the static data of a data folder (unit, hex and chart arrays)
:mod:`.game`              one game in progress: state, static tables, dice, bots, log
:mod:`.setup`             set-up of a scenario's printed position (rules 3.0, 22)
:mod:`.scenarios`         the scenarios of rule 22 and their invasion set-up steps
:mod:`.sequence`          the sequence of play (rule 4), one function per phase
:mod:`.invasion`          the invasion's shared tables, per-game record and queries
:mod:`.rules`             one module per rule section (see its index)
:mod:`.engine`            entry points: set up, play, result rows
:mod:`.invariants`        whole-game invariants checked in test mode
:mod:`.proximity`         compiled queries of how near Allied pieces are
========================  ==========================================================

The engine imports no bot: the bots (:mod:`malta_sim.bots`) read its option
queries and state, and the engine checks every answer they give.
"""
