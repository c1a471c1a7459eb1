"""Developer tools that are not part of the shipped package (`python -m tools.demo`)."""
