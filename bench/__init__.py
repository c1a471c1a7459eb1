"""Full-scale benchmarks of the served API against a ceiling and a peer (see README.md)."""
