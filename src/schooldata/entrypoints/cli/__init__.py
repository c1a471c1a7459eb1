"""The click face: the analysts' CLI over the same use cases and JSON shapes as the API."""
