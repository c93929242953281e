"""Benchmarks of the engine, the app and the Spark backend (see README.md here)."""
