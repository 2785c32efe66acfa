"""TF's framework layer over torch: dtypes, shapes, devices, conversion, errors, scopes."""
