#include "core/license/license_detector.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "core/license/license_texts.h"

namespace mine {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

// Lines that name who holds the copyright, which differ in every copy of the same license.
bool is_copyright_line(std::string_view lowered) {
  size_t first = lowered.find_first_not_of(" \t#*/-=>|");
  if (first == std::string_view::npos) return false;
  std::string_view s = lowered.substr(first);
  return starts_with(s, "copyright") || starts_with(s, "(c)") || starts_with(s, "\xc2\xa9") ||
         s.find("all rights reserved") != std::string_view::npos;
}

// Template placeholders of the SPDX texts (`<year>`, `[name of copyright owner]`) and their
// filled-in counterparts are dropped alike; short spans only, so real text is never lost.
std::string without_placeholders(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    char open = s[i];
    if (open == '<' || open == '[') {
      char close = open == '<' ? '>' : ']';
      size_t end = s.find(close, i + 1);
      if (end != std::string::npos && end - i <= 64 && s.find('\n', i) > end) {
        i = end;
        out += ' ';
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

}  // namespace

std::vector<std::string> license_words(std::string_view text) {
  // Run once per known license (some 600 SPDX texts) whenever a scan meets a license file: the
  // words are spans of `kept` (or the spelling they stand for), sorted as views and copied once
  // each at the end, instead of built a character at a time and sorted as strings.
  std::string kept;
  kept.reserve(text.size() + 1);
  std::string line;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    line.resize(end - pos);
    for (size_t i = pos; i < end; ++i) line[i - pos] = lower(text[i]);
    if (!is_copyright_line(line)) {
      kept += line;
      kept += '\n';
    }
    pos = end + 1;
  }
  kept = without_placeholders(kept);
  std::vector<std::string_view> words;
  std::string_view all(kept);
  size_t word_start = std::string_view::npos;
  auto flush = [&](size_t at) {
    if (word_start == std::string_view::npos) return;
    std::string_view word = all.substr(word_start, at - word_start);
    word_start = std::string_view::npos;
    // Spelling variants that copies of one license differ by.
    if (word == "licence") word = "license";
    if (word == "licences") word = "licenses";
    if (word == "https") word = "http";
    words.push_back(word);
  };
  for (size_t i = 0; i < all.size(); ++i) {
    char c = all[i];
    if (is_word_char(c)) {
      if (word_start == std::string_view::npos) word_start = i;
    } else if (c == '&') {
      flush(i);
      words.push_back("and");
    } else {
      flush(i);
    }
  }
  flush(all.size());
  // Distinct first, then sorted: a license repeats its few thousand words tens of thousands of
  // times, and sorting every occurrence took more than splitting the texts.
  std::unordered_set<std::string_view> seen(words.size());
  std::vector<std::string_view> distinct;
  for (std::string_view w : words)
    if (seen.insert(w).second) distinct.push_back(w);
  std::sort(distinct.begin(), distinct.end());
  return std::vector<std::string>(distinct.begin(), distinct.end());
}

LicenseDetector::LicenseDetector() {
  for (const auto& t : license_texts()) known_.push_back({t.spdx_id, license_words(t.text)});
}

LicenseMatch LicenseDetector::detect(std::string_view text, double threshold) const {
  LicenseMatch best;
  std::vector<std::string> words = license_words(text);
  if (words.empty()) return best;
  for (const auto& k : known_) {
    std::vector<std::string> common;
    std::set_intersection(words.begin(), words.end(), k.words.begin(), k.words.end(), std::back_inserter(common));
    double dice = 2.0 * static_cast<double>(common.size()) / static_cast<double>(words.size() + k.words.size());
    if (dice > best.confidence) {
      best.confidence = dice;
      best.best_guess = k.spdx_id;
    }
  }
  if (best.confidence >= threshold) best.spdx_id = best.best_guess;
  return best;
}

const LicenseDetector& license_detector() {
  static const LicenseDetector detector;
  return detector;
}

bool is_license_file_name(std::string_view path) {
  if (path.find('/') != std::string_view::npos) return false;
  std::string upper;
  for (char c : path) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return starts_with(upper, "LICENSE") || starts_with(upper, "LICENCE") || starts_with(upper, "COPYING");
}

int license_file_rank(std::string_view path) {
  std::string upper;
  for (char c : path) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  int rank = 0;
  for (const char* plain : {"LICENSE", "LICENCE", "COPYING"}) {
    std::string p = plain;
    if (upper == p) return rank;
    if (upper == p + ".MD" || upper == p + ".TXT" || upper == p + ".RST") return rank + 1;
    if (p == "LICENCE") rank += 2;  // LICENSE and LICENCE share ranks 0 and 1
  }
  return 4;
}

namespace {

// An SPDX license expression: ids (`Apache-2.0`, `LicenseRef-x`, `GPL-2.0+`) joined by AND, OR
// and WITH, with parentheses.
bool is_spdx_expression(const std::string& value) {
  bool want_id = true;
  size_t i = 0;
  int depth = 0;
  while (i < value.size()) {
    char c = value[i];
    if (c == ' ') {
      ++i;
    } else if (c == '(' && want_id) {
      ++depth;
      ++i;
    } else if (c == ')' && !want_id && depth > 0) {
      --depth;
      ++i;
    } else {
      size_t end = value.find_first_of(" ()", i);
      std::string token = value.substr(i, end == std::string::npos ? std::string::npos : end - i);
      bool op = token == "AND" || token == "OR" || token == "WITH" || token == "and" || token == "or";
      if (op == want_id) return false;
      want_id = op;
      i += token.size();
    }
  }
  return !want_id && depth == 0;
}

}  // namespace

std::optional<std::string> spdx_header(std::string_view text) {
  static constexpr std::string_view kTag = "SPDX-License-Identifier:";
  // The tag belongs at the top of a file; 30 lines leave room for a shebang and a banner.
  size_t limit = 0;
  for (int line = 0; line < 30 && limit < text.size(); ++line) {
    size_t end = text.find('\n', limit);
    limit = end == std::string_view::npos ? text.size() : end + 1;
  }
  size_t at = text.substr(0, limit).find(kTag);
  if (at == std::string_view::npos) return std::nullopt;
  size_t from = at + kTag.size();
  size_t end = text.find('\n', from);
  std::string_view value = text.substr(from, (end == std::string_view::npos ? text.size() : end) - from);
  // Comment closers and anything that is no part of an SPDX expression end the value.
  std::string out;
  for (char c : value) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' || c == '(' || c == ')' ||
        c == ' ' || c == '\t' || c == ':') {
      out += c == '\t' ? ' ' : c;
    } else {
      break;
    }
  }
  size_t b = out.find_first_not_of(' ');
  if (b == std::string::npos) return std::nullopt;
  size_t e = out.find_last_not_of(' ');
  out = out.substr(b, e - b + 1);
  if (!is_spdx_expression(out)) return std::nullopt;
  return out;
}

bool same_license(const std::string& a, const std::string& b) {
  auto canonical = [](std::string s) {
    for (auto& c : s) c = lower(c);
    for (std::string_view suffix : {"-only", "-or-later", "+"})
      if (s.size() > suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0)
        s.erase(s.size() - suffix.size());
    return s;
  };
  return canonical(a) == canonical(b);
}

}  // namespace mine
