"""The Keras engine: the Layer base, input specs, symbolic tensors and models."""
