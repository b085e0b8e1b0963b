#pragma once
#include <string>

namespace mine::torch_module {

// What an __init__ argument with no default and no literal at a call site is given, read from its
// name and annotation: `source` "size_name" (a size, head count, rate, flag...: `value` is a
// Python literal), "stand_in" (an object: `value` names the stand-in, "config",
// "class:torch.nn.ReLU", "instance:torch.nn.Identity", ...) or "fallback" (16).
struct ArgumentGuess {
  std::string value;
  std::string source;
};

ArgumentGuess guess_argument(const std::string& name, const std::string& annotation);

// The size every guessed dimension gets: one value everywhere, so that a guessed `dim` and a
// guessed input width agree, and divisible by the guessed head count.
constexpr int kGuessedSize = 16;
// The first dimension the harness gives every forward tensor (kernels/harness/module_inputs.py BATCH).
constexpr int kBatchSize = 2;

}  // namespace mine::torch_module
