"""Streamlit helpers of the explorer app and pure figure/table builders."""
