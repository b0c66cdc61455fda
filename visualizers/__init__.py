"""Pure functions from engine objects to pictures and tables (no streamlit here).

``canvas``     Pattern -> React Flow nodes/edges for the Design page's canvas
``automaton``  Pattern -> compiled automaton (networkx) -> plotly figure and edge table
``timeline``   events and matches -> tables, a plotly timeline, export frames
"""
