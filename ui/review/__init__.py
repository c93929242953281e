"""Streamlit helpers of the review pages (Compare, Segments, Report)."""
