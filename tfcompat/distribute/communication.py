"""The reduction and communication choices TF code passes to its strategies:
`tf.distribute.CrossDeviceOps` and its `NcclAllReduce`, `HierarchicalCopyAllReduce`,
`ReductionToOneDevice`; `tf.distribute.experimental.CommunicationOptions`,
`CommunicationImplementation` (and its old name `CollectiveCommunication`).

In TF they pick how replicas' values travel (NCCL rings, hierarchical copies, one device)
and so, for floating sums, the order the values are added in. tfcompat's strategies reduce
in one place: in a process, every one of these sums in TF's `add_n` order
(`cross_device_ops.py`, `ReductionToOneDevice`'s order); across processes through
`torch.distributed` (NCCL on GPUs, gloo on CPUs), as `CommunicationImplementation.AUTO`.
They are accepted, kept and reported, so TF code that passes them runs unchanged.
"""

from __future__ import annotations

import enum
from typing import Any, Optional

__all__ = ["CrossDeviceOps", "NcclAllReduce", "HierarchicalCopyAllReduce", "ReductionToOneDevice",
           "CommunicationImplementation", "CollectiveCommunication", "CommunicationOptions"]


class CrossDeviceOps:
    """`tf.distribute.CrossDeviceOps`: how a strategy reduces values across its devices."""

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class NcclAllReduce(CrossDeviceOps):
    """`tf.distribute.NcclAllReduce(num_packs=1)` (see the module docstring)."""

    def __init__(self, num_packs: int = 1) -> None:
        if num_packs < 0:
            raise ValueError(f"NCCL all-reduce requires num_packs >= 0, but {num_packs} is specified")
        self.num_packs = num_packs


class HierarchicalCopyAllReduce(CrossDeviceOps):
    """`tf.distribute.HierarchicalCopyAllReduce(num_packs=1)` (see the module docstring)."""

    def __init__(self, num_packs: int = 1) -> None:
        if num_packs < 0:
            raise ValueError(f"HierarchicalCopy requires num_packs >= 0, but {num_packs} is specified")
        self.num_packs = num_packs


class ReductionToOneDevice(CrossDeviceOps):
    """`tf.distribute.ReductionToOneDevice(reduce_to_device=None, accumulation_fn=None)`."""

    def __init__(self, reduce_to_device: Optional[str] = None, accumulation_fn: Any = None) -> None:
        self.reduce_to_device = reduce_to_device
        self.accumulation_fn = accumulation_fn


class CommunicationImplementation(enum.Enum):
    """`tf.distribute.experimental.CommunicationImplementation`: AUTO, RING or NCCL."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


CollectiveCommunication = CommunicationImplementation


class CommunicationOptions:
    """`tf.distribute.experimental.CommunicationOptions(bytes_per_pack=0, timeout_seconds=None,
    implementation=AUTO)`: TF's checks on the arguments; the values are kept."""

    def __init__(self, bytes_per_pack: int = 0, timeout_seconds: Optional[float] = None,
                 implementation: CommunicationImplementation = CommunicationImplementation.AUTO
                 ) -> None:
        if bytes_per_pack < 0:
            raise ValueError(f"bytes_per_pack must be non-negative, got {bytes_per_pack}.")
        if isinstance(implementation, str):
            implementation = CommunicationImplementation(implementation.upper())
        if not isinstance(implementation, CommunicationImplementation):
            raise ValueError("implementation should be a "
                             "tf.distribute.experimental.CommunicationImplementation")
        self.bytes_per_pack = bytes_per_pack
        self.timeout_seconds = timeout_seconds
        self.implementation = implementation

    def merge(self, options: "CommunicationOptions") -> "CommunicationOptions":
        """These options, with the fields `options` sets to non-defaults taking over."""
        return CommunicationOptions(
            options.bytes_per_pack or self.bytes_per_pack,
            options.timeout_seconds if options.timeout_seconds is not None else self.timeout_seconds,
            options.implementation if options.implementation is not CommunicationImplementation.AUTO
            else self.implementation)
