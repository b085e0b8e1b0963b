"""module_inputs.py: the inputs a torch_module spec describes and the deducer's corrections,
each from an error message PyTorch raises (quoted from torch 2.x)."""
import unittest

import util  # noqa: F401  (puts kernels/harness on the path)
import module_inputs as mi


def spec(rank, dims=None, dtype="float32", name="x"):
    return {"name": name, "rank": rank, "dims": dims or {}, "dtype": dtype}


class Inputs(unittest.TestCase):
    def test_init_kwargs_passes_literals_and_leaves_defaults(self):
        inputs = {"init": [{"name": "dim", "literal": "64", "source": "call_site"},
                           {"name": "kernel", "literal": "(3, 3)", "source": "call_site"},
                           {"name": "act", "source": "default"}]}
        self.assertEqual(mi.init_kwargs(inputs), {"dim": 64, "kernel": (3, 3)})

    def test_init_kwargs_refuses_code(self):
        with self.assertRaises(mi.InputError):
            mi.init_kwargs({"init": [{"name": "dim", "literal": "__import__('os')"}]})

    def test_shapes_fill_batch_and_size_around_known_dims(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4, "dims": {"1": 3}}]})
        self.assertEqual(mi.shape_of(s), [mi.BATCH, 3, mi.SIZE, mi.SIZE])
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 3, "dims": {"-1": 64}}]})
        self.assertEqual(mi.shape_of(s), [mi.BATCH, mi.SIZE, 64])

    def test_bad_rank_is_an_input_error(self):
        with self.assertRaises(mi.InputError):
            mi.tensor_specs({"forward": [{"name": "x", "rank": 99}]})


class Deducer(unittest.TestCase):
    def fix(self, specs, message):
        new, why = mi.deduce(specs, message)
        self.assertIsNotNone(new, "no rule for: " + message)
        self.assertTrue(why)
        return new

    def test_matmul_width(self):
        new = self.fix([spec(3)], "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x16 and 64x128)")
        self.assertEqual(mi.shape_of(new[0])[-1], 64)

    def test_conv_channels(self):
        msg = ("RuntimeError: Given groups=1, weight of size [8, 3, 3, 3], expected input[2, 16, 16, 16] "
               "to have 3 channels, but got 16 channels instead")
        self.assertEqual(mi.shape_of(self.fix([spec(4)], msg)[0])[1], 3)

    def test_layer_norm_shape(self):
        msg = ("RuntimeError: Given normalized_shape=[64], expected input with shape [*, 64], "
               "but got input of size[2, 16, 16, 16]")
        self.assertEqual(mi.shape_of(self.fix([spec(4)], msg)[0])[-1], 64)

    def test_layer_norm_over_patches_asks_for_the_channels(self):
        # A patch embedding `b c (h p1) (w p2) -> b h w (p1 p2 c)` then LayerNorm(3 * 4 * 4): 16
        # guessed channels give 256 features per 4x4 patch, 48 are wanted: 3 channels.
        msg = ("RuntimeError: Given normalized_shape=[48], expected input with shape [*, 48], "
               "but got input of size[2, 4, 4, 256]")
        new = self.fix([spec(4, {-1: 16, -2: 16}, name="img")], msg)
        self.assertEqual(mi.shape_of(new[0]), [mi.BATCH, 3, 16, 16])
        # One dimension of patches (`b c (n p) -> b n (p c)`, patches of 16 by 16 channels).
        msg = ("RuntimeError: Given normalized_shape=[48], expected input with shape [*, 48], "
               "but got input of size[2, 1, 256]")
        self.assertEqual(mi.shape_of(self.fix([spec(3, name="series")], msg)[0]), [mi.BATCH, 3, mi.SIZE])
        # Channels the evidence fixed stay; so does a norm applied to the input as it is.
        new = self.fix([spec(4, {1: 16})], msg)
        self.assertEqual(mi.shape_of(new[0])[1], 16)
        self.assertEqual(mi.shape_of(new[0])[-1], 48)

    def test_unpack_sets_rank(self):
        new = self.fix([spec(4)], "ValueError: not enough values to unpack (expected 5, got 4)")
        self.assertEqual(new[0]["rank"], 5)
        new = self.fix([spec(4)], "ValueError: too many values to unpack (expected 3)")
        self.assertEqual(new[0]["rank"], 3)
        self.assertTrue(new[0]["rank_known"])  # later trials of unknown ranks leave it

    def test_unpack_with_extra_values_moves_by_the_difference(self):
        # `b, n, _, h = *x.shape, self.heads`: rank 3 gives four values, rank 4 five.
        new = self.fix([spec(4)], "ValueError: too many values to unpack (expected 4)")
        self.assertEqual(new[0]["rank"], 3)
        new = self.fix([spec(2)], "ValueError: not enough values to unpack (expected 4, got 3)")
        self.assertEqual(new[0]["rank"], 3)
        # The input the message is about moves, not the first: the one above the count...
        new = self.fix([spec(2, name="a"), spec(4, name="b")], "ValueError: too many values to unpack (expected 2)")
        self.assertEqual([s["rank"] for s in new], [2, 2])
        # ...or the one whose rank the count names.
        new = self.fix([spec(2, name="mask"), spec(4)], "ValueError: not enough values to unpack (expected 5, got 4)")
        self.assertEqual([s["rank"] for s in new], [2, 5])

    def test_a_kernel_wider_than_the_input_grows_its_sides(self):
        msg = ("RuntimeError: Calculated padded input size per channel: (4 x 4). Kernel size: (8 x 8). "
               "Kernel size can't be greater than actual input size")
        new = self.fix([spec(2, dtype="int64", name="ids"), spec(4, {1: 3})], msg)
        self.assertEqual(mi.shape_of(new[1]), [mi.BATCH, 3, mi.SPATIAL_LARGE, mi.SPATIAL_LARGE])
        # already large: by the window over what the layer got, and no further than SPATIAL_MAX
        sides = []
        while new is not None:
            sides.append(mi.shape_of(new[1])[2])
            new, _ = mi.deduce(new, msg)
        self.assertEqual(sides, [mi.SPATIAL_LARGE, 128, 256, mi.SPATIAL_MAX])

    def test_messages_naming_both_ranks(self):
        einops = ('EinopsError: Error while processing rearrange-reduction pattern "b n d -> (b n) d". Input tensor '
                  'shape: torch.Size([2, 16, 16, 16, 16]). Additional info: {}. Wrong shape: expected 3 dims. '
                  'Received 5-dim tensor.')
        einsum = ("RuntimeError: einsum(): the number of subscripts in the equation (4) does not match the number "
                  "of dimensions (5) for operand 0 and no ellipsis was given")
        mha = "AssertionError: query should be unbatched 2D or batched 3D tensor but received 5-D query tensor"
        for message, want in ((einops, 3), (einsum, 4), (mha, 3)):
            new = self.fix([spec(2, name="mask"), spec(5)], message)
            self.assertEqual([s["rank"] for s in new], [2, want], message)

    def test_conv_rank_prefers_batched(self):
        msg = "RuntimeError: Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [2, 16, 16, 16]"
        self.assertEqual(self.fix([spec(4)], msg)[0]["rank"], 3)

    def test_broadcast_dim(self):
        msg = ("RuntimeError: The size of tensor a (16) must match the size of tensor b (197) "
               "at non-singleton dimension 1")
        self.assertEqual(mi.shape_of(self.fix([spec(3)], msg)[0])[1], 197)

    def test_dimension_out_of_range_grows_rank(self):
        msg = "IndexError: Dimension out of range (expected to be in range of [-2, 1], but got 3)"
        self.assertEqual(self.fix([spec(2)], msg)[0]["rank"], 4)

    def test_missing_forward_argument_adds_input(self):
        msg = "TypeError: Attention.forward() missing 2 required positional arguments: 'k' and 'v'"
        new = self.fix([spec(3, name="q")], msg)
        self.assertEqual([s["name"] for s in new], ["q", "k", "v"])

    def test_indices_expected(self):
        msg = ("RuntimeError: Expected tensor for argument #1 'indices' to have one of the following "
               "scalar types: Long, Int; but got torch.cuda.FloatTensor instead")
        new = self.fix([spec(2)], msg)
        self.assertEqual(new[0]["dtype"], "int64")
        new = self.fix([spec(2)], "RuntimeError: gather(): Expected dtype int32/int64 for index")
        self.assertEqual(new[0]["dtype"], "int64")
        new = self.fix([spec(2)], "RuntimeError: gather(): Expected dtype int64 for index")  # older torch
        self.assertEqual(new[0]["dtype"], "int64")

    def test_a_target_takes_the_size_cross_entropy_expects(self):
        new = self.fix([spec(3, name="logits"), spec(4, dtype="int64", name="target")],
                       "RuntimeError: Expected target size [2, 100], got [2, 16, 16, 16]")
        self.assertEqual(mi.shape_of(new[1]), [2, 100])
        self.assertEqual(new[0]["rank"], 3)

    def test_indices_expected_turns_the_last_float_input(self):
        new = self.fix([spec(3, name="x"), spec(2, name="y")], "RuntimeError: gather(): Expected dtype int64 for index")
        self.assertEqual([s["dtype"] for s in new], ["float32", "int64"])

    def test_a_change_back_to_inputs_tried_counts_as_none(self):
        # Broadcasting between two inputs: each message would make them differ the other way.
        a, b = spec(3, {1: 16}, name="a"), spec(3, {1: 2}, name="b")
        msg = "RuntimeError: The size of tensor a (16) must match the size of tensor b (2) at non-singleton dimension 1"
        new, _ = mi.deduce([a, b], msg)
        self.assertEqual(mi.deduce([a, b], msg, {mi.signature(new)}), (None, None))

    def test_no_rule_or_no_change_stops(self):
        self.assertEqual(mi.deduce([spec(3)], "RuntimeError: CUDA error: out of memory"), (None, None))
        # Already the rank the message asks for: nothing to change, so no endless retry.
        self.assertEqual(mi.deduce([spec(1)], "ValueError: too many values to unpack (expected 1)"), (None, None))

    def test_the_input_is_not_edited_in_place(self):
        specs = [spec(4)]
        mi.deduce(specs, "ValueError: not enough values to unpack (expected 5, got 4)")
        self.assertEqual(specs[0]["rank"], 4)

    def test_missing_init_args(self):
        msg = "TypeError: Block.__init__() missing 2 required positional arguments: 'dim' and 'heads'"
        self.assertEqual(mi.missing_init_args(msg), ["dim", "heads"])
        self.assertEqual(mi.missing_init_args("TypeError: unsupported operand"), [])


if __name__ == "__main__":
    unittest.main()


class StandIns(unittest.TestCase):
    def test_object_arguments_become_markers(self):
        kw = mi.init_kwargs({"init": [{"name": "config", "source": "stand_in", "stand_in": "config"},
                                      {"name": "act_layer", "source": "stand_in", "stand_in": "class:torch.nn.ReLU"}]})
        self.assertEqual((kw["config"].kind, kw["act_layer"].kind, kw["act_layer"].target),
                         ("config", "class", "torch.nn.ReLU"))

    def test_a_class_of_the_module_file_stands_in_by_name(self):
        kwargs = mi.init_kwargs({"init": [{"name": "block", "stand_in": "module:BasicBlock"}]})
        self.assertEqual((kwargs["block"].kind, kwargs["block"].target), ("module", "BasicBlock"))
        with self.assertRaises(mi.InputError):
            mi.init_kwargs({"init": [{"name": "block", "stand_in": "module:os.system"}]})

    def test_a_call_site_expression_is_calls_of_names_on_literals_only(self):
        kwargs = mi.init_kwargs({"init": [
            {"name": "model", "stand_in": "expression:Unet(dim=64, dim_mults=(1, 2), cfg=({'A': [8, 'M']})['A'], s=-1)"}]})
        self.assertEqual(kwargs["model"].kind, "expression")
        for bad in ("os.system('ls')", "__import__('os')", "Unet(dim=x.y)", "Unet(lambda: 1)", "f()()",
                    "Unet(dim=1 + 2)", "Unet(dim=[i for i in range(3)])"):
            with self.assertRaises(mi.InputError, msg=bad):
                mi.init_kwargs({"init": [{"name": "model", "stand_in": "expression:" + bad}]})

    def test_only_known_torch_classes_stand_in(self):
        with self.assertRaises(mi.InputError):
            mi.init_kwargs({"init": [{"name": "x", "stand_in": "class:os.system"}]})

    def test_shares_are_fractions_and_ratios_of_widths_are_not(self):
        self.assertEqual([mi.guess_attribute(n) for n in ("masking_ratio", "mask_prob", "sample_frac", "mlp_ratio",
                                                          "hidden_dropout_prob")], [0.5, 0.5, 0.5, 4, 0.0])

    def test_config_attributes_are_guessed_by_name(self):
        c = mi.ConfigStandIn()
        self.assertEqual(c.hidden_size, mi.SIZE)
        self.assertEqual(c.num_attention_heads, 4)
        self.assertEqual(c.rms_norm_eps, 1e-5)
        self.assertEqual(c.hidden_act, "silu")
        self.assertEqual(c["vocab_size"], 100)
        self.assertFalse(c.use_cache)
        with self.assertRaises(AttributeError):
            c.__deepcopy__


class CodeDefaults(unittest.TestCase):
    """Attributes the module's code reads with a default of its own (flash-attn's
    `getattr(config, "fused_bias_fc", False)`): the stand-in answers the code's default, where a
    guess from the name (16, true) took the branch needing a library the machine lacks."""

    def test_getattr_and_get_defaults_are_read_from_the_source(self):
        defaults = mi.code_defaults(
            "def f(config, cfg, n):\n"
            "    a = getattr(config, 'fused_bias_fc', False)\n"
            "    b = cfg.get('depth', 2)\n"
            "    c = getattr(config, 'rotary_emb_dim', config.hidden_size)\n"   # not a literal: left to the guess
            "    d = getattr(config, 'n_head_kv', None)\n"
            "    e = getattr(config, 'n_head_kv', 1)\n"                         # two defaults: left to the guess
            "    f = getattr(config, 'window_size', (-1, -1))\n")
        self.assertEqual(defaults, {"fused_bias_fc": False, "depth": 2, "window_size": (-1, -1)})
        self.assertEqual(mi.code_defaults("def (:"), {})

    def test_a_string_the_code_requires_is_answered(self):
        # Liger's tiled GEGLU: `if config.hidden_act not in ["gelu", ...]: raise ValueError(...)`;
        # the name's guess ("silu") is refused there.
        defaults = mi.code_defaults(
            "def f(config, other):\n"
            "    if config.hidden_act not in ['gelu', 'gelu_new']:\n"
            "        raise ValueError(config.hidden_act)\n"
            "    if other.norm not in ('rms', 'layer'): raise ValueError\n"
            "    if other.norm not in ('layer',): raise ValueError\n"   # two requirements: left to the guess
            "    if config.mode not in [1, 2]: raise ValueError\n"       # not strings
            "    x = getattr(config, 'pos', 'rope')\n"
            "    if config.pos not in ['alibi']: pass\n")                # the code's own default wins
        self.assertEqual(defaults, {"hidden_act": "gelu", "pos": "rope"})
        # Unpacked into names: one guess each (Falcon-H1's `gate_multiplier, down_multiplier`).
        defaults = mi.code_defaults("def f(config):\n"
                                    "    gate_multiplier, down_multiplier = config.mlp_multipliers\n"
                                    "    heads, dim = config.shape\n"
                                    "    a, b, c = config.shape\n")   # two lengths: left to the guess
        self.assertEqual(defaults, {"mlp_multipliers": (mi.guess_attribute("gate_multiplier"),
                                                        mi.guess_attribute("down_multiplier"))})

    def test_the_stand_in_answers_the_code_defaults_first(self):
        c = mi.ConfigStandIn({"fused_mlp": False, "hidden_size": 48})
        self.assertIs(c.fused_mlp, False)
        self.assertIs(getattr(c, "fused_mlp", True), False)
        self.assertEqual(c.hidden_size, 48)
        self.assertEqual(c["hidden_size"], 48)
        self.assertEqual(c.intermediate_size, mi.SIZE)  # not in the code's defaults: guessed

    def test_bias_switches_are_off(self):
        c = mi.ConfigStandIn()
        self.assertIs(c.mlp_bias, False)
        self.assertIs(c.bias, False)
        self.assertEqual(c.bias_buckets, mi.SIZE)  # a name that only starts with it stays a size

    def test_a_module_s_own_compile_switch_is_turned_off(self):
        inputs = {"init": [{"name": "compiled", "source": "default"},
                           {"name": "use_compile", "source": "default"},
                           {"name": "compile", "literal": "True", "source": "call_site"},
                           {"name": "chunk_size", "source": "default"}]}
        self.assertEqual(mi.init_kwargs(inputs), {"compiled": False, "use_compile": False, "compile": True})


class TorchMessages(unittest.TestCase):
    def test_a_transpose_of_a_matrix_names_both_ranks(self):
        # Liger's fused linear losses: `lin_weight.t()` on a weight guessed as an image
        specs = [spec(4, name="_input"), spec(4, name="lin_weight"), spec(2, dtype="int64", name="target")]
        specs[0]["rank"] = 3
        new, why = mi.deduce(specs, "RuntimeError: t() expects a tensor with <= 2 dimensions, but self is 4D")
        self.assertEqual([s["rank"] for s in new], [3, 2, 2])

    def test_a_target_per_row_of_scores(self):
        specs = [spec(3, name="logits"), spec(2, dtype="int64", name="target")]
        new, why = mi.deduce(specs, "ValueError: Expected input batch_size (64) to match target batch_size (32).")
        self.assertEqual(mi.shape_of(new[1]), [64])
        new, why = mi.deduce(specs, "ValueError: Expected input batch_size (256) to match target batch_size (7).")
        self.assertIsNone(new)  # no integer input of 7 values


class InitWidth(unittest.TestCase):
    CONV = ("RuntimeError: Given groups=1, weight of size [16, 16, 1, 1], expected input[2, 64, 16, 16] to have "
            "16 channels, but got 64 channels instead")

    def test_the_input_width_argument_changes_once_the_input_was_given_the_channels(self):
        specs = [spec(4, {1: 64})]
        narrow = [spec(4, {1: 16})]
        kwargs = {"inplanes": 16, "planes": 16}
        # not tried yet: the deducer gives the input 16 channels first
        self.assertIsNone(mi.init_width_fix(self.CONV, specs, kwargs, ["inplanes", "planes"], {mi.signature(specs)}))
        tried = {mi.signature(specs), mi.signature(narrow)}
        self.assertEqual(mi.init_width_fix(self.CONV, specs, kwargs, ["inplanes", "planes"], tried), ("inplanes", 64))
        # the module's own number (a call site's, not a guess) is left alone; so is a name that is no input width
        self.assertIsNone(mi.init_width_fix(self.CONV, specs, kwargs, ["planes"], tried))
        self.assertIsNone(mi.init_width_fix(self.CONV, specs, {"in_chs": 16, "dim_in": 16}, ["in_chs", "dim_in"], tried))
        self.assertEqual(mi.init_width_fix(self.CONV, specs, {"in_chs": 16}, ["in_chs"], tried), ("in_chs", 64))

    def test_a_missing_library_stops_the_tries(self):
        s = mi.tensor_specs({"forward": [{"name": "x", "rank": 4, "rank_known": False}]})
        for message in ("ModuleNotFoundError: No module named 'einx' (imported by the module's file, needed when it ran)",
                        "ImportError: fused_dense is not installed",
                        "RuntimeError: selective_scan_cuda is not installed. To use Mamba-1, reinstall with:",
                        "RuntimeError: No such operator xformers::sparse24_sparsify_both_ways"):
            self.assertEqual(mi.deduce(s, message), (None, None), message)
        self.assertIsNotNone(mi.deduce(s, "KeyError: 4")[0])


class Windows(unittest.TestCase):
    """Windowed attention and patches: sides the window does not divide."""

    def test_einops_chunks_of_a_downsampled_side_grow_the_image(self):
        # MaxViT: a stem and a stage halve 16 twice to 4, windows of 7
        new, why = mi.deduce([spec(4)], "EinopsError: Error while processing rearrange-reduction pattern "
                             "\"b d (x w1) (y w2) -> b x y w1 w2 d\". Shape mismatch, can't divide axis of "
                             "length 4 in chunks of 7")
        self.assertEqual(mi.shape_of(new[0]), [mi.BATCH, mi.SIZE, 28, 28])
        self.assertIn("windows of 7", why)

    def test_sides_grown_for_windows_grow_again_deeper_in_the_network(self):
        # MaxViT halves 28 four times with rounding up (14, 7, 4, 2): 4 in chunks of 7 again, and
        # again, until the sides are 224.
        message = "EinopsError: Shape mismatch, can't divide axis of length 4 in chunks of 7"
        specs, sides = [spec(4)], []
        for _ in range(4):
            specs, _ = mi.deduce(specs, message)
            sides.append(mi.shape_of(specs[0])[2])
        self.assertEqual(sides, [28, 56, 112, 224])
        # Sides no window grew are left to the other rules (6 over 16 is no stride's).
        self.assertEqual(mi.deduce([spec(4, {2: 28, 3: 28})], message), (None, None))

    def test_an_assert_on_the_window_size(self):
        new, _ = mi.deduce([spec(4)], "AssertionError: height 16 and width 16 must be divisible by window size 7")
        self.assertEqual(mi.shape_of(new[0])[2:], [21, 21])

    def test_an_axis_that_is_no_side_is_left_to_other_rules(self):
        # 6 in chunks of 4: no side of 16 is 6 times a power of two
        self.assertEqual(mi.deduce([spec(4)], "Shape mismatch, can't divide axis of length 6 in chunks of 4"),
                         (None, None))
        # divisible already: nothing to grow
        self.assertEqual(mi.deduce([spec(4)], "Shape mismatch, can't divide axis of length 16 in chunks of 8"),
                         (None, None))


class RankTrials(unittest.TestCase):
    def test_unknown_rank_cycles_on_messages_without_a_rule(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4, "rank_known": False}]})
        specs, seen = [s], [4]
        for _ in range(len(mi.RANK_ORDER + mi.LAST_RANKS) - 1):
            specs, why = mi.deduce(specs, "KeyError: 4")
            self.assertIsNotNone(specs)
            seen.append(specs[0]["rank"])
        self.assertEqual(seen, [4, 3, 2, 5, 1])
        self.assertEqual(mi.deduce(specs, "KeyError: 4"), (None, None))  # every rank tried: stop

    def test_rank_one_comes_after_every_input_tried_the_usual_ranks(self):
        # vit-pytorch's FiLM(x, cond): a trial of rank 1 for x used up the try cond's rank needed
        specs = mi.tensor_specs({"forward": [{"name": "x", "rank": 4, "rank_known": False},
                                             {"name": "cond", "rank": 4, "rank_known": False}]})
        seen = []
        while True:
            specs, why = mi.deduce(specs, "KeyError: 0")
            if specs is None:
                break
            seen.append((specs[0]["rank"], specs[1]["rank"]))
        self.assertEqual([x for x, _ in seen[:3]], [3, 2, 5])          # x through the usual ranks
        self.assertEqual([c for _, c in seen[3:6]], [3, 2, 5])         # then cond
        self.assertEqual(seen[6:], [(1, 5), (1, 1)])                   # then rank 1 for each

    def test_a_rank_from_an_unpacking_is_kept_and_a_lower_bound_is_not(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4, "rank_known": False}]})
        specs, _ = mi.deduce([s], "ValueError: too many values to unpack (expected 3)")
        self.assertEqual(mi.deduce(specs, "KeyError: 3"), (None, None))
        specs, _ = mi.deduce([s], "IndexError: Dimension out of range (expected to be in range of [-4, 3], "
                                  "but got 5)")
        self.assertEqual(specs[0]["rank"], 6)
        specs, why = mi.deduce(specs, "KeyError: 6")
        self.assertIn("trying another rank", why)

    def test_known_rank_is_not_cycled(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4}]})
        self.assertEqual(mi.deduce([s], "KeyError: 4"), (None, None))


class FlattenedFeatures(unittest.TestCase):
    """A convolution stack flattened into a Linear or BatchNorm1d: the sides, not the width."""

    def image(self, dims=None, side=None):
        d = {"1": 3}
        d.update(dims or {})
        if side:
            d.update({"2": side, "3": side})
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4, "dims": d, "rank_known": False}]})
        return [s]

    def test_batch_rows_scale_the_sides_by_a_power_of_two(self):
        # CIFAR's MobileNet at 64 pixels: 1024 channels on 2x2 where the classifier wants 1x1
        specs, why = mi.deduce(self.image(side=64), "RuntimeError: mat1 and mat2 shapes cannot be multiplied "
                                                     "(2x4096 and 1024x10)")
        self.assertEqual(mi.shape_of(specs[0]), [2, 3, 32, 32])
        self.assertIn("flattened features", why)

    def test_a_ratio_that_is_no_power_of_two_doubles(self):
        # LeNet's unpadded 5x5 convolutions: 16 features at 16 pixels, 400 at 32
        specs, _ = mi.deduce(self.image(), "RuntimeError: mat1 and mat2 shapes cannot be multiplied "
                                           "(2x16 and 400x120)")
        self.assertEqual(mi.shape_of(specs[0]), [2, 3, 32, 32])

    def test_pooled_channels_take_the_count_when_they_were_a_guess(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4}]})
        specs, _ = mi.deduce([s], "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x16 and 64x10)")
        self.assertEqual(mi.shape_of(specs[0]), [2, 64, 16, 16])

    def test_tokens_pooled_to_their_width_keep_the_width_rule(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 3}]})
        specs, why = mi.deduce([s], "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x16 and 64x10)")
        self.assertEqual(mi.shape_of(specs[0]), [2, 16, 64])
        self.assertIn("(matmul)", why)

    def test_rows_of_more_than_the_batch_are_a_width(self):
        specs, why = mi.deduce(self.image(), "RuntimeError: mat1 and mat2 shapes cannot be multiplied "
                                             "(96x16 and 64x10)")
        self.assertEqual(mi.shape_of(specs[0]), [2, 3, 16, 64])
        self.assertIn("(matmul)", why)

    def test_batch_norm_after_a_flatten_scales_the_sides(self):
        specs, why = mi.deduce(self.image(side=32), "RuntimeError: running_mean should contain 64 elements not 256")
        self.assertEqual(mi.shape_of(specs[0]), [2, 3, 16, 16])
        self.assertIn("batch norm features", why)

    def test_counts_the_sides_did_not_move_stop_scaling(self):
        msg = "RuntimeError: running_mean should contain 16 elements not 64"
        specs, why = mi.deduce(self.image(side=32), msg)
        self.assertEqual(mi.shape_of(specs[0]), [2, 3, 16, 16])
        specs, why = mi.deduce(specs, msg)  # the same counts: not the sides; the rank is unknown
        self.assertIn("trying another rank", why)

    def test_batch_norm_on_guessed_channels_sets_them(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4}]})
        specs, _ = mi.deduce([s], "RuntimeError: running_mean should contain 64 elements not 16")
        self.assertEqual(mi.shape_of(specs[0]), [2, 64, 16, 16])


class KernelOverInput(unittest.TestCase):
    def image(self, side):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4, "dims": {"1": 3, "2": side, "3": side}}]})
        return [s]

    def test_small_sides_grow_to_the_large_side_first(self):
        msg = ("RuntimeError: Given input size: (1024x1x1). Calculated output size: (1024x0x0). "
               "Output size is too small")
        specs, _ = mi.deduce(self.image(16), msg)
        self.assertEqual(mi.shape_of(specs[0])[2:], [mi.SPATIAL_LARGE] * 2)

    def test_large_sides_grow_by_the_window_over_what_the_layer_got(self):
        # an ImageNet ResNet's AvgPool2d(7) on the 2x2 that 64 pixels leave: 64 * 7 / 2
        msg = ("RuntimeError: Given input size: (2048x2x2). Calculated output size: (2048x-4x-4). "
               "Output size is too small")
        specs, why = mi.deduce(self.image(64), msg)
        self.assertEqual(mi.shape_of(specs[0])[2:], [224, 224])
        self.assertIn("a window of 7 over 2", why)
        msg = ("RuntimeError: Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). "
               "Kernel size can't be greater than actual input size")
        specs, _ = mi.deduce(self.image(64), msg)
        self.assertEqual(mi.shape_of(specs[0])[2:], [96, 96])

    def test_growth_stops_at_the_largest_side(self):
        msg = ("RuntimeError: Given input size: (64x1x1). Calculated output size: (64x-30x-30). "
               "Output size is too small")
        specs, _ = mi.deduce(self.image(64), msg)
        self.assertEqual(mi.shape_of(specs[0])[2:], [mi.SPATIAL_MAX] * 2)
        self.assertEqual(mi.deduce(specs, msg), (None, None))


class OddSides(unittest.TestCase):
    def test_branches_a_pixel_apart_make_the_sides_odd_once(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4, "dims": {"1": 192}}]})
        msg = ("RuntimeError: Sizes of tensors must match except in dimension 1. Expected size 8 but got "
               "size 7 for tensor number 1 in the list.")
        specs, why = mi.deduce([s], msg)
        self.assertEqual(mi.shape_of(specs[0]), [2, 192, 17, 17])
        # Odd already: not the sides. (Doubling them again, 17 -> 35 -> 71 ..., was measured on
        # timm's Inception blocks in check_pairs.md and never made the branches meet.)
        self.assertEqual(mi.deduce(specs, msg), (None, None))

    def test_other_concatenations_are_not_the_sides(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4}]})
        msg = ("RuntimeError: Sizes of tensors must match except in dimension 2. Expected size 8 but got "
               "size 7 for tensor number 1 in the list.")
        self.assertEqual(mi.deduce([s], msg), (None, None))


class ConvolutionInput(unittest.TestCase):
    def test_an_input_a_convolution_printed_keeps_its_rank(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4, "rank_known": False}]})
        msg = ("RuntimeError: Given groups=1, weight of size [64, 3, 3, 3], expected input[2, 16, 16, 16] "
               "to have 3 channels, but got 16 channels instead")
        specs, why = mi.deduce([s], msg)
        self.assertEqual(mi.shape_of(specs[0]), [2, 3, 16, 16])
        self.assertIn("rank 4 kept", why)
        specs, why = mi.deduce(specs, "KeyError: 4")  # no rule: the rank is not tried away
        self.assertEqual((specs, why), (None, None))

    def test_an_inner_tensor_leaves_the_rank_open(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4, "rank_known": False}]})
        msg = ("RuntimeError: Given groups=1, weight of size [64, 128, 1, 1], expected input[2, 16, 8, 8] "
               "to have 128 channels, but got 16 channels instead")
        specs, why = mi.deduce([s], msg)
        self.assertEqual(mi.shape_of(specs[0]), [2, 128, 16, 16])  # the older rule, by dimension 1
        self.assertFalse(specs[0]["rank_known"])


class FailingLine(unittest.TestCase):
    """Rules that read the line of the module's own code that failed, besides the message."""

    def test_an_assertion_of_a_size_takes_the_value_the_frame_has(self):
        frame = {"self.bits": 3, "(teacher.shape[0],)": (2 * 16,), "self.max_seq_len": 8, "n": 1024, "n_heads": 4,
                 "self.heads": 2}
        evaluate = frame.get
        line = "assert logits.shape[-1] == self.bits, f'logits must have a last dimension of {self.bits}'"
        new, why = mi.deduce([spec(3, name="logits")], "AssertionError: logits must have a last dimension of 3",
                             line=line, evaluate=evaluate)
        self.assertEqual(mi.shape_of(new[0]), [mi.BATCH, mi.SIZE, 3])
        self.assertIn("failing line", why)
        # The whole shape, the assertion's message going on past the line.
        new, _ = mi.deduce([spec(2, name="teacher"), spec(2, dtype="int64", name="labels")],
                           "AssertionError: the shape of labels must be (BT,)",
                           line="assert labels.shape == (teacher.shape[0],), (", evaluate=evaluate)
        self.assertEqual(mi.shape_of(new[1]), [32])
        self.assertTrue(new[1]["rank_known"])
        # A size the forward read off an input, one dimension of the inputs only.
        new, _ = mi.deduce([spec(2, {1: 1024}, dtype="int64")], "AssertionError",
                           line="assert n == self.max_seq_len", evaluate=evaluate)
        self.assertEqual(mi.shape_of(new[0]), [mi.BATCH, 8])
        # Not an assertion error, no frame, or a name no single dimension holds: the rules go on.
        new, why = mi.deduce([spec(3, name="logits")], "RuntimeError: x", line=line, evaluate=evaluate)
        self.assertNotIn("failing line", why or "")
        new, why = mi.deduce([spec(3, name="logits")], "AssertionError: x", line=line)
        self.assertNotIn("failing line", why or "")
        new, why = mi.deduce([spec(3, {1: 4}), spec(3, {1: 4}, name="y")], "AssertionError",
                             line="assert n_heads == self.heads", evaluate=evaluate)
        self.assertNotIn("failing line", why or "")

    def test_a_rank_check_on_the_failing_line_names_the_input(self):
        specs = [spec(4, name="x"), spec(4, name="preferred_seq")]
        new, why = mi.deduce(specs, "AssertionError: ", line="assert preferred_seq.ndim == 2")
        self.assertEqual([s["rank"] for s in new], [4, 2])
        self.assertTrue(new[1]["rank_known"])
        new, _ = mi.deduce(specs, "AssertionError: ", line="assert len(x.shape) == 3, 'tokens'")
        self.assertEqual(new[0]["rank"], 3)
        new, _ = mi.deduce(specs, "AssertionError: ", line="_assert(x.dim() == 5, '')")
        self.assertEqual(new[0]["rank"], 5)

    def test_a_rank_check_of_another_name_is_not_an_input_s(self):
        specs = [dict(spec(4, name="x"), rank_known=True)]
        self.assertEqual(mi.deduce(specs, "AssertionError: ", line="assert weight.ndim == 2"), (None, None))

    def test_a_none_default_the_line_or_message_names_becomes_an_input(self):
        specs = [spec(3, name="x")]
        optional = {"hiddens": "", "context_mask": "", "seq_lens": "tuple[int, ...]"}
        new, why = mi.deduce(specs, "AssertionError: ", line="assert exists(hiddens)", optional=optional)
        self.assertEqual([s["name"] for s in new], ["x", "hiddens"])
        self.assertEqual((new[1]["rank"], new[1]["dtype"], new[1]["keyword"]), (3, "float32", True))
        new, _ = mi.deduce(specs, "AssertionError: context_mask must be provided", line="assert ok", optional=optional)
        self.assertEqual((new[1]["name"], new[1]["dtype"]), ("context_mask", "bool"))
        new, _ = mi.deduce(specs, "TypeError: 'NoneType' object is not subscriptable",
                           line="h = hiddens[0]", optional=optional)
        self.assertEqual(new[1]["name"], "hiddens")

    def test_a_none_default_is_left_alone_when_nothing_names_it_or_it_is_a_number(self):
        specs = [dict(spec(3, name="x"), rank_known=True)]
        optional = {"hiddens": "", "seq_lens": "tuple[int, ...]"}
        self.assertEqual(mi.deduce(specs, "TypeError: unsupported operand", line="y = hiddens + 1",
                                   optional=optional), (None, None))  # no None in the message
        self.assertEqual(mi.deduce(specs, "AssertionError: ", line="assert exists(seq_lens)", optional=optional),
                         (None, None))

    def test_divisibility_the_forward_checks(self):
        self.assertTrue(mi.divisibility_failed("AssertionError: ", "_assert(C % groups == 0, '')"))
        self.assertTrue(mi.divisibility_failed("ValueError: dim must be divisible by heads", "raise ValueError(m)"))
        self.assertFalse(mi.divisibility_failed("AssertionError: ", "assert x.ndim == 3"))
        self.assertFalse(mi.divisibility_failed("TypeError: 'int' object", "y = a % b"))
        self.assertFalse(mi.divisibility_failed(  # the window rule's: the sides grow instead
            "AssertionError: height 16 and width 16 must be divisible by window size 7", "assert h % w == 0"))
        grown = mi.grown_specs([spec(4, {1: 3}), dict(spec(0, name="n"), value=16, dtype="python")])
        self.assertEqual(mi.shape_of(grown[0]), [2, 3, 64, 64])
        self.assertEqual(grown[1]["value"], 16)


class MoreMessages(unittest.TestCase):
    def test_the_image_size_the_model_was_built_for(self):
        [s] = mi.tensor_specs({"forward": [{"name": "x", "rank": 4, "dims": {"1": 3}}]})
        new, why = mi.deduce([s], "AssertionError: Input image height (16) doesn't match model (224).")
        self.assertEqual(mi.shape_of(new[0]), [2, 3, 224, 224])
        self.assertEqual(mi.deduce([s], "AssertionError: Input image height (99) doesn't match model (224)."),
                         (None, None))  # not a side of the input: left to other rules (none here)

    def test_half_precision_expected(self):
        specs = [spec(3), spec(2, dtype="int64", name="ids")]
        new, why = mi.deduce(specs, "AssertionError: x should be BF16/FP16 (set allow_fp32=True for FP32)")
        self.assertEqual([s["dtype"] for s in new], ["bfloat16", "int64"])
        new, _ = mi.deduce(specs, "RuntimeError: FlashAttention only supports fp16 and bf16 data type")
        self.assertEqual(new[0]["dtype"], "bfloat16")


class ScalarInputs(unittest.TestCase):
    def test_numbers_by_annotation_or_count(self):
        self.assertEqual(mi.scalar_value("int"), mi.SIZE)
        self.assertEqual(mi.scalar_value("Optional[int]"), mi.SIZE)
        self.assertEqual(mi.scalar_value("Tuple[int, int]"), (mi.SIZE, mi.SIZE))
        self.assertEqual(mi.scalar_value("List[int]"), (mi.SIZE, mi.SIZE))
        self.assertEqual(mi.scalar_value("tuple[int, ...]"), (mi.SIZE, mi.SIZE))
        self.assertEqual(mi.scalar_value("float"), 1.0)
        # A position in a cache starts at 0 (a cache of SIZE positions has none at SIZE).
        for name in ("start_pos", "seqlen_offset", "offset", "past_length"):
            self.assertEqual(mi.scalar_value("int", name=name), 0, name)
        for name in ("seq_len", "n_tokens", "startle"):
            self.assertEqual(mi.scalar_value("int", name=name), mi.SIZE, name)
        self.assertEqual(mi.scalar_value("", counted=True), mi.SIZE)
        self.assertIsNone(mi.scalar_value(""))
        self.assertIsNone(mi.scalar_value("Tensor"))
        self.assertIsNone(mi.scalar_value("torch.Tensor", counted=True))  # annotated a tensor: a tensor

    def test_a_number_input_is_left_alone_by_the_rules(self):
        specs = [spec(3), {"name": "n", "rank": 0, "dims": {}, "dtype": "python", "value": 16, "rank_known": True}]
        new, why = mi.deduce(specs, "ValueError: not enough values to unpack (expected 4, got 3)")
        self.assertEqual((new[0]["rank"], new[1]["rank"]), (4, 0))
        self.assertEqual(mi.describe(new)[1], {"name": "n", "value": 16})
