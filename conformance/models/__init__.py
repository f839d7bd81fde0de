"""A user's model: its selection nodes captured, run on backends and judged (contract section 9)."""
