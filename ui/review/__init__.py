"""Streamlit helpers of the review pages (Compare, Segments, Report) and of History: saved
versions of a review and review links."""
