"""Findings about runtimes: one record per finding (findings/ID/finding.yaml), its standalone
repro, and what the suite does with them (`topk-conformance findings`, docs/findings.md, the
gate's and the report's links). docs/finding-records.md describes the format."""
