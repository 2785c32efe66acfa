"""TF 2's variable laws (`tfcompat.testing.conformance`) for `ResourceVariable`,
created the usual way: `tf.Variable(...)`, through the creator stack."""

import tfcompat as tf
from tfcompat.testing import conformance


class TestResourceVariableConformance(conformance.VariableConformance):
    factory = staticmethod(lambda value, **kw: tf.Variable(value, **kw))
