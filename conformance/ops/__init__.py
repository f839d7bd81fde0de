"""One folder per operator: everything that knows the operator's semantics."""
