#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace mine {

// What the corpus knows about a kernel that a prompt can use.
struct PromptFacts {
  std::string plugin;  // 'triton', 'inductor', ...
  std::string name;
  std::string source;  // the kernel's definition as written (decorators included)
  nlohmann::json meta = nlohmann::json::object();
  std::vector<std::string> helpers;  // same-repository functions the kernel calls
  std::string language = "python";   // of the standalone: 'python' or 'cuda' (see kernel_language)
  // The repository function that launches the kernel, when the answer includes it
  // (`mine export --with-launcher`): the prompt asks for it by its PyTorch-level signature.
  std::string launcher;         // its name
  std::string launcher_source;  // its definition
};

// The parts of a definition a prompt quotes: the `def` header and the docstring's text.
struct KernelHeader {
  std::string signature;  // "def name(params) -> ret:" joined onto one line; empty if not found
  std::string docstring;  // cleaned of its indentation; empty if none
};
KernelHeader read_kernel_header(const std::string& source, const std::string& name);
// The same for a CUDA C++ kernel: its declaration up to the body, on one line; no docstring.
KernelHeader read_cuda_header(const std::string& source);

// The user turn of a chat example whose answer is the kernel's standalone module. Built only from
// facts, never from the answer's body: the name, the signature, the docstring, the helpers it
// uses, and for Inductor kernels the ATen ops and the PyTorch source lines they were generated
// from.
std::string chat_prompt(const PromptFacts& facts);

}  // namespace mine
