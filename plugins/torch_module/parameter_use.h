#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plugins/sdk/python_file.h"
#include "plugins/torch_module/module_class.h"

namespace mine::torch_module {

// How the module's own code uses one __init__ parameter, which says what kind of value it takes
// better than its name does: `dims[1]`, `len(depths)` and `for r in sizes` need a sequence,
// `norm_layer(dim)` a class, `self.act = act` read back as `self.act(x)` a callable object,
// `mode == "ln"` one of the strings it is compared with.
struct ParameterUse {
  // Compared with None, tested for truth, isinstance-checked or reassigned in __init__: the code
  // handles more than one kind of value, so a default it has stays.
  bool guarded = false;
  bool sequence = false;  // subscripted, passed to len/zip/tuple/list/enumerate, iterated, unpacked
  int length = 0;         // the highest constant index read plus one, or the count it is unpacked into
  bool called = false;    // called in __init__: a class or factory
  bool stored_and_called = false;  // `self.attr = p` and `self.attr(...)` in a method: a callable object
  std::optional<std::string> string_literal;  // a plain string it is compared with (`==`, `in`)
};

ParameterUse parameter_use(const sdk::PythonFile& file, const ModuleClass& cls, const std::string& name);

// parameter_use for any number of one class's parameters: __init__'s body is walked once, and the
// class's methods at most once, instead of once per parameter (flash-linear-attention's layers
// take dozens of parameters: those walks were a tenth of its scan). `file` and `cls` must outlive it.
class ParameterUses {
 public:
  ParameterUses(const sdk::PythonFile& file, const ModuleClass& cls);
  ParameterUse of(const std::string& name) const;

 private:
  struct Place {
    TSNode node, parent, grandparent;
  };
  const std::vector<std::pair<std::string, Place>>& self_attributes() const;

  const sdk::PythonFile& m_;
  const ModuleClass& cls_;
  bool has_init_ = false;
  std::vector<std::pair<std::string_view, Place>> init_identifiers_;  // __init__'s identifiers, in walk order
  // `self.<attribute>` in the lineage's bodies, in walk order; walked when a parameter is stored.
  mutable std::optional<std::vector<std::pair<std::string, Place>>> self_attributes_;
};

}  // namespace mine::torch_module
