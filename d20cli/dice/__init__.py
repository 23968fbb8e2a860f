"""The dice engine: the syntax tree of a dice expression, its evaluation with the dice
kept, dropped, exploded and rerolled, exact distributions, and the rollers that supply
faces (random, seeded, forced with `--dice`, or every face for the odds walk).

Pure: no I/O and no global state. Knows dice, not requests or rules.
"""
