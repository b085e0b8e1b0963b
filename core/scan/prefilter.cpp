#include "core/scan/prefilter.h"

namespace mine {

Prefilter::Prefilter(const std::vector<std::string>& patterns) {
  std::string joined;
  for (const auto& p : patterns) joined += (joined.empty() ? "" : "|") + ("(?:" + p + ")");
  joined_ = std::make_unique<RE2>(joined);
  if (!joined_->ok() || patterns.size() < 2) return;
  // Searched apart only when each pattern is a regular expression by itself: then `(?:p)` is a
  // group of its own in the alternation, and the alternation matches where one of them does. (A
  // pattern such as `a)|(b` is no regular expression by itself: joined, it closes the group around
  // it and opens another.)
  std::vector<std::unique_ptr<RE2>> apart;
  for (const auto& p : patterns) {
    RE2 alone(p, RE2::Quiet);
    if (!alone.ok()) return;
    apart.push_back(std::make_unique<RE2>("(?:" + p + ")"));
    if (!apart.back()->ok()) return;
  }
  apart_ = std::move(apart);
}

bool Prefilter::matches(std::string_view text) const {
  re2::StringPiece piece(text.data(), text.size());
  if (apart_.empty()) return RE2::PartialMatch(piece, *joined_);
  for (const auto& re : apart_)
    if (RE2::PartialMatch(piece, *re)) return true;
  return false;
}

}  // namespace mine
