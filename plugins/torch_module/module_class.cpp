#include "plugins/torch_module/module_class.h"

#include <cctype>
#include <map>

namespace mine::torch_module {
namespace {

using namespace sdk;

TSNode class_definition(TSNode statement) {
  return is_type(statement, "decorated_definition") ? field(statement, "definition") : statement;
}

bool is_docstring_or_pass(const PythonFile& m, TSNode s) {
  if (is_type(s, "pass_statement")) return true;
  if (!is_type(s, "expression_statement")) return false;
  TSNode e = ts_node_named_child(s, 0);
  return is_type(e, "string") || is_type(e, "ellipsis") || m.view_of(e) == "...";
}

// `def forward(ctx, ...)` as a staticmethod (or `forward(cls, ctx, ...)` as a classmethod) is
// torch.autograd.Function's, never a module's.
bool static_forward(const PythonFile& m, size_t index, const mine_python_function& f) {
  for (size_t d = 0; d < f.decorator_count; ++d) {
    std::string name = m.decorator_name(index, d);
    if (name == "staticmethod" || name == "classmethod") return true;
  }
  return false;
}

// A forward that only raises (NotImplementedError in an abstract base, or any other exception:
// `raise Exception("should not be used")` in a placeholder that is swapped out before it runs), or
// is an abstract stub, computes nothing.
bool only_raises(const PythonFile& m, const mine_python_function& f) {
  TSNode body = field(f.definition, "body");
  bool raises = false, other = false;
  for_each_named_child(body, [&](TSNode s) {
    if (is_type(s, "raise_statement"))
      raises = true;
    else if (!is_type(s, "comment") && !is_docstring_or_pass(m, s))
      other = true;
  });
  if (other) return false;
  if (raises) return true;
  return m.view_of(f.node).find("abstractmethod") != std::string_view::npos;
}

// Whether any line of the file imports torch (`import torch...`, `from torch... import`).
bool imports_torch(std::string_view text) {
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos) {
      line = line.substr(first);
      for (std::string_view head : {"import torch", "from torch"}) {
        if (line.substr(0, head.size()) != head) continue;
        char next = line.size() > head.size() ? line[head.size()] : ' ';
        if (next == ' ' || next == '.' || next == ',' || next == '\t' || next == '\r') return true;
      }
    }
    at = end + 1;
  }
  return false;
}

class Classifier {
 public:
  explicit Classifier(const PythonFile& m) : m_(m), imports_torch_(imports_torch(m.text())) {
    for (size_t i = 0, n = m.statement_count(); i < n; ++i) {
      mine_python_statement s = m.statement(i);
      if (s.kind != MINE_STATEMENT_CLASS) continue;
      TSNode cls = class_definition(s.node);
      if (!is_type(cls, "class_definition")) continue;
      classes_[i] = cls;
    }
    for (size_t i = 0, n = m.function_count(); i < n; ++i) {
      mine_python_function f = m.function(i);
      if (f.in_class && !f.in_function) methods_[f.qualname].push_back(i);
    }
  }

  std::vector<ModuleClass> all() {
    std::vector<ModuleClass> out;
    for (const auto& [index, node] : classes_) {
      const Verdict& v = verdict(index);
      if (v.base_via.empty() || !v.forward) continue;
      ModuleClass c;
      c.statement = index;
      c.node = node;
      c.name = m_.text_of(field(node, "name"));
      c.base_via = v.base_via;
      c.bases = v.bases;
      c.lineage = v.lineage;
      out.push_back(std::move(c));
    }
    return out;
  }

 private:
  struct Verdict {
    std::string base_via;  // empty: not a module
    bool forward = false;  // has a usable forward
    std::vector<std::string> bases;
    std::vector<size_t> lineage;
  };

  // The class's own `forward`: nullopt when it has none; true when it computes something (a
  // staticmethod forward, an autograd Function's, computes nothing a module would).
  std::optional<bool> own_forward(size_t index) {
    TSNode cls = classes_.at(index);
    std::string q = m_.text_of(field(cls, "name")) + ".forward";
    auto it = methods_.find(q);
    if (it == methods_.end()) return std::nullopt;
    for (size_t f_index : it->second) {
      mine_python_function f = m_.function(f_index);
      uint32_t at = ts_node_start_byte(f.node);
      if (at < ts_node_start_byte(cls) || at >= ts_node_end_byte(cls)) continue;
      return !static_forward(m_, f_index, f) && !only_raises(m_, f);
    }
    return std::nullopt;
  }

  // The class statement a name of this file is bound to (through `Alias = Name`), if any.
  std::optional<size_t> file_class(const std::string& name) {
    auto bound = m_.bindings_of(name);
    if (bound.empty()) return std::nullopt;
    size_t last = bound.back();
    if (classes_.count(last)) return last;
    return std::nullopt;
  }

  // A base written as a name the file binds by assignment (`Module = nn.Module`): what it resolves to.
  std::optional<std::string> assigned_alias(const std::string& name) {
    auto bound = m_.bindings_of(name);
    if (bound.empty()) return std::nullopt;
    mine_python_statement s = m_.statement(bound.back());
    if (s.kind != MINE_STATEMENT_ASSIGNMENT) return std::nullopt;
    TSNode assign = ts_node_named_child(s.node, 0);
    TSNode right = field(assign, "right");
    if (!is_type(assign, "assignment") || ts_node_is_null(right)) return std::nullopt;
    return m_.qualified_name(right);
  }

  const Verdict& verdict(size_t index) {
    auto done = verdicts_.find(index);
    if (done != verdicts_.end()) return done->second;
    Verdict& v = verdicts_[index];  // an empty verdict stops inheritance cycles
    Verdict out;
    out.lineage = {index};
    std::optional<bool> forward = own_forward(index);
    bool file_forward = false;
    std::string via;
    TSNode supers = field(classes_.at(index), "superclasses");
    if (ts_node_is_null(supers)) {  // `class Config:`
      v = std::move(out);
      return v;
    }
    for_each_named_child(supers, [&](TSNode base) {
      if (is_type(base, "keyword_argument")) return;  // metaclass=...
      std::string text = m_.text_of(base);
      std::optional<std::string> q = m_.qualified_name(base);
      if (!q && is_type(base, "identifier")) {
        if (auto local = file_class(text)) {
          const Verdict& inherited = verdict(*local);
          out.bases.push_back(text);
          if (inherited.base_via.empty()) return;
          if (via != "torch") via = "file";
          file_forward = file_forward || inherited.forward;
          out.lineage.insert(out.lineage.end(), inherited.lineage.begin(), inherited.lineage.end());
          return;
        }
        q = assigned_alias(text);
      }
      out.bases.push_back(q ? *q : text);
      if (q && is_torch_module_base(*q)) {
        via = "torch";
      } else if (q && via.empty() && q->rfind("torch", 0) != 0 && q->rfind("abc.", 0) != 0 &&
                 q->rfind("typing.", 0) != 0 && q->rfind("enum.", 0) != 0 && q->rfind("dataclasses", 0) != 0 &&
                 (imports_torch_ || q->rfind(".", 0) == 0)) {
        // A base from elsewhere counts when the file works with torch or the base is of its own
        // package (a relative import): a file of chainer or mxnet models (`chainer.Chain`,
        // `gluon.Block`, with their own `forward`) imports no torch at all.
        via = "import";
      }
    });
    // Inherited forwards count only from module classes of this file: a bare subclass of a
    // torch.nn layer pairs nothing of the repository's own with Inductor's code, and a class of
    // another file is seen through its own forward only.
    out.forward = forward ? *forward : via == "file" && file_forward;
    out.base_via = via;
    v = std::move(out);
    return v;
  }

  const PythonFile& m_;
  bool imports_torch_;
  std::map<size_t, TSNode> classes_;
  std::map<std::string, std::vector<size_t>> methods_;
  std::map<size_t, Verdict> verdicts_;
};

}  // namespace

bool is_torch_module_base(const std::string& q) {
  if (q == "torch.nn.Module" || q == "torch.nn.modules.module.Module") return true;
  // torch.nn.Linear, torch.nn.modules.conv.Conv2d, ...: layer classes (capitalised) are modules.
  if (q.rfind("torch.nn.", 0) != 0) return false;
  std::string last = q.substr(q.rfind('.') + 1);
  if (last.empty() || !std::isupper(static_cast<unsigned char>(last[0]))) return false;
  return q.find(".functional.") == std::string::npos && q.find(".parameter.") == std::string::npos &&
         last != "Parameter" && last != "Buffer";
}

std::vector<ModuleClass> module_classes(const PythonFile& file) { return Classifier(file).all(); }

}  // namespace mine::torch_module
