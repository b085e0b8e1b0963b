"""output_compare.py with stand-in tensors: lists of floats with a dtype."""
import unittest

import util  # noqa: F401  (puts kernels/harness on the path)
import output_compare as oc


class T:
    def __init__(self, values, dtype="torch.float32", shape=None):
        self.values, self.dtype = list(values), dtype
        self.shape = shape or (len(self.values),)


def is_tensor(x):
    return isinstance(x, T)


def measure(a, b, rtol, atol):
    if a.shape != b.shape or a.dtype != b.dtype:
        return None, None, a.shape == b.shape, a.dtype == b.dtype, False
    err = max(abs(x - y) for x, y in zip(a.values, b.values))
    close = all(abs(x - y) <= atol + rtol * abs(y) for x, y in zip(a.values, b.values))
    return err, max(abs(y) for y in b.values), True, True, close


def against_reference(a, b, r, rtol, atol):
    def rmse(x):
        return (sum((u - v) ** 2 for u, v in zip(x.values, r.values)) / len(r.values)) ** 0.5
    k = oc.REFERENCE_TRUST
    trusted = all(abs(u - v) <= k * atol + k * rtol * abs(v) for u, v in zip(a.values, r.values))
    return trusted, rmse(a), rmse(b)


class Compare(unittest.TestCase):
    def test_close_outputs_match_with_their_error(self):
        r = oc.compare((T([1.0, 2.0]), {"aux": T([0.5])}), (T([1.0, 2.0004]), {"aux": T([0.5])}), is_tensor, measure)
        self.assertTrue(r["match"])
        self.assertAlmostEqual(r["max_abs_error"], 0.0004, places=6)
        self.assertEqual(r["tensors"], 2)
        self.assertEqual(r["tolerances"], {"float32": [1e-3, 1e-3]})

    def test_tolerance_follows_dtype(self):
        a, b = T([1.0], "torch.float16"), T([1.005], "torch.float16")
        self.assertTrue(oc.compare(a, b, is_tensor, measure)["match"])
        a, b = T([1.0]), T([1.005])
        r = oc.compare(a, b, is_tensor, measure)
        self.assertFalse(r["match"])
        self.assertEqual(r["worst"], "out")

    def test_structure_and_shape_differences_fail(self):
        self.assertFalse(oc.compare((T([1.0]),), (T([1.0]), T([1.0])), is_tensor, measure)["match"])
        r = oc.compare(T([1.0], shape=(1,)), T([1.0], shape=(1, 1)), is_tensor, measure)
        self.assertFalse(r["match"])
        self.assertIn("shape", r["worst"])

    def test_non_tensor_leaves_compare_by_value(self):
        self.assertTrue(oc.compare((T([1.0]), 3, None), (T([1.0]), 3, None), is_tensor, measure)["match"])
        self.assertFalse(oc.compare((T([1.0]), 3), (T([1.0]), 4), is_tensor, measure)["match"])


class Float64Reference(unittest.TestCase):
    """A float32 output outside the tolerance agrees when it is about as close to the module run in
    float64 as eager's own output is (TF32 convolutions: both off by 2e-3 or so)."""

    eager = T([1.0, 2.0, 3.0])
    compiled = T([1.003, 2.0, 2.997])
    reference = T([1.002, 2.0, 2.998], "torch.float64")

    def test_without_a_reference_the_tolerance_decides(self):
        r = oc.compare(self.eager, self.compiled, is_tensor, measure)
        self.assertFalse(r["match"])
        self.assertEqual(r["comparison"], "allclose")

    def test_a_compiled_output_as_close_to_float64_as_eager_agrees(self):
        r = oc.compare(self.eager, self.compiled, is_tensor, measure, self.reference, against_reference)
        self.assertTrue(r["match"])
        self.assertEqual(r["comparison"], "float64_reference")
        self.assertAlmostEqual(r["max_abs_error"], 0.003, places=6)  # still eager against compiled
        self.assertEqual(r["reference"]["path"], "out")
        self.assertLess(r["reference"]["compiled_rmse"], 2 * r["reference"]["eager_rmse"])

    def test_a_compiled_output_farther_from_float64_than_eager_differs(self):
        reference = T([1.0, 2.0, 3.0], "torch.float64")  # eager is exact: the compiled error is its own
        r = oc.compare(self.eager, self.compiled, is_tensor, measure, reference, against_reference)
        self.assertFalse(r["match"])
        self.assertEqual(r["comparison"], "float64_reference")
        self.assertTrue(r["reference_refused"]["trusted"])

    def test_a_reference_eager_does_not_agree_with_is_not_trusted(self):
        # Random numbers drawn differently in float64: eager and compiled are both far from it,
        # the compiled output no farther; that is no agreement.
        reference = T([5.0, -3.0, 0.0], "torch.float64")
        r = oc.compare(self.eager, T([1.5, 2.5, 2.0]), is_tensor, measure, reference, against_reference)
        self.assertFalse(r["match"])
        self.assertFalse(r["reference_refused"]["trusted"])

    def test_a_reference_of_another_structure_is_not_used(self):
        r = oc.compare(self.eager, self.compiled, is_tensor, measure, (self.reference,), against_reference)
        self.assertFalse(r["match"])
        self.assertEqual(r["comparison"], "allclose")

    def test_the_half_types_allow_three_times_eager_s_error(self):
        self.assertTrue(oc.reference_agrees(1e-2, 2.9e-2, "torch.bfloat16", 2e-2))
        self.assertFalse(oc.reference_agrees(1e-2, 2.9e-2, "torch.float32", 1e-3))
        self.assertFalse(oc.reference_agrees(float("nan"), 0.0, "torch.float32", 1e-3))


if __name__ == "__main__":
    unittest.main()
