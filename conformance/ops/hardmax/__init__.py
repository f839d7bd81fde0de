"""Hardmax: a one-hot of the first maximum of each row, where what a row is depends on the graph."""
