"""What every operator gives the stages, and nothing of any one operator: the outcome of a run
and its judgement, the case, variant and profile interfaces, a built graph, the operator record."""
