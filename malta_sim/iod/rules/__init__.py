"""The rules of Island of Death, one module per rule section (or per topic of
a long section).  Find a rule by its number:

=======  ==========================================  ===========================================
section  rules                                       module
=======  ==========================================  ===========================================
2.1      control of hexes                            :mod:`.organisation`, :mod:`.phase_end_checks`
5-6      zones of control, movement, infiltration    :mod:`.movement`, :mod:`.one_hex_movement`
7        stacking                                    :mod:`.organisation`, :mod:`.phase_end_checks`
8        supply                                      :mod:`.supply`
9        combat: options, strengths, odds, CRT,      :mod:`.combat`, :mod:`.combat_options`,
         9.92 odds modifiers, losses, retreat,       :mod:`.column_shifts`,
         advance                                     :mod:`.retreat_advance`
10       bombardment, night combat, penetration      :mod:`.combat`
11       morale                                      :mod:`.morale`
12       artillery: support, ammunition              :mod:`.combat`, :mod:`.artillery`,
                                                     :mod:`.ammunition_routes`
13       breaking down and reforming battalions      :mod:`.organisation`, :mod:`.breakdown_reform`
14       leaders                                     :mod:`.organisation`, :mod:`.combat`
15       formations                                  :mod:`.organisation`
16.1     airfields                                   :mod:`.airfields`
16.2     strongpoints                                :mod:`.special_rules`
16.3     militia                                     :mod:`.militia`
16.4     air support                                 :mod:`.special_rules`, :mod:`.combat`
16.5     coastal guns                                :mod:`.coastal_guns`
16.6     security companies                          :mod:`.special_rules`, :mod:`.organisation`
16.7     warships                                    :mod:`.warships`
16.8     headquarters                                :mod:`.organisation`, :mod:`.supply`
17       special rules: forts, weather, remnants,    :mod:`.special_rules`, :mod:`.victory`,
         replacements, air attacks, Royal Navy,      :mod:`.organisation`, :mod:`.combat`
         delayed reaction, stragglers
18       amphibious landings                         :mod:`.amphibious`
19       airborne landings                           :mod:`.airborne`
20       victory conditions                          :mod:`.victory`
21       solo rules                                  :mod:`.solitaire`
22       scenarios                                   :mod:`malta_sim.iod.scenarios`
=======  ==========================================  ===========================================

``docs/rules_coverage.csv`` lists every printed rule number with the function
that implements it and the test that shows it.
"""
