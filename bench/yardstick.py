"""The yardstick: the simplest page that does the lab's job, a text box and one 9×9 heatmap."""

import numpy as np
import plotly.graph_objects as go
import streamlit as st

text = st.text_input("Sentence", value="我喜欢人工智能", key="text")
tokens = ["[CLS]", *[ch for ch in text if not ch.isspace()][:30], "[SEP]"]
rng = np.random.default_rng(0)
q, k = rng.standard_normal((2, len(tokens), 64))
scores = q @ k.T / 8
weights = np.exp(scores - scores.max(axis=1, keepdims=True))
weights /= weights.sum(axis=1, keepdims=True)
st.plotly_chart(go.Figure(go.Heatmap(z=weights, x=tokens, y=tokens)), key="weights_heatmap")
