"""Token-labelled CSV files of the matrices."""

import numpy as np
import numpy.typing as npt
import pandas as pd


def position_labels(tokens: tuple[str, ...]) -> list[str]:
    """'0:[CLS]', '1:我', …: unique even when characters repeat."""
    return [f"{i}:{token}" for i, token in enumerate(tokens)]


def matrix_csv(
    matrix: npt.NDArray[np.float64], row_tokens: tuple[str, ...], columns: list[str]
) -> str:
    """A CSV with one row per token and the given column names."""
    frame = pd.DataFrame(matrix, index=position_labels(row_tokens), columns=columns)
    frame.index.name = "token"
    return frame.to_csv(float_format="%.17g")
