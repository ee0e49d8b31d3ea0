"""Token-labelled CSV files of the matrices, and the whole state as a zip."""

import io
import json
import zipfile

import numpy as np
import numpy.typing as npt
import pandas as pd


def position_labels(tokens: tuple[str, ...]) -> list[str]:
    """'0:[CLS]', '1:我', …: unique even when characters repeat."""
    return [f"{i}:{token}" for i, token in enumerate(tokens)]


def _axis_labels(size: int, tokens: tuple[str, ...]) -> list[str]:
    """Token labels for an axis as long as the sentence, dimension numbers otherwise."""
    return position_labels(tokens) if size == len(tokens) else [f"dim_{j}" for j in range(size)]


def matrix_csv(matrix: npt.NDArray[np.float64], tokens: tuple[str, ...]) -> str:
    """A CSV of one matrix; rows and columns as long as the sentence are labelled by token."""
    frame = pd.DataFrame(
        matrix,
        index=_axis_labels(matrix.shape[0], tokens),
        columns=_axis_labels(matrix.shape[1], tokens),
    )
    frame.index.name = "token"
    return frame.to_csv(float_format="%.17g")


def state_zip(
    settings: dict[str, str], tokens: tuple[str, ...], matrices: dict[str, npt.NDArray[np.float64]]
) -> bytes:
    """settings.json and one labelled CSV per matrix, in a zip."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        info = {"settings": settings, "tokens": list(tokens)}
        archive.writestr("settings.json", json.dumps(info, ensure_ascii=False, indent=2))
        for name, matrix in matrices.items():
            archive.writestr(f"{name}.csv", matrix_csv(matrix, tokens))
    return buffer.getvalue()
