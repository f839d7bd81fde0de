"""Stage 4: judging. The DirectML answer (oracle), each dialect's rules (profiles) and the judge."""
