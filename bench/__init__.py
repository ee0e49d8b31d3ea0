"""Benchmarks and the classroom load test (run by hand; see README)."""
