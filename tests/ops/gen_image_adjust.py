"""Record TF 2.21's `tf.image.adjust_brightness` / `adjust_contrast` into
fixtures/image_adjust.json (run under a Python with TensorFlow:
`python tests/ops/gen_image_adjust.py`); tests/ops/test_image_adjust.py reads it without TF."""

from __future__ import annotations

import json
import os

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))


def cases():
    rs = np.random.RandomState(20261204)
    images = {
        "f32_hwc": rs.uniform(0, 1, (5, 7, 3)).astype(np.float32),
        "f32_batch": rs.uniform(-1, 2, (2, 4, 6, 2)).astype(np.float32),
        "f16_hwc": rs.uniform(0, 1, (4, 4, 3)).astype(np.float16),
        "f64_hwc": rs.uniform(0, 1, (3, 5, 3)),
        "u8_hwc": rs.randint(0, 256, (6, 5, 3)).astype(np.uint8),
        "i32_hwc": rs.randint(0, 2 ** 31 - 1, (3, 3, 1)).astype(np.int32),
    }
    for name, image in images.items():
        for factor in (0.5, 2.0, -1.0):
            if image.dtype == np.float16:
                continue  # (TF has no CPU AdjustContrastv2 kernel for half: GPU only)
            yield f"contrast/{name}/{factor}", "adjust_contrast", image, factor
        for delta in (0.25, -0.6):
            yield f"brightness/{name}/{delta}", "adjust_brightness", image, delta


def main() -> None:
    out = []
    for case, op, image, arg in cases():
        result = getattr(tf.image, op)(image, arg).numpy()
        out.append({"case": case, "op": op, "dtype": str(image.dtype), "shape": list(image.shape),
                    "image": image.astype(np.float64).ravel().tolist(), "arg": arg,
                    "want_dtype": str(result.dtype),
                    "want": result.astype(np.float64).ravel().tolist()})
    os.makedirs(os.path.join(HERE, "fixtures"), exist_ok=True)
    with open(os.path.join(HERE, "fixtures", "image_adjust.json"), "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": out}, f)
    print(len(out), "cases")


if __name__ == "__main__":
    main()
