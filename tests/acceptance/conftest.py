"""The generators under tools/ are scripts (one needs pypaimon-rust's own venv), not tests."""

collect_ignore = ["tools"]
