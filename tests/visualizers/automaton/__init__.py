"""Tests of the automaton drawing's modules (visualizers/automaton/), each on its own.

- test_folding.py: the lazy tree's states that bind the same variables folded into one.
- test_styles.py: edge styles, state fills, what each state kind and move means.
- test_tables.py: the legend, edge and state tables under the figure.
"""
