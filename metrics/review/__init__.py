"""Model review: paired statistics, comparisons, segments, drill-down, the stakeholder report."""
