"""The `checkpoint` state file: TF's bytes reproduced, TF's text-format variations read."""

import math
import os
import sys
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from tfcompat.train.format.protos import CheckpointState
from tfcompat.train.format.state_file import TextFormatError, format_text, parse_text, read_state, write_state

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bundle_cases import STATE_CASES  # noqa: E402

FIXTURES = HERE / "fixtures"
TF_STATE_FILES = sorted(p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("checkpoint"))


def _state(case):
    return CheckpointState(**case)


@pytest.mark.parametrize("name", sorted(STATE_CASES))
def test_writes_tf_bytes(tmp_path, name):
    write_state(str(tmp_path), _state(STATE_CASES[name]))
    assert (tmp_path / "checkpoint").read_bytes() == (FIXTURES / "state" / name / "checkpoint").read_bytes()
    assert os.listdir(tmp_path) == ["checkpoint"]  # no temporary left behind


@pytest.mark.parametrize("path", TF_STATE_FILES)
def test_tf_files_parse_and_reformat_identically(path):
    raw = (FIXTURES / path).read_bytes()
    assert format_text(parse_text(raw.decode())).encode() == raw


@pytest.mark.parametrize("name", sorted(STATE_CASES))
def test_parsed_values_are_tfs(name):
    state = parse_text((FIXTURES / "state" / name / "checkpoint").read_text(encoding="utf-8"))
    case = STATE_CASES[name]
    assert state.model_checkpoint_path == case["model_checkpoint_path"]
    assert state.all_model_checkpoint_paths == case["all_model_checkpoint_paths"]
    ts = case.get("all_model_checkpoint_timestamps", [])
    assert [math.copysign(1, t) * abs(t) for t in state.all_model_checkpoint_timestamps] == ts
    assert [math.copysign(1, t) for t in state.all_model_checkpoint_timestamps] == [math.copysign(1, t) for t in ts]
    assert state.last_preserved_timestamp == case.get("last_preserved_timestamp", 0.0)


def test_read_state_joins_relative_paths_as_tf(tmp_path):
    write_state(str(tmp_path), _state(STATE_CASES["relative"]))
    state = read_state(str(tmp_path))
    assert state.model_checkpoint_path == os.path.join(str(tmp_path), "ckpt-2")
    assert state.all_model_checkpoint_paths == [os.path.join(str(tmp_path), p) for p in
                                                ["ckpt-1", "../elsewhere/ckpt-9", "ckpt-2"]]
    assert read_state(str(tmp_path / "absent")) is None
    write_state(str(tmp_path), CheckpointState(model_checkpoint_path="/abs/c-1"), latest_filename="other")
    assert read_state(str(tmp_path), "other").model_checkpoint_path == "/abs/c-1"


def test_read_state_bad_files(tmp_path):
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "unterminated\n')
    with pytest.warns(RuntimeWarning, match="Checkpoint ignored"):
        assert read_state(str(tmp_path)) is None
    (tmp_path / "checkpoint").write_text('all_model_checkpoint_paths: "a"\n')
    with pytest.raises(ValueError, match="Invalid checkpoint state"):
        read_state(str(tmp_path))


def test_text_format_variations():
    text = """
    # a comment
    all_model_checkpoint_paths: 'single' 'concat'   # adjacent literals
    all_model_checkpoint_timestamps: [1, 2.5e3, -inf, 1.5f]
    model_checkpoint_path: "first";
    model_checkpoint_path: "oct\\101\\x42\\x4\\u"
    last_preserved_timestamp: Infinity,
    all_model_checkpoint_timestamps: nan
    """
    with pytest.raises(TextFormatError, match="escape"):
        parse_text(text)
    s = parse_text(text.replace("\\u", ""))
    assert s.model_checkpoint_path == "octAB\x04"  # the last value wins (text_format.Merge)
    assert s.all_model_checkpoint_paths == ["singleconcat"]
    assert s.all_model_checkpoint_timestamps[:4] == [1.0, 2500.0, -math.inf, 1.5]
    assert math.isnan(s.all_model_checkpoint_timestamps[4]) and s.last_preserved_timestamp == math.inf


@pytest.mark.parametrize("text", [
    "no_such_field: 1", "model_checkpoint_path 'x'", "model_checkpoint_path: 3",
    "all_model_checkpoint_timestamps: 'x'", "model_checkpoint_path: '\\xff'",
    "all_model_checkpoint_timestamps: [1, 2", "model_checkpoint_path: 'a\\'", "@",
])
def test_text_format_errors(text):
    with pytest.raises(TextFormatError):
        parse_text(text)


@given(st.builds(CheckpointState, model_checkpoint_path=st.text(),
                 all_model_checkpoint_paths=st.lists(st.text(), max_size=3),
                 all_model_checkpoint_timestamps=st.lists(st.floats(allow_nan=False), max_size=3),
                 last_preserved_timestamp=st.floats(allow_nan=False)))
def test_text_round_trip(state):
    assert parse_text(format_text(state)) == state
