#include "core/check/element_type_agreement.h"

#include <set>
#include <utility>

namespace mine::check {

void agree_element_types(const ElementTypeInputs& in, InferredSignature& out) {
  auto& by_name = in.by_name;
  const PointerFacts& facts = in.facts;
  const auto& launched = in.launched;
  auto take = [&](const std::string& to, const std::string& type, const std::string& why) {
    InferredParam& p = by_name[to];
    p.type = type;
    p.why += why;
    if (out.tensors.contains(to)) out.tensors[to]["dtype"] = type.substr(1);
  };
  // A copy's source or destination whose element type nothing stated takes the other's stated one
  // (`pad = torch.full(..., dtype=torch.int32)` filled from the caller's `topk_idx`).
  {
    // A type the launch (a tensor of stated dtype) or an annotation fixes.
    auto fixed = [&](const std::string& name) {
      auto it = by_name.find(name);
      if (it == by_name.end()) return false;
      auto f = launched.find(name);
      return it->second.origin == Origin::Annotation ||
             (it->second.origin == Origin::Launch && f != launched.end() && !f->second.dtype.empty());
    };
    auto stated = [&](const std::string& name) -> std::string {
      auto it = by_name.find(name);
      if (it == by_name.end() || it->second.type.size() < 2 || it->second.type[0] != '*') return "";
      bool body_stated = facts.width_stated(name);
      return fixed(name) || body_stated ? it->second.type : "";
    };
    // Only the fp32 assumed for want of evidence gives way: an index's width guessed from its name
    // (`*_ids`: i32) is kept, as the other indices of the kernel, guessed alike, agree with it.
    auto open = [&](const std::string& name) {
      auto it = by_name.find(name);
      return it != by_name.end() && it->second.type == "*fp32" && stated(name).empty();
    };
    for (const auto& [dst, src] : facts.copies)
      for (const auto& [to, from] : {std::pair{src, dst}, std::pair{dst, src}}) {
        std::string type = stated(from);
        if (type.empty() || !open(to) || by_name[to].type == type) continue;
        take(to, type, "; copied " + std::string(to == src ? "into " : "from ") + from + ", of that type");
      }
    // The same for the operands of a tl.dot (`A_ptr` fp8 by the launch, `B_ptr` left to the caller).
    for (const auto& [a, b] : facts.dot_operands)
      for (const auto& [to, from] : {std::pair{a, b}, std::pair{b, a}}) {
        std::string type = stated(from);
        if (type.empty() || type == "*fp32" || !open(to)) continue;
        take(to, type, "; dotted with " + from + ", of that type");
      }
    // One name bound to loads of either in two branches: a guessed width (an index's `*i32`)
    // gives way to the type the launch or an annotation states for the other.
    for (const auto& [a, b] : facts.branch_operands)
      for (const auto& [to, from] : {std::pair{a, b}, std::pair{b, a}}) {
        auto it = by_name.find(to);
        if (!fixed(from) || fixed(to) || it == by_name.end() || it->second.type.size() < 2 || it->second.type[0] != '*')
          continue;
        std::string type = by_name[from].type;
        if (type.size() < 2 || type[0] != '*' || it->second.type == type) continue;
        take(to, type, "; bound in another branch to what " + from + " holds, of that type");
      }
  }
  // Tensors whose element type the launcher leaves open (`q` handed in by the caller) take the one
  // half-precision type it fixes for the others (`torch.empty(..., dtype=torch.float16)`), if there
  // is exactly one: kernels mix their operands in tl.dot and arithmetic, which wants one type.
  std::set<std::string> floated;  // tensors that took the launcher's floating type
  if (in.launcher_chosen) {
    std::set<std::string> floats;
    for (const auto& [name, f] : launched)
      if (f.role == "tensor" && (f.dtype == "fp16" || f.dtype == "bf16")) floats.insert(f.dtype);  // fp32: statistics buffers
    if (floats.size() == 1)
      for (auto& [name, p] : by_name) {
        auto f = launched.find(name);
        if (p.origin != Origin::Launch || f == launched.end() || f->second.role != "tensor" || !f->second.dtype.empty()) continue;
        // The body's own reading of its width wins; a float fill or float math states none.
        if (p.type != "*fp32" || facts.width_stated(name)) continue;
        take(name, "*" + *floats.begin(), "; the launcher's floating type");
        floated.insert(name);
      }
  }
  // A copy's other side still open (bound to what the scan could not evaluate, `w` of a caller)
  // takes that type as well: the two buffers hold one type.
  for (const auto& [dst, src] : facts.copies)
    for (const auto& [to, from] : {std::pair{src, dst}, std::pair{dst, src}}) {
      auto it = by_name.find(to);
      if (!floated.count(from) || floated.count(to) || it == by_name.end() || it->second.type != "*fp32" ||
          it->second.origin == Origin::Annotation || facts.width_stated(to))
        continue;
      auto f = launched.find(to);
      if (f != launched.end() && !f->second.dtype.empty()) continue;
      take(to, by_name[from].type,
           "; copied " + std::string(to == src ? "into " : "from ") + from + ", of the launcher's floating type");
    }
  // A float `other=` fill says the elements are floating, not how wide: fp32 from it alone is as
  // much an assumption as no evidence at all.
  for (const auto& name : in.order) {
    const InferredParam& p = by_name[name];
    bool width_stated = facts.width_stated(name);
    if (p.type != "*fp32" || width_stated) continue;
    auto f = launched.find(name);
    bool launch_open = p.origin == Origin::Launch && f != launched.end() && f->second.dtype.empty();
    if (is_guess(p.origin) || launch_open) out.assumed_fp32.push_back(name);
  }
  // A dtype constexpr the launch sets from its caller's tensors (`DTYPE=to_triton(x.dtype)`) keeps
  // its fp32 default here only for want of the caller: it is as open as those tensors, and must
  // move with them when the harness retypes them (a bf16 store of `h.to(DTYPE)` fails otherwise).
  for (const auto& name : in.order) {
    const InferredParam& p = by_name[name];
    if (p.type != "constexpr" || p.value != "tl.float32") continue;
    if (is_guess(p.origin) || (p.origin == Origin::Default && in.launch_unresolved.count(name)))
      out.assumed_fp32.push_back(name);
  }
}

}  // namespace mine::check
