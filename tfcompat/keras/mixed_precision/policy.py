"""`tf.keras.mixed_precision.Policy`: a layer's compute dtype and variable dtype.

As tf_keras: `"float32"` (any dtype name) computes and stores in that dtype;
`"mixed_float16"` / `"mixed_bfloat16"` keep float32 variables and compute in half
precision (layers cast their floating inputs, and variables read inside `call` are cast, to
the compute dtype); `"_infer"` takes the dtype of the first input. The global policy defaults
to `Policy(floatx())`.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Optional

from ...framework import dtypes
from .. import backend

__all__ = ["Policy", "global_policy", "set_global_policy", "policy_scope", "get_policy",
           "serialize", "deserialize"]


class Policy:
    """A dtype policy: `Policy("mixed_float16").compute_dtype == "float16"`."""

    def __init__(self, name: str) -> None:
        if isinstance(name, dtypes.DType):
            raise TypeError(
                "'name' must be a string, not a DType. Instead, pass DType.name. "
                f"Received: name={name.name}")
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, but got: {name}")
        self._name = name
        self._compute_dtype, self._variable_dtype = _parse_name(name)

    @property
    def variable_dtype(self) -> Optional[str]:
        return self._variable_dtype

    @property
    def compute_dtype(self) -> Optional[str]:
        return self._compute_dtype

    @property
    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f'<Policy "{self._name}">'

    def get_config(self) -> dict:
        return {"name": self.name}

    @classmethod
    def from_config(cls, config: dict, custom_objects: Any = None) -> "Policy":
        config = {k: v for k, v in config.items() if k != "loss_scale"}
        return cls(**config)


def _parse_name(name: str) -> tuple:
    if name.endswith("_float32_vars"):
        message = "Policies ending in '_float32_vars' have been removed from TensorFlow."
        if name in ("infer_float32_vars", "infer_with_float32_vars"):
            message += " Please use the 'mixed_float16' or 'mixed_bfloat16' policy instead."
        elif name == "float16_with_float32_vars":
            message += " Please use the 'mixed_float16' policy instead."
        elif name == "bfloat16_with_float32_vars":
            message += " Please use the 'mixed_bfloat16' policy instead."
        raise ValueError(message + f" Got policy name: '{name}'")
    if name == "mixed_float16":
        return "float16", "float32"
    if name == "mixed_bfloat16":
        return "bfloat16", "float32"
    if name == "_infer":
        return None, None
    try:
        dtype = dtypes.as_dtype(name).name
    except (TypeError, ValueError):
        raise ValueError(
            f"Cannot convert value {name} to a mixed precision Policy. Valid policies include "
            "'mixed_float16', 'mixed_bfloat16', and the name of any dtype such as 'float32'."
        ) from None
    return dtype, dtype


_global_policy: Optional[Policy] = None


def global_policy() -> Policy:
    """The policy of layers created without `dtype=` (`Policy(floatx())` unless set)."""
    if _global_policy is None:
        return Policy(backend.floatx())
    return _global_policy


def set_global_policy(policy: Any) -> None:
    """Set the global policy: a `Policy`, a policy name, or None (back to floatx)."""
    global _global_policy
    if policy is not None and not isinstance(policy, Policy):
        policy = Policy(policy)
    if (policy is not None and policy.compute_dtype is not None
            and not dtypes.as_dtype(policy.compute_dtype).is_floating):
        raise ValueError(
            "set_global_policy can only be used to set the global policy to floating-point "
            f'policies, such as "float32" and "mixed_float16", but got policy: {policy.name}')
    _global_policy = policy


@contextlib.contextmanager
def policy_scope(policy: Any) -> Iterator[None]:
    """Set the global policy for the block."""
    old = _global_policy
    try:
        set_global_policy(policy)
        yield
    finally:
        set_global_policy(old)


def get_policy(identifier: Any) -> Policy:
    """A layer's policy from its `dtype=` argument (a Policy, dict, name, DType or None)."""
    if isinstance(identifier, Policy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str) and identifier in ("mixed_float16", "mixed_bfloat16"):
        return Policy(identifier)
    if identifier:
        return Policy(dtypes.as_dtype(identifier).name)
    return global_policy()


def _equivalent_to_dtype(policy: Policy) -> bool:
    if type(policy) is not Policy:
        return False
    if policy.name == "_infer":
        return True
    try:
        dtypes.as_dtype(policy.name)
        return True
    except (TypeError, ValueError):
        return False


def serialize(policy: Policy) -> Any:
    """A dtype name for plain policies (as tf_keras's layer configs store `"float32"`),
    else the policy's `{"class_name": "Policy", "config": ...}`."""
    if _equivalent_to_dtype(policy):
        return None if policy.name == "_infer" else policy.name
    return {"module": "keras.mixed_precision", "class_name": "Policy",
            "config": policy.get_config(), "registered_name": None}


def deserialize(config: Any, custom_objects: Any = None) -> Policy:
    if config is None:
        return Policy("_infer")
    if isinstance(config, str):
        return Policy(config)
    if isinstance(config, dict) and config.get("class_name") in ("Policy", "PolicyV1"):
        return Policy.from_config(config["config"])
    raise ValueError(f"Unknown dtype policy: {config!r}")
