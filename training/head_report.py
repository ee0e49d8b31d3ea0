"""Measure the shipped model's heads on held-out sentences and write viz_core/models/mlm_heads.json.

    python -m training.head_report

numpy only (the app's own forward pass): the roles each head took and the spread of its scores,
which the model page shows. ``train_mlm`` runs it after writing new weights.
"""

import json

from viz_core.model import MODELS, REPORT_SENTENCES, head_report, held_out_sentences, report_to_json


def main() -> None:
    report = head_report(held_out_sentences(REPORT_SENTENCES))
    text = json.dumps(report_to_json(report), ensure_ascii=False, indent=1)
    (MODELS / "mlm_heads.json").write_text(text + "\n", encoding="utf-8")
    print(f"wrote {MODELS / 'mlm_heads.json'} ({report.sentences} held-out sentences)")


if __name__ == "__main__":
    main()
