#include "plugins/torch_module/argument_guess.h"

#include <cctype>

namespace mine::torch_module {
namespace {

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

ArgumentGuess guess_argument(const std::string& raw, const std::string& annotation) {
  std::string n = lower(raw);
  auto ends = [&](const char* suffix) {
    std::string x(suffix);
    return n.size() >= x.size() && n.compare(n.size() - x.size(), x.size(), x) == 0;
  };
  // Numbers spelled like objects: `d_model` is a width, `n_layer` a count, not a layer.
  if (n == "d_model" || n == "d_ff" || n == "n_embd" || n == "n_embed") return ArgumentGuess{std::to_string(kGuessedSize), "size_name"};
  if (n.rfind("n_", 0) == 0 || n.rfind("num_", 0) == 0) {
    if (contains(n, "layer") || contains(n, "block") || contains(n, "stage")) return ArgumentGuess{"2", "size_name"};
    if (contains(n, "head") || contains(n, "group")) return ArgumentGuess{"4", "size_name"};
    if (contains(n, "class")) return ArgumentGuess{"10", "size_name"};
  }
  // A shape is sizes, whatever it opens with: `normalized_shape` is no norm layer.
  if (contains(n, "shape")) return ArgumentGuess{std::to_string(kGuessedSize), "size_name"};
  // Objects rather than numbers: the harness makes a stand-in for each (module_inputs.py).
  if (n == "config" || n == "cfg" || n == "args" || n == "opt" || n == "opts" || n == "params" || n == "hparams" ||
      contains(n, "config"))
    return ArgumentGuess{"config", "stand_in"};
  if (n.rfind("act", 0) == 0 || ends("_act") || contains(n, "activation") || ends("nonlinearity"))
    return ArgumentGuess{"class:torch.nn.ReLU", "stand_in"};
  if (n == "layer" || ends("_layer") || ends("_cls") || ends("_fn") || ends("_class") || ends("block") ||
      n.rfind("norm", 0) == 0)
    return ArgumentGuess{"class:torch.nn.Identity", "stand_in"};
  if (n == "model" || n == "module" || n == "net" || n == "network" || n == "backbone" || n == "encoder" ||
      n == "decoder" || n == "teacher" || n == "student" || n == "transformer" || n == "fn" || ends("_model") ||
      ends("_module") || ends("_net") || ends("_encoder"))
    return ArgumentGuess{"instance:torch.nn.Identity", "stand_in"};
  if (n == "dtype" || n == "device" || ends("_dtype") || ends("_device")) return ArgumentGuess{"None", "size_name"};
  if (contains(n, "eps")) return ArgumentGuess{"1e-05", "size_name"};
  if (contains(n, "drop") || n == "p" || contains(n, "dropout")) return ArgumentGuess{"0.0", "size_name"};
  if (contains(n, "kernel")) return ArgumentGuess{"3", "size_name"};
  if (contains(n, "patch")) return ArgumentGuess{"4", "size_name"};  // a 16-wide image in 4x4 patches
  if (contains(n, "stride") || contains(n, "dilation")) return ArgumentGuess{"1", "size_name"};
  if (contains(n, "padding") || n == "pad") return ArgumentGuess{"1", "size_name"};
  if (n == "groups") return ArgumentGuess{"1", "size_name"};
  if (contains(n, "head") || contains(n, "groups")) return ArgumentGuess{"4", "size_name"};
  // A share of something (`masking_ratio`, `mask_prob`, `keep_rate`, `sample_frac`): a fraction, as
  // the checks `0 < masking_ratio < 1` ask; an `mlp_ratio` stays a widening.
  if ((contains(n, "mask") || contains(n, "keep") || contains(n, "sample") || contains(n, "select")) &&
      (contains(n, "ratio") || contains(n, "prob") || contains(n, "rate") || contains(n, "frac")))
    return ArgumentGuess{"0.5", "size_name"};
  if (contains(n, "prob") || contains(n, "frac") || contains(n, "percent")) return ArgumentGuess{"0.5", "size_name"};
  if (contains(n, "ratio") || contains(n, "expansion") || contains(n, "expand") || contains(n, "factor"))
    return ArgumentGuess{"4", "size_name"};
  if (contains(n, "layer") || contains(n, "depth") || contains(n, "blocks") || n == "n") return ArgumentGuess{"2", "size_name"};
  if (contains(n, "class")) return ArgumentGuess{"10", "size_name"};
  if (contains(n, "vocab") || contains(n, "num_embeddings") || contains(n, "tokens")) return ArgumentGuess{"100", "size_name"};
  if (contains(n, "scale") || contains(n, "temperature") || contains(n, "alpha") || contains(n, "beta") ||
      contains(n, "gamma") || contains(n, "momentum"))
    return ArgumentGuess{"1.0", "size_name"};
  if (n.rfind("use_", 0) == 0 || n.rfind("with_", 0) == 0 || n.rfind("has_", 0) == 0 || n == "bias" ||
      n == "affine" || n == "residual")
    return ArgumentGuess{"True", "size_name"};
  if (n.rfind("is_", 0) == 0 || n == "inplace" || n == "causal" || n == "training") return ArgumentGuess{"False", "size_name"};
  if (contains(n, "dim") || contains(n, "channel") || contains(n, "feature") || contains(n, "size") ||
      contains(n, "hidden") || contains(n, "width") || contains(n, "embed") || contains(n, "d_model") ||
      contains(n, "planes") || n == "inp" || n == "oup" || contains(n, "_ch") || n.rfind("in_", 0) == 0 ||
      n.rfind("out_", 0) == 0 || contains(n, "len") || contains(n, "num"))
    return ArgumentGuess{std::to_string(kGuessedSize), "size_name"};
  if (annotation == "float") return ArgumentGuess{"0.5", "size_name"};
  if (annotation == "bool") return ArgumentGuess{"False", "size_name"};
  if (annotation == "str") return ArgumentGuess{"None", "unknown"};
  return ArgumentGuess{std::to_string(kGuessedSize), "fallback"};
}

}  // namespace mine::torch_module
