"""commit layer."""
