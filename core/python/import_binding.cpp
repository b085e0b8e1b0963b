#include "core/python/import_binding.h"

#include <algorithm>

#include "include/mine/ts_nodes.h"

namespace mine {
namespace {

// Names Triton's own code and every user spell the same way: a package exporting a name `triton`
// or `tl` hands on the module, as vLLM's `triton_utils` and PyG's `_triton` do (each falls back
// to a stand-in where Triton is missing). Triton's own packages are Triton already.
void mark_triton_reexport(ImportBinding& b) {
  if (b.star || (b.level == 0 && (b.module == "triton" || b.module.rfind("triton.", 0) == 0))) return;
  if (b.imported == "triton") {
    b.target = "triton";
  } else if (b.imported == "tl") {
    b.target = "triton.language";
  } else {
    return;
  }
  b.triton_reexport = true;
}

}  // namespace

std::string direct_import(const ImportBinding& b) {
  std::string out = "import " + b.target;
  if (b.local != b.target) out += " as " + b.local;
  return out;
}

std::vector<ImportBinding> parse_import(const SyntaxTree& tree, TSNode n) {
  std::vector<ImportBinding> out;
  auto text = [&](TSNode x) { return std::string(tree.text_of(x)); };
  std::string_view t = node_type(n);
  if (t == "import_statement") {
    ts::for_each_named_child(n, [&](TSNode c) {
      ImportBinding b;
      if (is_type(c, "aliased_import")) {
        b.module = text(field(c, "name"));
        b.local = text(field(c, "alias"));
        b.target = b.module;
      } else if (is_type(c, "dotted_name")) {
        b.module = text(c);
        b.local = text(ts_node_named_child(c, 0));
        b.target = b.local;
      } else {
        return;
      }
      out.push_back(std::move(b));
    });
  } else if (t == "import_from_statement") {
    TSNode module = field(n, "module_name");
    std::string module_name;
    int level = 0;
    if (is_type(module, "relative_import")) {
      ts::for_each_named_child(module, [&](TSNode c) {
        if (is_type(c, "import_prefix")) {
          std::string dots = text(c);
          level = static_cast<int>(std::count(dots.begin(), dots.end(), '.'));
        } else if (is_type(c, "dotted_name")) {
          module_name = text(c);
        }
      });
    } else {
      module_name = text(module);
    }
    std::string prefix = std::string(static_cast<size_t>(level), '.') + module_name;
    auto join = [&](const std::string& name) {
      if (prefix.empty()) return name;
      if (prefix.back() == '.') return prefix + name;
      return prefix + "." + name;
    };
    ts::for_each_named_child(n, [&](TSNode c) {
      if (ts_node_eq(c, module)) return;
      ImportBinding b;
      b.module = module_name;
      b.level = level;
      if (is_type(c, "aliased_import")) {
        b.imported = text(field(c, "name"));
        b.local = text(field(c, "alias"));
      } else if (is_type(c, "dotted_name")) {
        b.imported = text(c);
        b.local = b.imported;
      } else if (is_type(c, "wildcard_import")) {
        b.star = true;
      } else {
        return;
      }
      b.target = b.star ? prefix : join(b.imported);
      mark_triton_reexport(b);
      out.push_back(std::move(b));
    });
  }
  return out;
}

}  // namespace mine
