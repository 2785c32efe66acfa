"""The TF op subset, as thin mappings over torch with TF's argument names and semantics."""
