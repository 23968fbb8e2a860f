"""Exact odds: the same system resolvers replayed over every face (or every total of a
dice expression), summed into exact fractions. No printing: present.odds_view shows them.
"""
