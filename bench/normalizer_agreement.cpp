// Checks the token normalizer (core/dedup/token_normalizer.h) against the tree-sitter one on real
// code: every distinct standalone of a corpus, or Python files. Built and run by
// bench/normalizer_agreement.sh. Prints how many texts agreed, how many the token reader declined
// (those are parsed, so they cost time, not correctness) and every disagreement, which is a bug.
//
// usage: normalizer_agreement --db CORPUS.db | FILE.py...
#include <sqlite3.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/dedup/code_normalizer.h"
#include "core/dedup/token_normalizer.h"

using namespace mine::dedup;

namespace {

std::vector<std::string> corpus_texts(const char* db_path) {
  std::vector<std::string> out;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return out;
  sqlite3_stmt* st = nullptr;
  // PLUGIN=triton: only that plugin's kernels (dedup signs every plugin's standalones).
  const char* plugin = getenv("PLUGIN");
  sqlite3_prepare_v2(db, "SELECT DISTINCT standalone FROM kernels WHERE ?1 IS NULL OR plugin = ?1", -1, &st, nullptr);
  if (plugin) sqlite3_bind_text(st, 1, plugin, -1, SQLITE_TRANSIENT);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(st, 0);
    out.emplace_back(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(st, 0)));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

std::string first_difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  std::ostringstream s;
  size_t from = i > 8 ? i - 8 : 0;
  s << "at token " << i << "\n  tokens: ";
  for (size_t k = from; k < std::min(a.size(), i + 6); ++k) s << a[k] << ' ';
  s << "\n  parse:  ";
  for (size_t k = from; k < std::min(b.size(), i + 6); ++k) s << b[k] << ' ';
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> texts;
  if (argc >= 3 && std::string(argv[1]) == "--db") {
    texts = corpus_texts(argv[2]);
  } else {
    for (int i = 1; i < argc; ++i) {
      std::ifstream f(argv[i], std::ios::binary);
      std::stringstream ss;
      ss << f.rdbuf();
      texts.push_back(ss.str());
    }
  }
  CodeNormalizer parser;
  size_t agreed = 0, declined = 0, differ = 0, shown = 0;
  std::map<int, size_t> decline_lines;  // token_normalizer.cpp line -> texts declined there
  for (const auto& t : texts) {
    NormalizedCode by_tokens;
    if (!normalize_by_tokens(t, by_tokens)) {
      ++declined;
      if (getenv("SHOW_DECLINED") && ++decline_lines[token_normalizer_decline_line()] == 1 &&
          std::to_string(token_normalizer_decline_line()) == getenv("SHOW_DECLINED"))
        std::cout << "---- declined:\n" << t << "\n----\n";
      else if (!getenv("SHOW_DECLINED"))
        ++decline_lines[token_normalizer_decline_line()];
      continue;
    }
    NormalizedCode parsed = parser.normalize(t);
    if (by_tokens.exact == parsed.exact && by_tokens.alpha == parsed.alpha) {
      ++agreed;
      continue;
    }
    ++differ;
    if (shown++ < 5) {
      bool exact_same = by_tokens.exact == parsed.exact;
      std::cout << "DIFFERENT (" << (exact_same ? "alpha" : "exact") << ") "
                << (exact_same ? first_difference(by_tokens.alpha, parsed.alpha)
                               : first_difference(by_tokens.exact, parsed.exact))
                << "\n";
      if (getenv("SHOW_TEXT")) std::cout << "----\n" << t << "\n----\n";
    }
  }
  std::cout << "texts " << texts.size() << " agreed " << agreed << " declined " << declined << " different "
            << differ << "\n";
  for (const auto& [line, n] : decline_lines) std::cout << "  declined at token_normalizer.cpp:" << line << " " << n << "\n";
  return differ == 0 ? 0 : 1;
}
