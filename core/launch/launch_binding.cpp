#include "core/launch/launch_binding.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

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

// How many positionals the launch passes, when its last ones follow a spread of unknown length:
// the parameters after them are all named by the launch's keywords or left to their defaults.
// Each count defaults allow is tried; the one under which the most trailing arguments are
// spelled as the parameter they bind (`D1` for `D1`) is taken, when it is the only one.
std::optional<size_t> positional_count(const LaunchTarget& k, const LaunchSite& s) {
  size_t known = 0, trailing = 0;
  std::set<std::string> named;
  for (const auto& a : s.args) {
    if (!a.keyword.empty()) named.insert(a.keyword);
    else if (a.from_end > 0) trailing = std::max(trailing, static_cast<size_t>(a.from_end));
    else if (a.position >= 0) known = std::max(known, static_cast<size_t>(a.position) + 1);
  }
  if (trailing == 0) return std::nullopt;
  const size_t n = k.params.size();
  size_t hi = n;  // no positional reaches a parameter the launch names
  for (size_t i = 0; i < n; ++i)
    if (named.count(k.params[i])) {
      hi = i;
      break;
    }
  size_t lo = n;  // the parameters after the positionals are named or defaulted
  while (lo > 0 && (named.count(k.params[lo - 1]) || (lo - 1 < k.defaulted.size() && k.defaulted[lo - 1]))) --lo;
  lo = std::max(lo, known + trailing);
  if (lo > hi) return std::nullopt;
  if (lo == hi) return lo;
  std::optional<size_t> best;
  int best_score = 0, ties = 0;
  for (size_t m = lo; m <= hi; ++m) {
    int score = 0;
    for (const auto& a : s.args)
      if (a.keyword.empty() && a.from_end > 0 && a.text == k.params[m - static_cast<size_t>(a.from_end)]) ++score;
    if (score > best_score) best = m, best_score = score, ties = 0;
    else if (score == best_score) ++ties;
  }
  if (best_score == 0 || ties > 0) return std::nullopt;
  return best;
}

LaunchSite bound(const LaunchTarget& k, const LaunchSite& s) {
  LaunchSite out = s;
  std::optional<size_t> count = positional_count(k, s);
  for (auto& a : out.args) {
    if (!a.keyword.empty()) {
      if (std::find(k.params.begin(), k.params.end(), a.keyword) != k.params.end()) a.param = a.keyword;
      continue;
    }
    if (a.from_end > 0 && count) a.position = static_cast<int>(*count) - a.from_end;
    if (a.position >= 0 && static_cast<size_t>(a.position) < k.params.size())
      a.param = k.params[static_cast<size_t>(a.position)];
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
