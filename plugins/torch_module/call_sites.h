#pragma once
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugins/sdk/python_file.h"

namespace mine::torch_module {

// What one argument of an instantiation is: a Python literal (literal_value.h), or, at a call in
// the class's own file, a class of that file passed as it is (`ResNet(BasicBlock, [2, 2])`).
// Or, at a call in the class's own file, an expression that builds the argument from the file's
// own classes and functions with literal arguments (`GaussianDiffusion(model, ...)` after
// `model = Unet(dim=64, dim_mults=(1, 2, 4, 8))`, `VGG(make_layers(cfg['A'], batch_norm=True))`):
// `expression` is it rendered with the literals in place of names (`Unet(dim=64, ...)`), `calls`
// the file's names it calls, which the standalone must define.
struct SiteValue {
  std::string literal;
  std::string module_class;
  std::string expression;
  std::vector<std::string> calls;
};

// The arguments of the instantiations of the module class `class_name` of `file` that say what
// they are, by __init__ parameter name (`params`: module_signature's "init"): `Block(64, heads=4)`.
// Sites in the class's own file come first, then those in other files of the repository
// (`model = Net(num_classes=10)` in a training script), in path order, where the call's name
// refers to this file's class through that file's imports (imported_from), for parameters
// without a default only; the first site that names a parameter gives its value.
std::map<std::string, SiteValue> call_site_values(const sdk::PythonFile& file, const std::string& class_name,
                                                  const nlohmann::json& params);

// A tensor an instance of the class is called with, where a call site builds it
// (`x = torch.randn(B, T, H)` then `model(x)`): its rank, the sizes written as integers (by
// dimension), its dtype ("float32", "int64" for torch.randint or an integer dtype, "bool").
struct SiteTensor {
  int rank = 0;
  std::map<int, long long> dims;
  std::string dtype = "float32";
};

// The tensors the instances of `class_name` are called with, by forward parameter name
// (`forward_params`: forward's parameters after self, in order): an instance bound by
// `m = Net(...)` and called as `m(x, y)` (or `m.forward(x)`) in the same function (or at module
// level), each argument a tensor factory (torch.randn/rand/randn/zeros/ones/empty/full/randint)
// or a name bound once in that scope to one, through `.to()`, `.detach()`, `* scale` and the
// like. The class's own file first, then other files whose imports lead to it, as
// call_site_values reads them; the first site that gives a parameter wins.
std::map<std::string, SiteTensor> forward_call_tensors(const sdk::PythonFile& file, const std::string& class_name,
                                                        const std::vector<std::string>& forward_params);

// Whether `qualified` (a called name resolved through the imports of the file at `importer`:
// "models.resnet.ResNet", ".resnet.ResNet" for a relative import, "models.ResNet" through a
// package that re-exports it) names the class `class_name` defined in the file at `definition`.
// Paths are repository-relative; absolute imports may start below the repository root (`src/`).
bool imported_from(const std::string& qualified, const std::string& class_name, const std::string& importer,
                   const std::string& definition);

}  // namespace mine::torch_module
