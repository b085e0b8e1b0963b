#include "core/launch/launch_binding.h"

#include <algorithm>
#include <map>

namespace mine {
namespace {

bool fits(const LaunchTarget& k, const LaunchSite& s) {
  size_t positional = 0;
  for (const auto& a : s.args) {
    if (a.keyword.empty()) ++positional;
    else if (std::find(k.params.begin(), k.params.end(), a.keyword) == k.params.end()) return false;
  }
  return positional <= k.params.size();
}

LaunchSite bound(const LaunchTarget& k, const LaunchSite& s) {
  LaunchSite out = s;
  for (auto& a : out.args) {
    if (!a.keyword.empty()) {
      if (std::find(k.params.begin(), k.params.end(), a.keyword) != k.params.end()) a.param = a.keyword;
    } else if (a.position >= 0 && static_cast<size_t>(a.position) < k.params.size()) {
      a.param = k.params[static_cast<size_t>(a.position)];
    }
  }
  return out;
}

// Several definitions of one qualname in the launch's file: keep those the arguments fit (all
// when none does), then the last defined above the launch, if any is.
void narrow_redefinitions(std::vector<const LaunchTarget*>& chosen, const LaunchSite& s) {
  if (chosen.size() < 2) return;
  for (const LaunchTarget* k : chosen)
    if (k->qualname != chosen.front()->qualname || k->path != s.path) return;
  std::vector<const LaunchTarget*> fitting;
  for (const LaunchTarget* k : chosen)
    if (fits(*k, s)) fitting.push_back(k);
  if (!fitting.empty()) chosen = fitting;
  const LaunchTarget* reaching = nullptr;
  for (const LaunchTarget* k : chosen)
    if (k->line > 0 && k->line < s.line && (!reaching || k->line > reaching->line)) reaching = k;
  if (reaching) chosen = {reaching};
}

}  // namespace

std::vector<LinkedLaunch> link_launches(const std::vector<LaunchTarget>& kernels, const std::vector<LaunchSite>& launches) {
  std::multimap<std::string, const LaunchTarget*> by_name;
  for (const auto& k : kernels) by_name.emplace(k.name, &k);
  std::vector<LinkedLaunch> out;
  for (size_t i = 0; i < launches.size(); ++i) {
    const LaunchSite& s = launches[i];
    auto [all_lo, all_hi] = by_name.equal_range(s.target_name);
    // `kernel.InstanceNorm.backward`: where a class of that name has the kernel as a method, only
    // that method is launched, not every kernel called `backward`.
    std::multimap<std::string, const LaunchTarget*> owned;
    if (!s.target_owner.empty()) {
      const std::string tail = s.target_owner + "." + s.target_name, dotted_tail = "." + tail;
      for (auto it = all_lo; it != all_hi; ++it) {
        const std::string& q = it->second->qualname;
        if (q == tail || (q.size() > dotted_tail.size() && q.compare(q.size() - dotted_tail.size(), dotted_tail.size(), dotted_tail) == 0))
          owned.emplace(it->first, it->second);
      }
    }
    auto [lo, hi] = owned.empty() ? std::make_pair(all_lo, all_hi) : owned.equal_range(s.target_name);
    std::vector<const LaunchTarget*> chosen;
    for (auto it = lo; it != hi; ++it)
      if (!s.target_path.empty() && it->second->path == s.target_path) chosen.push_back(it->second);
    if (chosen.empty() && !s.launcher.empty()) {
      std::string local = s.launcher + ".<locals>." + s.target_name;
      for (auto it = lo; it != hi; ++it)
        if (it->second->path == s.path && it->second->qualname == local) chosen.push_back(it->second);
    }
    if (chosen.empty()) {  // matched by name, or re-exported from the file the import named
      for (auto it = lo; it != hi; ++it)
        if (it->second->path == s.path) chosen.push_back(it->second);
      bool distinct = false;
      for (const LaunchTarget* k : chosen) distinct = distinct || k->qualname != chosen.front()->qualname;
      if (distinct) continue;
      // A kernel defined inside a function (`test_add.<locals>.kernel`) is launched only there.
      // A name the launching file defines itself (a function its own imports make no kernel of,
      // `import triton_pre_mlir as triton`) is that definition, not another file's kernel.
      if (chosen.empty() && s.target_path != s.path)
        for (auto it = lo; it != hi; ++it)
          if (fits(*it->second, s) && it->second->qualname.find(".<locals>.") == std::string::npos)
            chosen.push_back(it->second);
    }
    narrow_redefinitions(chosen, s);
    for (const LaunchTarget* k : chosen) out.push_back({k->id, bound(*k, s), i});
  }
  return out;
}

}  // namespace mine
