"""TensorFlow's checkpoint file formats, read and written without TensorFlow.

`wire` (protobuf wire format), `protos` (TF's checkpoint messages and the
DataType enum), `crc32c` (masked CRC32C), `table` (the LevelDB-style sorted
table of `.index` files), `tensor_bundle` (`BundleWriter` / `BundleReader`
over `<prefix>.index` and `<prefix>.data-NNNNN-of-MMMMM`, with
`string_tensor`, `tensor_slices` and `host_buffers` for string tensors,
sliced entries and the numpy/torch byte views) and `state_file` (the
`checkpoint` text proto). Import the submodules directly.
"""
