"""The `load_data` calls recorded from tf_keras (`gen_datasets_golden.py`) and replayed here.

Each case: dataset name and keyword arguments. The imdb/reuters cases cover every step of
tf_keras's preprocessing and their interplay (start_char under skip_top, maxlen counting
start_char, oov_char None removing ids, num_words None meaning the largest id).
"""

WORD_CASES = {
    "defaults": {},
    "vocab_and_maxlen": {"num_words": 10, "skip_top": 2, "maxlen": 8},
    "no_start_no_oov": {"start_char": None, "index_from": 0, "oov_char": None, "num_words": 15},
    "seed_no_start_shift": {"seed": 7, "start_char": None, "index_from": 2, "maxlen": 7},
    "skip_top_drops": {"skip_top": 5, "oov_char": None, "num_words": 20},
    "custom_chars": {"start_char": 4, "oov_char": 9, "index_from": 5, "num_words": 18,
                     "skip_top": 1, "seed": 0},
}

CASES = {}
for _name, _kw in WORD_CASES.items():
    CASES[f"imdb/{_name}"] = ("imdb", dict(_kw))
    CASES[f"reuters/{_name}"] = ("reuters", dict(_kw))
# tf_keras's imdb fails on this one without `maxlen` (it adds the two NumPy object arrays
# instead of concatenating lists: a broadcast ValueError, or elementwise list sums when
# both sets have equal sizes); tfcompat concatenates. Recorded with `maxlen`, which makes
# tf_keras build lists first.
CASES["imdb/no_start_no_oov"][1]["maxlen"] = 100
CASES["reuters/test_split"] = ("reuters", {"test_split": 0.35, "seed": 3, "num_words": 12})
CASES["boston_housing/defaults"] = ("boston_housing", {})
CASES["boston_housing/split_seed"] = ("boston_housing", {"test_split": 0.5, "seed": 1})
CASES["mnist/defaults"] = ("mnist", {})
CASES["fashion_mnist/defaults"] = ("fashion_mnist", {})
CASES["cifar100/fine"] = ("cifar100", {})
CASES["cifar100/coarse"] = ("cifar100", {"label_mode": "coarse"})
