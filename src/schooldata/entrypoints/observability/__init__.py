"""What operators see of every face: structured logs, the access log and metrics."""
