#include "plugins/python_definitions/python_definition.h"

#include "core/python/local_hoist.h"
#include "core/repo/standard_library.h"

namespace mine {

nlohmann::json parameters_of(const PythonModule& m, TSNode definition) {
  nlohmann::json params = nlohmann::json::array();
  TSNode list = field(definition, "parameters");
  if (ts_node_is_null(list)) return params;
  for_each_named_child(list, [&](TSNode p) {
    if (is_type(p, "comment")) return;  // `def f(a,  # why a`: a comment is no parameter
    nlohmann::json entry;
    std::string_view t = node_type(p);
    if (t == "default_parameter" || t == "typed_default_parameter") {
      entry["name"] = m.text_of(field(p, "name"));
      entry["default"] = m.text_of(field(p, "value"));
      if (t == "typed_default_parameter") entry["annotation"] = m.text_of(field(p, "type"));
    } else if (t == "typed_parameter") {
      entry["name"] = m.text_of(ts_node_named_child(p, 0));
      entry["annotation"] = m.text_of(field(p, "type"));
    } else {
      entry["name"] = m.text_of(p);
    }
    params.push_back(entry);
  });
  return params;
}

std::vector<ClosureRoot::Piece> definition_pieces(const PythonModule& m, const FunctionSite& site) {
  std::vector<ClosureRoot::Piece> pieces;
  for (TSNode d : site.decorators) {
    std::string_view raw = m.tree().text_of(d);
    if (raw == "staticmethod" || raw == "classmethod") continue;
    pieces.push_back({d, site.indent, "@", "\n"});
  }
  pieces.push_back({site.definition, site.indent, "", ""});
  return pieces;
}

std::string definition_at_top_level(const PythonModule& m, const FunctionSite& site) {
  return spliced_text(m, definition_pieces(m, site));
}

ClosureRoot function_root(const PythonModule& m, const FunctionSite& site, std::string definition) {
  ClosureRoot root;
  root.text = std::move(definition);
  // A module-level definition is a module statement whose free names the model already holds.
  root.reads = site.statement ? site.statement->reads : free_names(m.tree(), site.node);
  root.binds = {site.name};
  root.statement = site.statement;
  root.pieces = definition_pieces(m, site);
  root.node = site.node;
  return root;
}

namespace {

// A function nested in functions reads their locals: what can stand at module level (their
// imports, constants and sibling definitions) goes before it in the text the closure works on;
// the rest is left for the kernel to report as unresolved.
LocalHoist hoist_into(const PythonModule& m, const FunctionSite& site, ClosureRoot& root) {
  FreeNames reads = root.reads;
  reads.names.erase(site.name);  // a recursive kernel reads its own name
  LocalHoist hoist = hoist_from_enclosing_functions(m, site.node, reads);
  if (hoist.empty()) return hoist;
  if (root.reads.names.count(site.name)) hoist.reads.names.insert(site.name);
  root.reads = hoist.reads;
  root.binds.insert(hoist.binds.begin(), hoist.binds.end());
  if (!hoist.statements.empty()) {
    root.text = hoisted_text(m, hoist) + "\n\n" + root.text;
    root.pieces.clear();  // the text is no longer one cut of the module's source: the closure parses it
  }
  return hoist;
}

void add_hoisted(const PythonModule& m, const LocalHoist& hoist, ExtractedKernel& k) {
  nlohmann::json hoisted = nlohmann::json::array();
  std::vector<Dependency> deps;
  for (const auto& s : hoist.statements) {
    for (const auto& name : s.names) deps.push_back({name, s.kind, m.path(), first_line(s.node), ""});
    hoisted.push_back({{"names", s.names}, {"kind", s.kind}, {"line", first_line(s.node)}});
    if (s.kind != "import") continue;
    for (const auto& b : parse_import(m.tree(), s.node)) {
      std::string top = b.module.substr(0, b.module.find('.'));
      if (b.level == 0 && !top.empty() && !is_standard_library(top)) k.external_modules.insert(top);
    }
  }
  for (const auto& [name, why] : hoist.run_time) {
    deps.push_back({name, "unresolved", "", 0, why});
    k.self_contained = false;
  }
  k.dependencies.insert(k.dependencies.begin(), deps.begin(), deps.end());
  if (!hoisted.empty()) k.meta["hoisted"] = hoisted;
}

}  // namespace

ExtractedKernel kernel_from_function(const FileView& file, const FunctionSite& site, const std::string& definition,
                                     const DependencyLabeler& labeler) {
  const PythonModule& m = *file.python();
  ClosureRoot root = function_root(m, site, definition);
  LocalHoist hoist;
  if (site.in_function) hoist = hoist_into(m, site, root);
  ClosureResult closure = file.close_over(root, labeler);

  ExtractedKernel k;
  k.name = site.name;
  k.qualname = site.qualname;
  k.start_line = first_line(site.node);
  k.end_line = last_line(site.node);
  k.source = m.dedented_text(site.node, site.indent);
  k.standalone = std::move(closure.standalone);
  k.dependencies = std::move(closure.dependencies);
  k.external_modules = std::move(closure.external_modules);
  k.self_contained = closure.self_contained;
  k.meta["parameters"] = parameters_of(m, site.definition);
  if (site.in_class) k.meta["method"] = true;
  if (site.in_function) k.meta["nested"] = true;
  add_hoisted(m, hoist, k);
  return k;
}

TSNode keyword_argument(const PythonModule& m, TSNode call, const std::string& name) {
  return ts::keyword_value(call, name, [&](TSNode n) { return m.text_of(n); });
}

}  // namespace mine
