"""Stage 6: the HTML report: its data, the Python repro of each discrepancy, DirectML feature levels, templates."""
