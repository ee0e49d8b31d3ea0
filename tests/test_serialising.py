"""Sending figures must not leak: what Streamlit calls for every chart frees what it was given."""

import sys

import numpy as np
import plotly.io


def test_serialising_a_figure_with_text_arrays_keeps_no_reference_to_them():
    """plotly.io.to_json, as st.plotly_chart calls it, on a heatmap whose hover text is a numpy
    string array: after 20 calls the array has no more references than before. orjson 3.8,
    which plotly uses when installed, kept one per call and the server grew by 20 MB a class."""
    hover = np.array([[["我", "喜", "0.40"]] * 9] * 9)
    figure = {"data": [{"type": "heatmap", "z": np.zeros((9, 9)), "customdata": hover}]}
    before = sys.getrefcount(hover)
    for _ in range(20):
        plotly.io.to_json(figure, validate=False)
    assert sys.getrefcount(hover) == before
