"""The Tools page: why two tools give two numbers (profiles, explained differences, code)."""
