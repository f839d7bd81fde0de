"""Stage 1: cases. Case files read and checked (loader, schema), inputs made by generators."""
