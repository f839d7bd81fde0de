"""Graphs: what the stages share about building them (the errors a build may end in)."""
