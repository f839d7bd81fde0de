"""Stage 5: results. Result records and files, the output folder, time and verdict summaries."""
