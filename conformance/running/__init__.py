"""Stage 3: running graphs on backends: one case's variants on one backend (runner), the
whole run over worker processes (suite, workers)."""
