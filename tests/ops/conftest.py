"""Shared setup for the op tests."""

import pytest

import tfcompat


@pytest.fixture(autouse=True, scope="module")
def _host_placement(request):
    """Run the op tests on the host CPU even where a GPU exists (TF would place on GPU:0).

    Their expectations are TF's CPU kernels' (index errors, numpy round
    trips); `test_accelerator.py` covers the GPU behaviour and places its
    own tensors.
    """
    if request.module.__name__.endswith("test_accelerator"):
        yield
        return
    with tfcompat.device("/cpu:0"):
        yield
