"""`tf.version`: the TensorFlow API level tfcompat implements, where TF code reads a version.

TF programs gate features on `tf.__version__` / `tf.version.VERSION` (for
example `if int(tf.__version__.split(".")[1]) >= 11`). tfcompat implements
TF 2.21's API, so these report `2.21.0`: code written for TF 2.21 takes the
branch it would take there. The attributes are TF 2.21's (`dir(tf.version)`);
the values that describe TF's own build (its git commit, the C++ compiler and
standard, the GraphDef version range) describe a build tfcompat does not have,
so each is chosen to read as TF 2.21's would where code compares it:

* `VERSION` = "2.21.0";
* `GIT_VERSION` = "v2.21.0-tfcompat-<tfcompat's version>": starts like TF's
  (`v2.21.0-...`) and says what is running;
* `COMPILER_VERSION`: the compiler that built this Python (tfcompat has no
  compiled code of its own; TF's is e.g. "Clang 18.1.8");
* `tf.__cxx_version__` = 201703 (TF 2.21's `__cplusplus`, C++17, as torch's);
* `GRAPH_DEF_VERSION*`: TF 2.21's numbers (tfcompat writes no GraphDefs).

tfcompat's own version, the package's, is `TFCOMPAT_VERSION` here and
`importlib.metadata.version("tfcompat")` (from pyproject.toml) for packaging
tools; a test keeps the two equal.
"""

import platform as _platform

__all__ = ["VERSION", "GIT_VERSION", "COMPILER_VERSION", "GRAPH_DEF_VERSION",
           "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER"]

#: The package's own version (pyproject.toml's `version`); not TF's.
TFCOMPAT_VERSION = "0.1.0"

#: The TensorFlow API level implemented (what `tf.__version__` reports).
VERSION = "2.21.0"
GIT_VERSION = f"v{VERSION}-tfcompat-{TFCOMPAT_VERSION}"
COMPILER_VERSION = _platform.python_compiler()
# `tf.__cxx_version__` (and tf.compat.v1.CXX_VERSION); not in TF 2.21's tf.version.
_CXX_VERSION = 201703
GRAPH_DEF_VERSION = 2474
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
