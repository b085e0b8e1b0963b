#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mine::dedup {

// The token stream MinHash shingles: Python's lexical tokens without comments, docstrings,
// layout, `;`, line continuations or trailing commas before a closer, strings with their quotes
// normalized and numbers lowercased - the same things the exact normal form ignores - but read
// with a hand-written scanner instead of a tree-sitter parse. Near-dedup needs tokens, not a
// syntax tree (BigCode's pipeline split on non-alphanumerics), and the scanner is about 30x
// faster than parsing: it is what keeps near-dedup of a corpus within seconds. Exact and
// alpha-renamed hashes still come from the parse (code_normalizer.h), which they need for
// docstrings and scopes.
//
// Never fails: unterminated strings run to the end of their line (or of the text, if triple
// quoted), and bytes that start no token become one-byte tokens.
void lex_python(std::string_view source, const std::function<void(std::string_view)>& token);

std::vector<std::string> lex_python_tokens(std::string_view source);

// FNV-1a hashes of the tokens (MinHasher::token_hash of each), without building strings.
void lex_python_hashes(std::string_view source, std::vector<uint64_t>& out);

}  // namespace mine::dedup
