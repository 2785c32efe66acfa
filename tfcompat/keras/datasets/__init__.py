"""`tf.keras.datasets`: tf_keras's small datasets, read from tf_keras's own cache files.

Each loader downloads with `tf.keras.utils.get_file` from tf_keras's origins into the same
paths (`~/.keras/datasets/...`), so a machine that ran tf_keras needs no download. Files
are read as data only: pickled content (CIFAR batches, imdb/reuters object arrays) goes
through a restricted unpickler that builds containers and NumPy arrays and nothing else.
"""

from . import boston_housing, cifar10, cifar100, fashion_mnist, imdb, mnist, reuters

__all__ = ["boston_housing", "cifar10", "cifar100", "fashion_mnist", "imdb", "mnist",
           "reuters"]
