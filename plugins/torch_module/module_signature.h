#pragma once
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "plugins/sdk/python_file.h"
#include "plugins/torch_module/module_class.h"

namespace mine::torch_module {

// Method `name` of the class as Python finds it within the file: the class's own, else the
// nearest base's of the file (ModuleClass::lineage); a function index, or nullopt.
std::optional<size_t> method_of(const sdk::PythonFile& file, const ModuleClass& cls, const std::string& name);

// What the module takes and builds:
//   {"init": [{name, default?, annotation?}], "forward": [...],   (self dropped)
//    "submodules": [{"name": "proj", "type": "torch.nn.Linear", "args": "(dim, dim * 4)"}]}
// `type` is the constructor resolved through the file's imports, or as written.
nlohmann::json module_signature(const sdk::PythonFile& file, const ModuleClass& cls);

}  // namespace mine::torch_module
