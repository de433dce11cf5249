"""Game engines: ``island_of_death`` and ``invasion_malta``; :mod:`.registry` names their scenarios."""
