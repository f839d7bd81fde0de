"""Benchmark scripts: each prints its figures as ratios against peers measured in the same run."""
