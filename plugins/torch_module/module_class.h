#pragma once
#include <optional>
#include <string>
#include <vector>

#include "plugins/sdk/python_file.h"

namespace mine::torch_module {

// A module-level class of a file, as far as the file alone tells whether it is an nn.Module.
struct ModuleClass {
  size_t statement = 0;      // index of the class statement
  TSNode node{};             // the class_definition
  std::string name;
  // How the class reaches torch.nn.Module: "torch" (a base is torch.nn.Module or another
  // torch.nn layer, through any alias), "file" (a base is a module class of this file) or
  // "import" (a base is imported from elsewhere: a module class of the repository whose closure
  // the host pulls in, or of a third-party library; decided by the class defining forward).
  std::string base_via;
  std::vector<std::string> bases;  // resolved base names, as written when they resolve to nothing
  // The classes whose methods this class inherits within the file, nearest first (itself first).
  std::vector<size_t> lineage;
};

// Every module-level class of the file that is an nn.Module subclass with a usable forward
// (its own or one inherited from a module class of the file); classes whose forward
// only raises (NotImplementedError or any other exception), or is abstract, are left out.
std::vector<ModuleClass> module_classes(const sdk::PythonFile& file);

// True when the dotted name is torch.nn.Module or a torch.nn layer class other modules extend.
bool is_torch_module_base(const std::string& qualified_name);

}  // namespace mine::torch_module
