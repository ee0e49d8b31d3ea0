"""Streamlit UI: pages, figures, strings and URL state. The maths lives in viz_core."""
