"""Restoring into one variable (or module) that the file holds under several names.

TF's restore walk (`_single_restore`) marks an object restored as it gathers it: an
object reached again in the same walk keeps the value of the node the breadth-first
walk of the file's object graph reached first, and the status assertions all pass.
Recorded from TF 2.21 by gen_object_graph.py (fixtures/object_graph/tied_restores.json).
"""

import json
import pathlib
import sys

import pytest
from hypothesis import given, settings, strategies as st

import tfcompat as tf

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import object_graph_programs as programs  # noqa: E402

RECORDED = json.loads((HERE / "fixtures" / "object_graph" / "tied_restores.json").read_text())


@pytest.fixture(scope="module")
def ours(tmp_path_factory):
    return programs.tied_restores(tf, str(tmp_path_factory.mktemp("tied")))


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_tied_restores_match_tf(case, ours):
    assert ours[case] == RECORDED[case]


def test_the_issue_case_keeps_the_first_name():
    # save embedding=[1,1], output_proj=[2,2]; restore into one variable under both names
    assert RECORDED["embedding/output_proj into embedding/output_proj"][0] == [1.0, 1.0]


@st.composite
def _layouts(draw):
    """Names of a saved module (depth 1, and under `sub` at depth 2) and a grouping of them
    into the variables of the restoring module."""
    top = draw(st.integers(1, 4))
    deep = draw(st.integers(0, 3))
    names = [("top", f"t{i}") for i in range(top)] + [("sub", f"s{i}") for i in range(deep)]
    order = draw(st.permutations(names))           # the saving module's attribute order
    sub_at = draw(st.integers(0, top))              # where `sub` is assigned among the tops
    groups = [draw(st.integers(0, 2)) for _ in names]  # which restoring variable each name is
    restore_order = draw(st.permutations(range(len(names))))
    return names, order, sub_at, groups, restore_order


@settings(max_examples=40, deadline=None)
@given(_layouts())
def test_first_name_in_breadth_first_file_order_wins(tmp_path_factory, layout):
    names, order, sub_at, groups, restore_order = layout
    value = {name: float(i + 1) for i, name in enumerate(names)}
    m = tf.Module()
    tops = [n for n in order if n[0] == "top"]
    deeps = [n for n in order if n[0] == "sub"]
    for i, (_, attr) in enumerate(tops):
        if i == sub_at:
            m.sub = tf.Module()
        setattr(m, attr, tf.Variable([value[("top", attr)]]))
    if not hasattr(m, "sub"):
        m.sub = tf.Module()
    for _, attr in deeps:
        setattr(m.sub, attr, tf.Variable([value[("sub", attr)]]))
    path = tf.train.Checkpoint(m=m).write(str(tmp_path_factory.mktemp("law") / "c"))

    variables = [tf.Variable([0.0]) for _ in range(3)]
    n = tf.Module()
    n.sub = tf.Module()
    for i in restore_order:
        where, attr = names[i]
        setattr(n if where == "top" else n.sub, attr, variables[groups[i]])
    status = tf.train.Checkpoint(m=n).read(path)
    status.assert_consumed()
    status.assert_existing_objects_matched()

    bfs = tops + deeps  # the file's breadth-first order: depth 1 in attribute order, then sub's
    for g, var in enumerate(variables):
        members = [name for i, name in enumerate(names) if groups[i] == g]
        members.sort(key=bfs.index)
        expected = value[members[0]] if members else 0.0
        assert var.numpy().tolist() == [expected]
