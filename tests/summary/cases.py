"""The summary cases TF and tfcompat both write: one table for the golden generator (TF venv)
and the tests (tfcompat), so both sides run the same calls on the same data.

Only NumPy is imported here. The data come from exact arithmetic (no libm), so every NumPy
build makes the same arrays. `run_case(summary_module, case)` makes one call with either
`tf.summary` or `tfcompat.summary` inside a default writer.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np


def _ramp(n: int, lo: float, hi: float, dtype: Any = np.float64, mult: int = 7919) -> np.ndarray:
    """n values in [lo, hi), scrambled by a multiplicative permutation (exact IEEE ops)."""
    k = (np.arange(n, dtype=np.int64) * mult) % n
    return (lo + (hi - lo) * (k.astype(np.float64) / n)).astype(dtype)


def _image(k: int, h: int, w: int, c: int, dtype: Any, lo: float, hi: float) -> np.ndarray:
    return _ramp(k * h * w * c, lo, hi, np.float64, mult=31).reshape(k, h, w, c).astype(dtype)


# Each case: id, op, name, data (or a zero-argument callable making it), step, kwargs;
# optional "scope" (a tf.name_scope around the call) and "default_step" (set_step instead
# of step=).
CASES: list[dict] = [
    # scalars: TF converts Python floats to float32, ints to int32, then casts to float32
    dict(id="scalar_float", op="scalar", name="loss", data=0.1, step=1),
    dict(id="scalar_int", op="scalar", name="count", data=7, step=2),
    dict(id="scalar_bool", op="scalar", name="flag", data=True, step=3),
    dict(id="scalar_f64_rounds", op="scalar", name="precise", data=np.float64(1.0 + 2.0 ** -30),
         step=4),
    dict(id="scalar_big_int", op="scalar", name="big", data=2 ** 40 + 1, step=5),
    dict(id="scalar_neg_step", op="scalar", name="neg", data=-2.5, step=-3),
    dict(id="scalar_step0", op="scalar", name="zero", data=0.0, step=0),
    dict(id="scalar_desc", op="scalar", name="described", data=1.5, step=6,
         kwargs=dict(description="The *loss*, in Markdown.")),
    dict(id="scalar_scoped", op="scalar", name="inner/x", data=3.0, step=7, scope="outer"),
    dict(id="scalar_empty_name", op="scalar", name="", data=3.0, step=7),
    dict(id="scalar_default_step", op="scalar", name="dflt", data=4.0, default_step=42),
    dict(id="scalar_odd_tag", op="scalar", name="bad name! é", data=4.0, step=8),
    dict(id="scalar_np_f16", op="scalar", name="half", data=np.float16(0.333), step=9),
    # histograms: TensorBoard's bucketing and its edge cases
    dict(id="hist_default", op="histogram", name="weights", data=_ramp(1000, -3.0, 5.0), step=1),
    dict(id="hist_f32_list", op="histogram", name="f32", data=[0.1, 0.2, 0.7, 0.3], step=1,
         kwargs=dict(buckets=3)),
    dict(id="hist_b4", op="histogram", name="b4", data=[1.0, 2.0, 3.0], step=2,
         kwargs=dict(buckets=4)),
    dict(id="hist_b1", op="histogram", name="b1", data=[1.0, 2.0, 3.0], step=2,
         kwargs=dict(buckets=1)),
    dict(id="hist_const", op="histogram", name="const", data=[2.0, 2.0, 2.0], step=3),
    dict(id="hist_const_b1", op="histogram", name="const1", data=[2.0], step=3,
         kwargs=dict(buckets=1)),
    dict(id="hist_empty", op="histogram", name="empty", data=np.zeros([0], np.float32), step=3,
         kwargs=dict(buckets=5)),
    dict(id="hist_b0", op="histogram", name="b0", data=[1.0, 2.0], step=3, kwargs=dict(buckets=0)),
    dict(id="hist_bneg", op="histogram", name="bneg", data=[1.0, 2.0], step=3,
         kwargs=dict(buckets=-2)),
    dict(id="hist_nan", op="histogram", name="nan", data=[1.0, float("nan"), 3.0], step=4,
         kwargs=dict(buckets=3)),
    dict(id="hist_inf", op="histogram", name="inf", data=[0.0, 1.0, float("inf")], step=4,
         kwargs=dict(buckets=3)),
    dict(id="hist_neginf", op="histogram", name="neginf", data=[-float("inf"), 0.0, 1.0], step=4,
         kwargs=dict(buckets=3)),
    dict(id="hist_int2d", op="histogram", name="ints",
         data=np.arange(24, dtype=np.int32).reshape(4, 6) % 7, step=5, kwargs=dict(buckets=7)),
    dict(id="hist_f64_tiny_span", op="histogram", name="tiny",
         data=np.array([1.0, 1.0 + 2.0 ** -50, 1.0 + 2.0 ** -51]), step=6, kwargs=dict(buckets=3)),
    dict(id="hist_many_buckets", op="histogram", name="many", data=_ramp(97, -1.0, 1.0), step=7,
         kwargs=dict(buckets=64)),
    dict(id="hist_desc", op="histogram", name="hd", data=[1.0, 5.0], step=8,
         kwargs=dict(description="weights")),
    dict(id="hist_bool", op="histogram", name="bools", data=np.array([True, False, True]), step=8,
         kwargs=dict(buckets=2)),
    # text
    dict(id="text_str", op="text", name="note", data="hello **world**", step=1),
    dict(id="text_unicode", op="text", name="uni", data="héllo ✓", step=1),
    dict(id="text_bytes", op="text", name="raw", data=b"\xff\xfe bytes", step=1),
    dict(id="text_empty", op="text", name="empty", data="", step=1),
    dict(id="text_table", op="text", name="table", data=[["a", "b"], ["c", "d"], ["e", "f"]], step=2),
    dict(id="text_np", op="text", name="np", data=np.array(["x", "yy", "zzz"]), step=2),
    dict(id="text_desc", op="text", name="td", data="t", step=3, kwargs=dict(description="d")),
    # images: conversion to uint8 with saturation, then PNG
    dict(id="image_rgb_f32", op="image", name="rgb", data=_image(2, 3, 4, 3, np.float32, 0.0, 1.0),
         step=1),
    dict(id="image_max1", op="image", name="max1", data=_image(3, 2, 2, 3, np.float32, 0.0, 1.0),
         step=1, kwargs=dict(max_outputs=1)),
    dict(id="image_gray_u8", op="image", name="gray",
         data=_image(1, 5, 3, 1, np.float64, 0.0, 256.0).astype(np.uint8), step=2),
    dict(id="image_saturate", op="image", name="sat", data=_image(1, 4, 4, 3, np.float32, -0.5, 1.5),
         step=2),
    dict(id="image_f64", op="image", name="f64", data=_image(1, 2, 3, 3, np.float64, 0.0, 1.0),
         step=2),
    dict(id="image_int32", op="image", name="i32",
         data=_image(1, 2, 2, 1, np.float64, -2.0 ** 31, 2.0 ** 31 - 1).astype(np.int32), step=3),
    dict(id="image_uint16", op="image", name="u16",
         data=_image(1, 2, 3, 1, np.float64, 0.0, 65536.0).astype(np.uint16), step=3),
    dict(id="image_la", op="image", name="la", data=_image(1, 3, 3, 2, np.float32, 0.0, 1.0), step=4),
    dict(id="image_rgba", op="image", name="rgba", data=_image(2, 3, 2, 4, np.float32, 0.0, 1.0),
         step=4, kwargs=dict(max_outputs=5)),
    dict(id="image_none", op="image", name="none", data=np.zeros((0, 2, 2, 3), np.float32), step=5),
    dict(id="image_max0", op="image", name="max0", data=_image(2, 2, 2, 3, np.float32, 0.0, 1.0),
         step=5, kwargs=dict(max_outputs=0)),
    dict(id="image_half", op="image", name="f16", data=_image(1, 2, 2, 3, np.float16, 0.0, 1.0),
         step=6),
    # the generic op
    dict(id="write_i64", op="write", name="raw_i64", data=np.array([1, -2, 3], np.int64), step=1),
    dict(id="write_f16", op="write", name="raw_f16", data=np.array([[0.5, -1.0]], np.float16), step=1),
    dict(id="write_bool", op="write", name="raw_bool", data=np.array([True, False]), step=1),
    dict(id="write_str", op="write", name="raw_str", data="abc", step=1),
    dict(id="write_str_vec", op="write", name="raw_strs", data=["a", "bc"], step=1),
    dict(id="write_u8_3d", op="write", name="raw_u8", data=np.arange(12, dtype=np.uint8).reshape(2, 3, 2),
         step=1),
    dict(id="write_empty", op="write", name="raw_empty", data=np.zeros((0, 3), np.float32), step=1),
    dict(id="write_meta", op="write", name="raw_meta", data=1.0, step=2,
         kwargs=dict(metadata=b"\n\x07\n\x03foo\x12\x00\x12\x04disp")),
    dict(id="write_py_float", op="write", name="raw_pyf", data=2.5, step=2),
    dict(id="write_py_int_list", op="write", name="raw_pyi", data=[1, 2, 3], step=2),
]

CASE_IDS = [c["id"] for c in CASES]


def run_case(summary: Any, case: dict, name_scope: Callable[[str], Any]) -> Any:
    """Makes `case`'s call with `summary` (tf.summary or tfcompat.summary) under the default
    writer already set; returns what the op returned."""
    data = case["data"]
    kwargs = dict(case.get("kwargs", {}))
    if "default_step" in case:
        summary.experimental.set_step(case["default_step"])
    else:
        kwargs["step"] = case["step"]
    try:
        if case.get("scope"):
            with name_scope(case["scope"]):
                return _call(summary, case, data, kwargs)
        return _call(summary, case, data, kwargs)
    finally:
        if "default_step" in case:
            summary.experimental.set_step(None)


def _call(summary: Any, case: dict, data: Any, kwargs: dict) -> Any:
    op = case["op"]
    if op == "write":
        return summary.write(case["name"], data, **kwargs)
    return getattr(summary, op)(case["name"], data, **kwargs)


# Calls whose error TF raises (type and message recorded by the generator): each a
# description, whether a default writer is set, and a function of the summary module.
ERROR_CASES: list[dict] = [
    dict(id="scalar_not_scalar", writer=True,
         call=lambda s: s.scalar("x", [1.0, 2.0], step=1)),
    dict(id="scalar_not_scalar_no_writer", writer=False,
         call=lambda s: s.scalar("x", [[1.0], [2.0]], step=1)),
    dict(id="scalar_string", writer=True, call=lambda s: s.scalar("x", "abc", step=1)),
    dict(id="no_step", writer=True, call=lambda s: s.scalar("x", 1.0)),
    dict(id="step_not_scalar", writer=True, call=lambda s: s.scalar("x", 1.0, step=[1, 2])),
    dict(id="step_not_scalar_no_writer", writer=False,
         call=lambda s: s.write("x", 1.0, step=[1, 2])),
    dict(id="step_float", writer=True, call=lambda s: s.scalar("x", 1.0, step=1.5)),
    dict(id="text_not_string", writer=True, call=lambda s: s.text("x", 3, step=1)),
    dict(id="text_float_no_writer", writer=False, call=lambda s: s.text("x", [1.5], step=1)),
    dict(id="image_rank", writer=True, call=lambda s: s.image("x", np.zeros((2, 2, 3)), step=1)),
    dict(id="image_channels", writer=True,
         call=lambda s: s.image("x", np.zeros((1, 2, 2, 5), np.float32), step=1)),
    dict(id="image_max_outputs_negative", writer=True,
         call=lambda s: s.image("x", np.zeros((1, 2, 2, 3), np.float32), step=1, max_outputs=-1)),
    dict(id="image_bool", writer=True, call=lambda s: s.image("x", np.zeros((1, 2, 2, 3), bool), step=1)),
    dict(id="hist_buckets_float", writer=True,
         call=lambda s: s.histogram("x", [1.0], step=1, buckets=2.5)),
    dict(id="hist_buckets_int64", writer=True,
         call=lambda s: s.histogram("x", [1.0], step=1, buckets=np.int64(3))),
    dict(id="hist_buckets_vector", writer=True,
         call=lambda s: s.histogram("x", [1.0], step=1, buckets=[2])),
    dict(id="hist_string", writer=True, call=lambda s: s.histogram("x", ["a"], step=1)),
    dict(id="flush_not_writer", writer=False, call=lambda s: s.flush(writer=3)),
    dict(id="logdir_none", writer=False, call=lambda s: s.create_file_writer(None)),
]

# Calls that return without error: the value (True / False) TF returns.
RETURN_CASES: list[dict] = [
    dict(id="no_writer_scalar", writer=False, call=lambda s: s.scalar("x", 1.0, step=1)),
    dict(id="no_writer_image_bad_rank", writer=False, call=lambda s: s.image("x", [1.0], step=1)),
    dict(id="no_writer_hist_bad_buckets", writer=False,
         call=lambda s: s.histogram("x", [1.0], step=1, buckets=2.5)),
    dict(id="writer_scalar", writer=True, call=lambda s: s.scalar("x", 1.0, step=1)),
    dict(id="record_if_false_no_step", writer=True,
         call=lambda s: _in(s.record_if(False), lambda: s.scalar("x", 1.0))),
    dict(id="record_if_callable_false", writer=True,
         call=lambda s: _in(s.record_if(lambda: False), lambda: s.scalar("x", 1.0, step=1))),
    dict(id="record_if_callable_true", writer=True,
         call=lambda s: _in(s.record_if(lambda: True), lambda: s.scalar("x", 1.0, step=1))),
    dict(id="should_record_writer", writer=True, call=lambda s: s.should_record_summaries()),
    dict(id="should_record_no_writer", writer=False, call=lambda s: s.should_record_summaries()),
    dict(id="should_record_off", writer=True,
         call=lambda s: _in(s.record_if(False), s.should_record_summaries)),
    dict(id="noop_writer_default", writer=False,
         call=lambda s: _in(s.create_noop_writer().as_default(), lambda: s.scalar("x", 1.0, step=1))),
    dict(id="image_no_images", writer=True,
         call=lambda s: s.image("x", np.zeros((0, 2, 2, 3), np.float32), step=1)),
]


def _in(ctx: Any, fn: Callable[[], Any]) -> Any:
    with ctx:
        return fn()
