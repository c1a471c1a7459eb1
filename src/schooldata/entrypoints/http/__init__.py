"""The HTTP boundary every face shares: a request read once (`request`), the answer a route
gives back (`answer`), and the refusals given before any face reads a request (`early`)."""
