"""`tf.__version__` and `tf.version`: the TF API level implemented (TF 2.21's attributes), and
tfcompat's own version where packaging reads it."""

import importlib.metadata
import pathlib
import re
import tomllib

import tfcompat as tf

ROOT = pathlib.Path(__file__).resolve().parents[2]

# dir(tf.version) in TF 2.21 (less its `_sys`), and the values TF 2.21 reports where they
# describe the API rather than TF's build.
TF_VERSION_NAMES = {"COMPILER_VERSION", "GIT_VERSION", "GRAPH_DEF_VERSION",
                    "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER", "VERSION"}


def test_tf_version_reports_the_api_level():
    assert tf.__version__ == "2.21.0"
    assert tf.version.VERSION == tf.__version__
    assert tf.__git_version__ == tf.version.GIT_VERSION
    assert tf.__compiler_version__ == tf.version.COMPILER_VERSION
    assert tf.__cxx_version__ == 201703


def test_tf_version_has_tfs_attributes():
    public = {n for n in dir(tf.version) if n.isupper() and not n.startswith("_")} - {"TFCOMPAT_VERSION"}
    assert public == TF_VERSION_NAMES
    assert set(tf.version.__all__) == public
    assert isinstance(tf.version.COMPILER_VERSION, str) and tf.version.COMPILER_VERSION
    assert (tf.version.GRAPH_DEF_VERSION, tf.version.GRAPH_DEF_VERSION_MIN_CONSUMER,
            tf.version.GRAPH_DEF_VERSION_MIN_PRODUCER) == (2474, 0, 0)


def test_version_gates_in_tf_code_take_the_tf_2_21_branch():
    # The checks TF programs write (tf_keras, TF's own guides).
    major, minor, patch = (int(p) for p in tf.__version__.split("."))
    assert (major, minor) >= (2, 11)
    assert tf.version.VERSION.startswith("2.")
    assert re.fullmatch(r"v2\.21\.0-.+", tf.version.GIT_VERSION)


def test_tfcompats_own_version_is_the_packages():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert tf.version.TFCOMPAT_VERSION == declared
    assert declared in tf.version.GIT_VERSION
    assert importlib.metadata.version("tfcompat") == declared


def test_compat_v1_version_constants_are_tf_versions():
    """TF 1 code reads `tf.VERSION` etc. at the top level: tf.compat.v1 has them, as TF 2.21's."""
    v1 = tf.compat.v1
    for name in TF_VERSION_NAMES:
        assert getattr(v1, name) == getattr(tf.version, name)
    assert v1.CXX_VERSION == tf.__cxx_version__
    assert v1.__version__ == "2.21.0" and v1.version.VERSION == "2.21.0"
