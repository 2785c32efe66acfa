"""Shared test setup: hypothesis profiles and the optional TensorFlow oracle."""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# "ci" (the default) is derandomized and bounded, so every run is reproducible
# and the suite stays fast; "dev" explores more. Pick with HYPOTHESIS_PROFILE.
settings.register_profile(
    "ci", derandomize=True, max_examples=40, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The suite pins TF's CPU behaviour (index errors, CPU device names), so GPUs are
# hidden from tfcompat unless TFCOMPAT_TEST_GPU=1 asks for the CUDA tests
# (tests/gpu, tests/ops/test_accelerator.py), which run in their own session.
if not os.environ.get("TFCOMPAT_TEST_GPU"):
    import tfcompat

    tfcompat.config.set_visible_devices(tfcompat.config.list_physical_devices("CPU"))


def _tensorflow():
    try:
        import tensorflow  # noqa: F401  (optional oracle, never needed by the suite)
        return tensorflow
    except Exception:
        return None


@pytest.fixture(scope="session")
def tf_oracle():
    """Real TensorFlow, for `-m tf_oracle` tests; skips when it is not importable."""
    tf_real = _tensorflow()
    if tf_real is None:
        pytest.skip("TensorFlow is not installed: the tf_oracle tests compare against it live")
    return tf_real


@pytest.fixture(autouse=True)
def _no_global_seed_leaks():
    """A test that sets `tf.random.set_seed` must not seed the tests after it (a global seed
    makes unseeded ops build seeded generators, which e.g. the `meta` device lacks)."""
    yield
    from tfcompat.ops import random_ops
    if random_ops._state.global_seed is not None:
        random_ops.set_seed(None)
    # `tf.keras.utils.set_random_seed` leaves tf_keras's seed generator for initializers
    keras_backend = sys.modules.get("tfcompat.keras.backend")
    if keras_backend is not None and getattr(keras_backend._SEED_GENERATOR, "generator", None):
        keras_backend._SEED_GENERATOR.generator = None
