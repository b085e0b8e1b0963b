"""mine export --with-launcher: each kernel of tests/fixtures/launch/repo written together with the
function of the repository that launches it, as one module python can parse and that defines
both; chat prompts then ask for the launcher by its signature. A real scan into a real corpus."""
import ast
import json
import os
import subprocess
import tempfile
import unittest

MINE = os.environ["MINE"]
REPO = os.path.join(os.environ["MINE_FIXTURES_DIR"], "launch", "repo")

# kernel -> the launcher the fixtures launch it from (by qualname), or None; a tuple where several
# kernels share the name
LAUNCHED = {"split_axes": "stale_launch", "ray_steps": "march", "act_kernel": "activation", "dequant_kernel": "dequantize", "scale_kernel": "Scaler.forward",
            "sgd_kernel": "step", "adam_kernel": "step", "fp8_cast_kernel": "to_fp8",
            "lonely_kernel": None, "lonely_zero": None, "state_kernel": "state_fwd",
            "dequant_gemv_kernel": None, "int8_mm_kernel": None, "precision_kernel": None, "heads_kernel": None,
            "asserted_mm_kernel": None, "tiled_attn_kernel": "tiled_attn", "w4a16_kernel": None,
            "fits_head": "run_fits_head", "strided_rows": "first_rows", "scale_add": "scaled", "add_tensor": ("add", "biased"), "rms_fwd": "RMSNorm.forward", "fill_kernel": "fill_", "add_scalar": ("add", "biased"), "strided_cols": "last_rows", "packed_gemv": "gemv", "scaled_cast": None, "_rounded": None, "grouped_dequant": None,
            "guarded": None, "impossible": None, "group_scale_kernel": "group_scale",
            "p_loss_kernel": "p_loss", "persistent_copy_kernel": "persistent_copy",
            "residual_add": "add", "hc_aggregate": "aggregate", "windowed_sum": "window", "fill_one": "test_fill_one", "reduce_rows": "test_reduce_rows", "widen_kernel": "widen", "scale_tile": "test_scale_tile",
            "biased_rows": "biased", "quant_rows": "quant", "gather_rows": "gather", "_peer_row": None,
            "put_to_peer": "put", "paged_scores": "scores", "acc_sum_kernel": "acc_sum",
            "token_rows_kernel": "token_rows", "pad_rows_kernel": "pad_rows", "triton_tem_scaled": "call",
            "unpack_bits_kernel": "unpack_bits", "fp8_mm_kernel": "fp8_mm", "block_sum_kernel": "block_sum",
            "rank_rows_kernel": "rank_rows", "varlen_sum_kernel": "varlen_sum", "desc_attn_kernel": "desc_attn",
            "tuned_copy_kernel": "tuned_copy", "launched_rotation_kernel": "rotate", "scaled_add_kernel": "scaled_add", "seeded_kernel": "seeded",
            "spread_rows_kernel": ("scale_named", "scale_unnamed", "scale_options", "scale_later.<locals>.launch",
                                   "scale_split", "scale_configured"),
            "widen_int_kernel": "widen_any", "widen_float_kernel": "widen_any",
            "pick_tokens": "pick", "block_cumsum": "prepare_blocks", "tiled_rows": "tiled",
            "segment_sum": "segments", "block_quant": "quantize", "_sum_rows": "sum_rows",
            "amax_kernel": ("amax", "amax_any"), "half_scale_kernel": "half_scale",
            "norm_fwd_kernel": "NormFunction.forward", "norm_bwd_kernel": "NormFunction.backward",
            "gated_scale_kernel": "gated_scale", "tile_kernel": "tiled", "tile_kernel_tuned": ("tiled", "tiled_untuned"),
            "flagged_kernel": "flagged", "scale_rows": ("scale_by_row_max", "counted_rows"),
            "table_rows": "gather_groups", "tile_copy": "copy_with_fallback",
            "ragged_rows": ("ragged_sums", "bf16_ragged_sums"), "unpack_scale": "unpack_scale_launch",
            "axpy_kernel": "_launch_axpy", "merge_rows": ("merge_segments", "scaled_segments"),
            "cast_store_kernel": "cast_store", "default_store_kernel": "default_store",
            "quarter_dot": "quarter_blocks", "shifted_copy": "shifted", "maybe_residual": "add_maybe",
            "shift_kernel": "shift", "flip_kernel": "flip", "int8_out_dtype_kernel": None,
            "rowsum_kernel": ("row_sums", "scaled_row_sums", "padded_row_sums"), "split_store_kernel": "split_store",
            "mask_bits_kernel": "unpack", "copy_rows_kernel": ("copy_rows", "copy_guessed", "first_channel"),
            # launched in the notebook's own code: no function launches it
            "halve_kernel": None, "scaled_gemv_kernel": "scale_rows",
            # handed to their launcher by its callers, or chosen by a conditional
            "scale_rows_kernel": ("run_chosen", "run_typed"), "shift_rows_kernel": ("run_chosen", "run_pair", "run_typed"),
            "logsum_rows_kernel": ("reduce_rows", "reduce_log"), "maxsum_rows_kernel": ("reduce_rows", "reduce_log"),
            "exp_rows_kernel": "exp_rows", "group_sums_kernel": "group_sums",
            "add_raw_kernel": "solve", "scale_i8_kernel": "scale_i8", "scaled_copy_kernel": "scaled_copy",
            "rope_pairs_kernel": "rope_pairs", "weight_grad_rows": "weight_grad", "radial_mix": "mix",
            # a jitted helper that returns a value: compiled inside its caller, no launcher of its own
            "_mix_orders": None,
            # launched through a wrapper (`triton_viz.trace(k)[grid]`), directly or handed
            "negate_kernel": "negate", "square_kernel": "run_traced", "copy_kernel": "copy",
            # two test functions each define and launch their own `kernel`
            "kernel": ("test_fill", "test_negate")}


def mine(*args):
    return subprocess.run([MINE, *args], check=True, capture_output=True, text=True)


def defined(tree):
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


class ExportWithLauncher(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.db = os.path.join(cls.tmp.name, "c.db")
        mine("scan", REPO, "--db", cls.db, "-q")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def export(self, *extra):
        out = os.path.join(self.tmp.name, "out.jsonl")
        summary = mine("export", "--db", self.db, "--out", out, "--dedup", "none", *extra).stdout
        with open(out) as f:
            return [json.loads(line) for line in f], summary

    def test_records_hold_kernel_and_launcher(self):
        records, summary = self.export("--with-launcher")
        self.assertEqual({r["kernel_name"] for r in records}, set(LAUNCHED))
        self.assertIn("written with their launcher: 101", summary)
        for r in records:
            want = LAUNCHED[r["kernel_name"]]
            self.assertIn(r["launcher"], want if isinstance(want, tuple) else (want,), r["kernel_name"])
            names = defined(ast.parse(r["code"]))
            self.assertIn(r["kernel_name"], names)
            if want:
                self.assertIn(r["launcher"].split(".")[-1], names)  # a method is written as a function

    def test_without_the_option_the_kernel_alone(self):
        records, _ = self.export()
        for r in records:
            self.assertNotIn("launcher", r)
            names = defined(ast.parse(r["code"]))
            self.assertNotIn("activation", names)

    def test_chat_prompt_asks_for_the_launcher(self):
        records, _ = self.export("--with-launcher", "--format", "chat")
        prompts = [r["messages"][0]["content"] for r in records]
        act = [p for p in prompts if "`activation`" in p]
        self.assertEqual(len(act), 1)
        self.assertIn("def activation(x: torch.Tensor, scale: float = 0.5):", act[0])
        self.assertIn("name it `act_kernel`", act[0])
        lonely = [p for p in prompts if "`lonely_kernel`" in p]
        self.assertTrue(lonely and lonely[0].startswith("Write a Triton kernel named `lonely_kernel`"))


if __name__ == "__main__":
    unittest.main()
