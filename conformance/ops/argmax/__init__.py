"""ArgMax and ArgMin: one folder, two operators that differ only in their direction."""
