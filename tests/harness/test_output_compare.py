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


if __name__ == "__main__":
    unittest.main()
