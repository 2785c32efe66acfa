"""tfcompat's tf.data against TF 2.21's recorded results (fixtures/data.json, from gen_data.py).

For every deterministic pipeline in cases.py: the elements (values, dtypes,
shapes, nesting, windows' contents), `element_spec`'s repr, `cardinality()`
and `len()` (or its TypeError). Cardinality-only cases pin TF's INFINITE /
UNKNOWN rules; error cases TF's exception class and text; reduce cases the
folded state.
"""

import json
from pathlib import Path

import pytest
import torch

import tfcompat as tf
from tests.data.cases import CARDINALITY_CASES, CASES, ERROR_CASES, REDUCE_CASES
from tests.data.gen_data import encode

FIXTURES = json.loads((Path(__file__).parent / "fixtures" / "data.json").read_text())

# element_specs where tfcompat knows more than TF's symbolic shape inference (it finds a map's
# spec by running the function; docs/data.md): name -> (tfcompat's spec, why).
DELIBERATE_SPECS = {
    "map_after_padded_batch": (
        "TensorSpec(shape=(None, 1), dtype=tf.int64, name=None)",
        "b[:, :1] of a (None, None) batch: TF cannot tell min(1, dim) and says None; every "
        "padded row here has at least one column, so running the function gives 1"),
}


def test_fixtures_cover_every_case():
    assert set(FIXTURES["cases"]) == set(CASES)
    assert set(FIXTURES["cardinality"]) == set(CARDINALITY_CASES)
    assert set(FIXTURES["errors"]) == set(ERROR_CASES)
    assert set(FIXTURES["reduce"]) == set(REDUCE_CASES)


def _check_leaves_are_cpu_tensors(element):
    for leaf in tf.nest.flatten(element):
        if isinstance(leaf, tf.data.Dataset):
            for inner in leaf:
                _check_leaves_are_cpu_tensors(inner)
        else:
            assert type(leaf) is torch.Tensor and leaf.device.type == "cpu"


@pytest.mark.parametrize("name", sorted(CASES))
def test_pipeline_matches_tf(name):
    expected = FIXTURES["cases"][name]
    ds = CASES[name](tf)
    if name in DELIBERATE_SPECS:
        assert expected["element_spec"] != DELIBERATE_SPECS[name][0]
        assert repr(ds.element_spec) == DELIBERATE_SPECS[name][0]
    else:
        assert repr(ds.element_spec) == expected["element_spec"]
    assert int(ds.cardinality()) == expected["cardinality"]
    if "len" in expected:
        assert len(ds) == expected["len"]
    else:
        with pytest.raises(TypeError) as info:
            len(ds)
        assert str(info.value) == expected["len_error"]
    elements = list(ds)
    for element in elements:
        _check_leaves_are_cpu_tensors(element)
    assert [encode(e) for e in elements] == expected["elements"]
    # A second pass (a new epoch) gives the same elements: the pipelines are deterministic.
    assert [encode(e) for e in ds] == expected["elements"]


@pytest.mark.parametrize("name", sorted(CARDINALITY_CASES))
def test_cardinality_matches_tf(name):
    expected = FIXTURES["cardinality"][name]
    ds = CARDINALITY_CASES[name](tf)
    assert int(ds.cardinality()) == expected["cardinality"]
    assert int(tf.data.experimental.cardinality(ds)) == expected["cardinality"]
    assert repr(ds.element_spec) == expected["element_spec"]


@pytest.mark.parametrize("name", sorted(ERROR_CASES))
def test_error_matches_tf(name):
    expected = FIXTURES["errors"][name]
    with pytest.raises(Exception) as info:
        ERROR_CASES[name](tf)
    assert type(info.value).__name__ == expected["type"]
    error_class = getattr(tf.errors, expected["type"], None)
    if error_class is not None:
        assert isinstance(info.value, error_class)
        message = info.value.message
    else:
        message = str(info.value)
    assert message == expected["message"]


@pytest.mark.parametrize("name", sorted(REDUCE_CASES))
def test_reduce_matches_tf(name):
    assert encode(REDUCE_CASES[name](tf)) == FIXTURES["reduce"][name]
