#include "plugins/torch_module/input_inference.h"
#include "plugins/torch_module/tree_walk.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "plugins/torch_module/argument_guess.h"
#include "plugins/torch_module/einops_pattern.h"
#include "plugins/torch_module/call_sites.h"
#include "plugins/torch_module/module_signature.h"
#include "plugins/torch_module/parameter_use.h"

namespace mine::torch_module {
namespace {

using namespace sdk;

template <typename F>
void for_each_argument(TSNode arguments, F&& f) {
  if (!ts_node_is_null(arguments)) for_each_named_child(arguments, f);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::optional<long long> integer_of(const std::string& text) {
  if (text.empty() || text.size() > 12) return std::nullopt;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '_') return std::nullopt;
  std::string digits;
  for (char c : text)
    if (c != '_') digits += c;
  return std::stoll(digits);
}

bool plain_parameter(const nlohmann::json& p) {
  std::string name = p.value("name", "");
  return !name.empty() && name[0] != '*' && name != "/" && name.find('*') == std::string::npos;
}

// The length a parameter annotated as a tuple or list has: `Tuple[int, int]` 2, `List[int]` and
// `Tuple[int, ...]` 2; nullopt for anything else (`Union[int, Tuple[int, int]]` takes an int too).
std::optional<int> annotated_length(std::string a) {
  a.erase(std::remove(a.begin(), a.end(), ' '), a.end());
  if (a.rfind("typing.", 0) == 0) a = a.substr(7);
  size_t open = a.find('[');
  if (open == std::string::npos || a.back() != ']' || a.find('|') != std::string::npos) return std::nullopt;
  std::string head = a.substr(0, open), inner = a.substr(open + 1, a.size() - open - 2);
  if (head == "List" || head == "list" || head == "Sequence") return 2;
  if (head != "Tuple" && head != "tuple") return std::nullopt;
  if (inner.find("...") != std::string::npos) return 2;
  int depth = 0, count = 1;
  for (char c : inner) {
    depth += (c == '[') - (c == ']');
    if (c == ',' && depth == 0) ++count;
  }
  return count;
}

struct InitValue {
  std::string name;
  std::optional<std::string> literal;
  std::string source;
  std::string stand_in;  // "config", "class:torch.nn.ReLU", "instance:torch.nn.Identity"
  std::vector<std::string> calls;  // an "expression:" stand-in's classes and functions of the file
};

class Inference {
 public:
  Inference(const PythonFile& m, const ModuleClass& cls) : m_(m), cls_(cls) {}

  nlohmann::json run() {
    nlohmann::json signature = module_signature(m_, cls_);
    infer_init(signature["init"]);
    nlohmann::json init = nlohmann::json::array();
    for (const auto& v : init_) {
      nlohmann::json e = {{"name", v.name}, {"source", v.source}};
      if (v.literal) e["literal"] = *v.literal;
      if (!v.stand_in.empty()) e["stand_in"] = v.stand_in;
      if (!v.calls.empty()) e["calls"] = v.calls;
      init.push_back(e);
    }
    return {{"init", init}, {"forward", infer_forward()}};
  }

 private:
  // What the parameter's uses in the class ask for (parameter_use.h), when they ask for more than
  // a number: a tuple, a class, a callable object or a string. Elements of a tuple and the class
  // of a stand-in are the name's guess where it has one.
  std::optional<InitValue> from_use(const std::string& name, const ParameterUse& use, const ArgumentGuess& guess) {
    if (guess.value == "config") return std::nullopt;  // the config stand-in answers any use
    InitValue v{name, std::nullopt, "use", "", {}};
    bool number = guess.source != "stand_in" && guess.value != "None" && guess.value != "True" && guess.value != "False";
    std::string named_class = guess.value.rfind("class:", 0) == 0 || guess.value.rfind("instance:", 0) == 0
                                  ? guess.value.substr(guess.value.find(':') + 1)
                                  : "torch.nn.Identity";
    if (use.sequence) {
      std::string element = number ? guess.value : std::to_string(kGuessedSize);
      std::string tuple = "(";
      for (int i = 0; i < std::max(use.length, 2); ++i) tuple += (i ? ", " : "") + element;
      v.literal = tuple + ")";
    } else if (use.called) {
      v.stand_in = "class:" + named_class;
    } else if (use.stored_and_called) {
      v.stand_in = "instance:" + named_class;
    } else if (use.string_literal) {
      v.literal = *use.string_literal;
    } else {
      return std::nullopt;
    }
    return v;
  }

  void infer_init(const nlohmann::json& params) {
    auto sites = call_site_values(m_, cls_.name, params);
    ParameterUses uses(m_, cls_);
    for (const auto& p : params) {
      if (!plain_parameter(p)) continue;
      std::string name = p["name"];
      InitValue v{name, std::nullopt, "", "", {}};
      ArgumentGuess guess = guess_argument(name, p.value("annotation", ""));
      ParameterUse use = uses.of(name);
      if (auto length = annotated_length(p.value("annotation", ""))) {
        use.sequence = true;
        use.length = std::max(use.length, *length);
      }
      std::optional<InitValue> used = from_use(name, use, guess);
      if (auto it = sites.find(name); it != sites.end()) {
        if (!it->second.module_class.empty()) {
          v.stand_in = "module:" + it->second.module_class;
        } else if (!it->second.expression.empty()) {
          v.stand_in = "expression:" + it->second.expression;
          v.calls = it->second.calls;
        } else {
          v.literal = it->second.literal;
        }
        v.source = "call_site";
      } else if (p.contains("default") && !(p["default"] == "None" && used && !use.guarded)) {
        // A default stays unless it is None and the code uses the value unchecked: `norm_layer`
        // defaulting to None and called as `norm_layer(dim)` is always given by its callers.
        v.source = "default";
        std::string d = p["default"];
        if (integer_of(d)) known_[name] = *integer_of(d);
      } else if (used) {
        v = *used;
      } else {
        if (guess.source == "stand_in") v.stand_in = guess.value;
        else v.literal = guess.value;
        v.source = guess.source;
      }
      if (v.literal && integer_of(*v.literal)) known_[name] = *integer_of(*v.literal);
      init_.push_back(std::move(v));
    }
  }

  // The integer a layer's argument stands for: a literal, or an __init__ parameter's value.
  std::optional<long long> size_of(TSNode arg) {
    if (ts_node_is_null(arg)) return std::nullopt;
    if (is_type(arg, "integer")) return integer_of(m_.text_of(arg));
    if (is_type(arg, "identifier")) {
      auto it = known_.find(m_.text_of(arg));
      if (it != known_.end()) return it->second;
    }
    return std::nullopt;
  }

  TSNode argument(TSNode call, size_t position, const char* keyword) {
    TSNode found{};
    size_t at = 0;
    for_each_argument(field(call, "arguments"), [&](TSNode a) {
      if (!ts_node_is_null(found)) return;
      if (is_type(a, "keyword_argument")) {
        if (m_.view_of(field(a, "name")) == keyword) found = field(a, "value");
        return;
      }
      if (at++ == position) found = a;
    });
    return found;
  }

  // The constructor call of `self.<attribute> = ...` in __init__.
  TSNode layer_call(const std::string& attribute) {
    auto init = method_of(m_, cls_, "__init__");
    TSNode found{};
    if (!init) return found;
    walk(field(m_.function(*init).definition, "body"), [&](TSNode n) {
      if (!ts_node_is_null(found) || !is_type(n, "assignment")) return;
      TSNode left = field(n, "left"), right = field(n, "right");
      if (is_type(left, "attribute") && is_type(right, "call") && m_.view_of(field(left, "object")) == "self" &&
          m_.view_of(field(left, "attribute")) == attribute)
        found = right;
    });
    return found;
  }

  struct Tensor {
    std::optional<int> rank, min_rank;
    bool rank_guessed = false;  // a likely rank (an image model's), not read from a use
    std::map<int, long long> dims;
    std::string dtype = "float32";
    std::optional<long long> high;
    std::vector<std::string> evidence;
  };

  // The einops pattern a string literal spells (`'b c (h p1) (w p2) -> b (h w) (p1 p2 c)'`).
  std::optional<PatternRank> pattern_of(TSNode n) {
    if (!is_type(n, "string")) return std::nullopt;
    bool interpolated = false;
    for_each_named_child(n, [&](TSNode c) { interpolated = interpolated || is_type(c, "interpolation"); });
    std::string text = m_.text_of(n);
    if (interpolated || text.size() < 2 || (text[0] != '\'' && text[0] != '"')) return std::nullopt;
    return einops_input_rank(text.substr(1, text.size() - 2));
  }

  void from_pattern(const PatternRank& p, Tensor& t, const std::string& why) {
    if (p.exact && !t.rank) t.rank = p.rank;
    if (!p.exact && (!t.min_rank || p.rank > *t.min_rank)) t.min_rank = p.rank;
    t.evidence.push_back(why);
  }

  // What the first layer `x` goes through says about it.
  void from_layer(TSNode call, Tensor& t) {
    std::optional<std::string> q = m_.qualified_name(field(call, "function"));
    if (!q || q->rfind("torch.nn.", 0) != 0) return;
    std::string layer = q->substr(q->rfind('.') + 1);
    t.evidence.push_back("first layer " + layer);
    auto set_rank = [&](int r) {
      if (!t.rank) t.rank = r;
    };
    // `nn.Sequential(Rearrange('b c (h p1) (w p2) -> ...'), ...)`: the einops layer that opens it.
    if (layer == "Sequential") {
      TSNode first = argument(call, 0, "");
      std::optional<std::string> inner = is_type(first, "call") ? m_.qualified_name(field(first, "function")) : std::nullopt;
      std::string last = inner ? inner->substr(inner->rfind('.') + 1) : "";
      if (inner && inner->rfind("einops.", 0) == 0 && (last == "Rearrange" || last == "Reduce"))
        if (auto p = pattern_of(argument(first, 0, "pattern"))) from_pattern(*p, t, "einops layer pattern");
      return;
    }
    if (layer.rfind("Conv", 0) == 0 || layer.find("Norm") != std::string::npos || layer.rfind("Pool", 0) == 0) {
      char d = layer.size() >= 2 ? layer[layer.size() - 2] : 0;
      if (layer.back() == 'd' && (d == '1' || d == '2' || d == '3')) set_rank(d - '0' + 2);
    }
    if (layer.rfind("Conv", 0) == 0) {
      if (auto c = size_of(argument(call, 0, "in_channels"))) t.dims[1] = *c;
    } else if (layer.rfind("BatchNorm", 0) == 0 || layer.rfind("InstanceNorm", 0) == 0) {
      if (auto c = size_of(argument(call, 0, "num_features"))) t.dims[1] = *c;
    } else if (layer == "GroupNorm") {
      if (auto c = size_of(argument(call, 1, "num_channels"))) t.dims[1] = *c;
      set_rank(4);
    } else if (layer == "Linear" || layer == "Bilinear") {
      if (auto c = size_of(argument(call, 0, "in_features"))) t.dims[-1] = *c;
    } else if (layer == "LayerNorm" || layer == "RMSNorm") {
      if (auto c = size_of(argument(call, 0, "normalized_shape"))) t.dims[-1] = *c;
    } else if (layer == "Embedding" || layer == "EmbeddingBag") {
      t.dtype = "int64";
      if (auto n = size_of(argument(call, 0, "num_embeddings"))) t.high = *n;
      set_rank(2);
    } else if (layer == "LSTM" || layer == "GRU" || layer == "RNN") {
      if (auto c = size_of(argument(call, 0, "input_size"))) t.dims[-1] = *c;
      set_rank(3);
    } else if (layer == "MultiheadAttention") {
      if (auto c = size_of(argument(call, 0, "embed_dim"))) t.dims[-1] = *c;
      set_rank(3);
    }
  }

  std::optional<int> small_int(TSNode n) {
    if (is_type(n, "integer")) {
      auto v = integer_of(m_.text_of(n));
      if (v && *v < 8) return static_cast<int>(*v);
    }
    if (is_type(n, "unary_operator") && m_.view_of(n).substr(0, 1) == "-") {
      auto v = integer_of(m_.text_of(field(n, "argument")));
      if (v && *v <= 8) return -static_cast<int>(*v);
    }
    return std::nullopt;
  }

  void from_uses(TSNode body, const std::string& name, Tensor& t) {
    auto note_min = [&](int r, const std::string& why) {
      if (!t.min_rank || r > *t.min_rank) t.min_rank = r;
      t.evidence.push_back(why);
    };
    auto is_shape_of = [&](TSNode n) {  // `x.shape` or `x.size()`
      if (is_type(n, "attribute"))
        return m_.view_of(field(n, "object")) == name && m_.view_of(field(n, "attribute")) == "shape";
      if (is_type(n, "call") && ts_node_named_child_count(field(n, "arguments")) == 0) {
        TSNode f = field(n, "function");
        return is_type(f, "attribute") && m_.view_of(field(f, "object")) == name &&
               m_.view_of(field(f, "attribute")) == "size";
      }
      return false;
    };
    TSNode first_layer{};
    walk(body, [&](TSNode n) {
      if (is_type(n, "assignment") && is_shape_of(field(n, "right"))) {
        TSNode left = field(n, "left");
        if (is_type(left, "pattern_list") || is_type(left, "tuple_pattern")) {
          bool star = false;
          for_each_named_child(left, [&](TSNode c) { star = star || is_type(c, "list_splat_pattern"); });
          int count = static_cast<int>(ts_node_named_child_count(left));
          if (star) {
            note_min(count - 1, name + " unpacked with a star");
          } else if (!t.rank) {
            t.rank = count;
            t.evidence.push_back(name + ".shape unpacked into " + std::to_string(count));
          }
        }
      }
      if (is_type(n, "subscript") && is_shape_of(field(n, "value"))) {
        if (auto k = small_int(field(n, "subscript"))) note_min(*k >= 0 ? *k + 1 : -*k, name + ".shape[" + std::to_string(*k) + "]");
      }
      if (!is_type(n, "call")) return;
      TSNode f = field(n, "function");
      TSNode args = field(n, "arguments");
      // `rearrange(x, 'b n (h d) -> b h n d', h = h)`: the pattern's input side is x's rank.
      if (auto q = m_.qualified_name(f); q && (*q == "einops.rearrange" || *q == "einops.reduce" || *q == "einops.repeat")) {
        TSNode first = ts_node_named_child(args, 0);
        if (is_type(first, "identifier") && m_.view_of(first) == name)
          if (auto p = pattern_of(ts_node_named_child(args, 1))) from_pattern(*p, t, name + " in an einops pattern");
      }
      if (is_type(f, "attribute") && m_.view_of(field(f, "object")) == name) {
        std::string method(m_.view_of(field(f, "attribute")));
        std::vector<std::optional<int>> ints;
        bool only_ints = true;
        for_each_argument(args, [&](TSNode a) {
          ints.push_back(small_int(a));
          only_ints = only_ints && ints.back().has_value();
        });
        if (method == "size" && ints.size() == 1 && ints[0]) note_min(*ints[0] >= 0 ? *ints[0] + 1 : -*ints[0], name + ".size(k)");
        if (method == "permute" && only_ints && !ints.empty() && !t.rank) {
          t.rank = static_cast<int>(ints.size());
          t.evidence.push_back(name + ".permute");
        }
        if ((method == "transpose" || method == "flatten" || method == "unbind") && only_ints)
          for (auto& k : ints)
            if (k) note_min(*k >= 0 ? *k + 1 : -*k, name + "." + method);
      }
      // `self.layer(x, ...)`: the first, in source order, tells what x must be.
      if (ts_node_is_null(first_layer) && is_type(f, "attribute") && m_.view_of(field(f, "object")) == "self") {
        TSNode first = ts_node_named_child(args, 0);
        if (is_type(first, "identifier") && m_.view_of(first) == name) first_layer = layer_call(m_.text_of(field(f, "attribute")));
      }
    });
    if (!ts_node_is_null(first_layer)) from_layer(first_layer, t);
  }

  // The first input of an image model: channels and side from the model's own arguments
  // (`in_chans=3`, `img_size=224`), which its patch embedding and asserts expect.
  void image_sizes(Tensor& t) {
    if ((t.rank && *t.rank < 4) || t.dims.count(-1) || t.dims.count(1)) return;  // a video's too
    std::optional<long long> channels, side;
    for (const char* n : {"in_chans", "in_channels", "channels", "num_channels", "in_ch", "image_channels", "in_chs"})
      if (!channels && known_.count(n)) channels = known_[n];
    for (const char* n : {"img_size", "image_size", "input_size", "resolution", "img_res"})
      if (!side && known_.count(n)) side = known_[n];
    if (!channels && !side) return;
    if (!t.rank) {
      t.rank = 4;
      t.rank_guessed = true;  // a video or a series model takes image-like arguments too
    }
    if (channels) t.dims[1] = *channels;
    if (side && *side <= 512) t.dims[-2] = t.dims[-1] = *side;  // the last two, whatever the rank turns out
    t.evidence.push_back("image arguments of __init__");
  }

  // The shape a comment after a forward parameter writes for it, on the parameter's line:
  // `rollout_embeds, # (r b n d)`, `x,  # [B, N, C]`, `img  # (b, 3, h, w)`. One token per
  // dimension, each a name or a size; nothing for anything else (`# (..., d)`, prose).
  std::map<std::string, std::vector<std::string>> parameter_shape_comments(TSNode definition) {
    std::map<std::string, std::vector<std::string>> out;
    TSNode params = field(definition, "parameters");
    if (ts_node_is_null(params)) return out;
    std::string last;
    uint32_t last_row = 0;
    for (uint32_t i = 0, n = ts_node_named_child_count(params); i < n; ++i) {
      TSNode c = ts_node_named_child(params, i);
      if (!is_type(c, "comment")) {
        TSNode name = is_type(c, "identifier") ? c : field(c, "name");
        if (ts_node_is_null(name) && ts_node_named_child_count(c) > 0) name = ts_node_named_child(c, 0);
        last = !ts_node_is_null(name) && is_type(name, "identifier") ? m_.text_of(name) : "";
        last_row = ts_node_end_point(c).row;
        continue;
      }
      if (last.empty() || ts_node_start_point(c).row != last_row) continue;
      std::string text = m_.text_of(c);
      size_t open = text.find_first_of("([");
      if (open == std::string::npos || text.find_first_not_of("# \t") != open) continue;
      size_t close = text.find(text[open] == '(' ? ')' : ']', open);
      if (close == std::string::npos) continue;
      std::vector<std::string> tokens = shape_tokens(text.substr(open + 1, close - open - 1));
      if (!tokens.empty()) out[last] = tokens;
      last.clear();
    }
    return out;
  }

  // One token per dimension from the text inside a shape's brackets (`B, S, 3, H, D`, `r b n d`);
  // empty for anything else.
  // Names separated by commas (`B, S, 3, H, D`, `batch, seq_len, dim`), or by spaces when each is
  // an einops-style letter or two (`r b n d`): prose in brackets (`should already be normalized`)
  // is neither.
  static std::vector<std::string> shape_tokens(const std::string& inner) {
    bool commas = inner.find(',') != std::string::npos;
    std::vector<std::string> tokens;
    std::string token;
    bool gap = false;  // a space inside a comma-separated item
    for (char ch : inner + ",") {
      if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') {
        if (gap && !token.empty()) return {};
        token += ch;
        gap = false;
      } else if (ch == ',' || ch == ' ' || ch == '\t') {
        if (ch != ',' && commas) {
          gap = !token.empty();
          continue;
        }
        if (!token.empty()) tokens.push_back(token);
        token.clear();
        gap = false;
      } else {
        return {};  // `...`, `*`, `b*n`, `default: 1/sqrt(d)`: not one token per dimension
      }
    }
    if (!commas)
      for (const auto& t : tokens)
        if (t.size() > 2 && !std::isdigit(static_cast<unsigned char>(t[0]))) return {};
    return tokens.size() <= 8 ? tokens : std::vector<std::string>{};
  }

  // Shapes forward's docstring gives its parameters, one parameter a line:
  // `qkv: The tensor containing the query, key, and value. (B, S, 3, H, D)`,
  // `kv (Tensor): (B, Sk, 2, H_k, D)`: the last bracketed list of the line, two tokens or more.
  std::map<std::string, std::vector<std::string>> docstring_shapes(TSNode definition) {
    std::map<std::string, std::vector<std::string>> out;
    TSNode body = field(definition, "body");
    if (ts_node_is_null(body) || ts_node_named_child_count(body) == 0) return out;
    TSNode first = ts_node_named_child(body, 0);
    if (!is_type(first, "expression_statement")) return out;
    TSNode doc = ts_node_named_child(first, 0);
    if (!is_type(doc, "string")) return out;
    std::string text = m_.text_of(doc);
    size_t at = 0;
    while (at < text.size()) {
      size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      std::string line = text.substr(at, end - at);
      at = end + 1;
      size_t start = line.find_first_not_of(" \t\"'");
      if (start == std::string::npos) continue;
      size_t name_end = start;
      while (name_end < line.size() &&
             (std::isalnum(static_cast<unsigned char>(line[name_end])) || line[name_end] == '_'))
        ++name_end;
      if (name_end == start) continue;
      size_t colon = line.find(':', name_end);
      if (colon == std::string::npos) continue;
      std::string between = line.substr(name_end, colon - name_end);  // ` (Tensor)` or nothing
      if (between.find_first_not_of(" \t") != std::string::npos && between.find('(') == std::string::npos) continue;
      // The first bracketed list after the colon that is a shape (`(B, S, D) if batch_first else
      // (S, B, D)`: the first).
      for (size_t open = line.find('(', colon); open != std::string::npos; open = line.find('(', open + 1)) {
        size_t close = line.find(')', open);
        if (close == std::string::npos) break;
        std::vector<std::string> tokens = shape_tokens(line.substr(open + 1, close - open - 1));
        if (tokens.size() >= 2) {
          out.emplace(line.substr(start, name_end - start), tokens);
          break;
        }
      }
    }
    return out;
  }

  nlohmann::json infer_forward() {
    nlohmann::json out = nlohmann::json::array();
    auto forward = method_of(m_, cls_, "forward");
    if (!forward) return out;
    std::map<std::string, std::vector<std::string>> commented =
        parameter_shape_comments(m_.function(*forward).definition);
    for (auto& [param, tokens] : docstring_shapes(m_.function(*forward).definition))
      commented.emplace(param, tokens);  // a comment on the parameter's own line first
    // A dimension a comment names as another input's first (`curr_latent # (b n d)` beside
    // `embeds # (r b n d)`) is that input's batch: the harness makes every first dimension the
    // same batch, so the name gets that size wherever it stands.
    std::set<std::string> batch_names;
    for (const auto& [param, tokens] : commented)
      if (!std::isdigit(static_cast<unsigned char>(tokens[0][0]))) batch_names.insert(tokens[0]);
    nlohmann::json params = nlohmann::json::parse(m_.parameters_json(*forward));
    TSNode body = field(m_.function(*forward).definition, "body");
    bool keyword_only = false;  // after `*` or `*args`: passed by name
    // The tensors call sites build for the instances (call_sites.h), read once a tensor's rank is
    // not read from its uses.
    std::optional<std::map<std::string, SiteTensor>> sites;
    auto site_of = [&](const std::string& name) -> const SiteTensor* {
      if (!sites) {
        std::vector<std::string> names;
        for (size_t j = 0; j < params.size(); ++j) {
          std::string r = params[j].value("name", "");
          if (j == 0 && r == "self") continue;
          if (r.empty() || r[0] == '*' || r == "/") break;  // positions end at `*`
          names.push_back(r);
        }
        sites = forward_call_tensors(m_, cls_.name, names);
      }
      auto it = sites->find(name);
      return it == sites->end() ? nullptr : &it->second;
    };
    for (size_t i = 0; i < params.size(); ++i) {
      const auto& p = params[i];
      if (i == 0 && p.value("name", "") == "self") continue;
      std::string raw = p.value("name", "");
      if (raw == "*" || (raw.rfind("*", 0) == 0 && raw.rfind("**", 0) != 0)) keyword_only = true;
      if (!plain_parameter(p) || p.contains("default")) continue;
      std::string name = p["name"];
      Tensor t;
      from_uses(body, name, t);
      std::string n = lower(name);
      if (n.find("mask") != std::string::npos) {
        t.dtype = "bool";
        t.evidence.push_back("named as a mask");
      } else if (n.find("ids") != std::string::npos || n.find("idx") != std::string::npos || n == "indices" ||
                 n == "index" || n == "tokens" || n.find("label") != std::string::npos || n == "target" ||
                 n == "targets") {
        t.dtype = "int64";
        t.evidence.push_back("named as indices");
      }
      if (!t.rank || (t.min_rank && *t.min_rank > *t.rank)) {
        if (const SiteTensor* site = site_of(name); site && (!t.min_rank || *t.min_rank <= site->rank)) {
          // What a caller builds it as (`torch.randn(B, T, H)`): its rank, the sizes it writes
          // after the first, its dtype; a size the uses fixed stays. The first dimension stays
          // the harness's batch, the one every other input of the call shares.
          t.rank = site->rank;
          t.min_rank.reset();
          for (const auto& [k, v] : site->dims)
            if (k > 0 && !t.dims.count(k) && !t.dims.count(k - site->rank)) t.dims[k] = v;
          t.dtype = site->dtype;
          t.evidence.push_back("call site");
        }
      }
      // A shape written for it (a comment on its line, the docstring): after what code says.
      if (auto c = commented.find(name); c != commented.end() && !t.rank &&
                                         (!t.min_rank || *t.min_rank <= static_cast<int>(c->second.size()))) {
        const std::vector<std::string>& tokens = c->second;
        t.rank = static_cast<int>(tokens.size());
        t.rank_guessed = true;  // written, not read from code: the deducer may still try others
        t.min_rank.reset();
        for (int k = 1; k < *t.rank; ++k) {
          const std::string& token = tokens[k];
          if (std::isdigit(static_cast<unsigned char>(token[0]))) {
            if (auto v = integer_of(token); v && *v > 0 && !t.dims.count(k)) t.dims[k] = *v;
          } else if (batch_names.count(token) && !t.dims.count(k)) {
            t.dims[k] = kBatchSize;
          }
        }
        t.evidence.push_back("shape written for " + name);
      }
      if (out.empty() && t.dtype == "float32") image_sizes(t);
      nlohmann::json e = {{"name", name}, {"dtype", t.dtype}};
      if (keyword_only) e["keyword"] = true;
      if (t.rank && t.min_rank && *t.min_rank > *t.rank) t.rank.reset();  // contradicting clues: let the deducer try
      // No exact clue: the least rank the uses allow, else tokens (B, N, C) when only the width
      // is known, else paritybench's four dimensions.
      if (t.rank) e["rank"] = *t.rank;
      else if (t.min_rank) e["rank"] = std::max(*t.min_rank, t.dims.count(-1) ? 3 : 0);
      else e["rank"] = t.dims.count(-1) ? 3 : t.dtype == "int64" ? 2 : 4;
      if (!t.rank || t.rank_guessed) e["rank_known"] = false;
      nlohmann::json dims = nlohmann::json::object();
      for (const auto& [k, v] : t.dims) dims[std::to_string(k)] = v;
      e["dims"] = dims;
      if (t.high) e["high"] = *t.high;
      e["evidence"] = t.evidence;
      out.push_back(e);
    }
    return out;
  }

  const PythonFile& m_;
  const ModuleClass& cls_;
  std::vector<InitValue> init_;
  std::map<std::string, long long> known_;  // __init__ parameters with an integer value
};

}  // namespace

nlohmann::json infer_inputs(const PythonFile& file, const ModuleClass& cls) { return Inference(file, cls).run(); }

}  // namespace mine::torch_module
