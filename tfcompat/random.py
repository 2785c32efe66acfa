"""`tf.random`: seeds, the random ops of the TF subset and `tf.random.Generator` (re-exports only)."""

import types as _types

from .ops.random_ops import normal, set_seed, truncated_normal, uniform
from .ops.sampled_loss_ops import log_uniform_candidate_sampler
from .ops.random_sampling_ops import categorical, random_gamma as gamma, \
    random_poisson_v2 as poisson, shuffle
from .ops.stateless_random_ops import (fold_in, index_shuffle as _index_shuffle, split,
                                       stateless_binomial, stateless_categorical, stateless_gamma,
                                       stateless_normal, stateless_parameterized_truncated_normal,
                                       stateless_poisson, stateless_shuffle as _stateless_shuffle,
                                       stateless_truncated_normal, stateless_uniform)
from .stateful_random_ops import (Algorithm, Generator, create_rng_state, get_global_generator,
                                  set_global_generator)

__all__ = ["set_seed", "normal", "uniform", "truncated_normal", "categorical", "shuffle",
           "gamma", "poisson", "stateless_normal", "stateless_uniform",
           "stateless_truncated_normal", "stateless_categorical", "stateless_binomial",
           "stateless_gamma", "stateless_poisson", "stateless_parameterized_truncated_normal",
           "split", "fold_in", "Algorithm", "Generator",
           "create_rng_state", "get_global_generator", "set_global_generator", "experimental"]
__all__ += ["log_uniform_candidate_sampler"]  # (engineer F, issue 9)

#: `tf.random.experimental`: the generator API again, and `index_shuffle`.
experimental = _types.ModuleType(__name__ + ".experimental",
                                 "`tf.random.experimental` (re-exports only).")
for _name, _value in {"Algorithm": Algorithm, "Generator": Generator,
                      "create_rng_state": create_rng_state,
                      "get_global_generator": get_global_generator,
                      "set_global_generator": set_global_generator,
                      "index_shuffle": _index_shuffle, "stateless_split": split,
                      "stateless_fold_in": fold_in,
                      "stateless_shuffle": _stateless_shuffle}.items():
    setattr(experimental, _name, _value)
experimental.__all__ = sorted(vars(experimental).keys() - {"__name__", "__doc__", "__package__",
                                                           "__loader__", "__spec__"})
