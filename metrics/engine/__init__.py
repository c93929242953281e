"""The engine: ranked lists, measure kernels, the measure registry, settings, evaluation and
aggregation."""
