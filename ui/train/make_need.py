"""Write ui/train/need_sweeps.json, the sweeps behind every page's "does a head need ÷√d_k?":
/train's sweep of its default task and seed, for each optimizer (a few seconds).

    python -m ui.train.make_need

tests/test_need_scale.py trains them again and compares: run this after changing the head, its
training or the sweep's settings.
"""

import json

from ui.train.compute import NEED_FILE, need_sweep, sweep_to_json
from viz_core import OPTIMIZERS


def main() -> None:
    """Train both optimizers' sweeps and write them."""
    stored = {optimizer: sweep_to_json(need_sweep(optimizer)) for optimizer in OPTIMIZERS}
    NEED_FILE.write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {NEED_FILE}")


if __name__ == "__main__":
    main()
