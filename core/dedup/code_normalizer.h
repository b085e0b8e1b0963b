#pragma once
#include <tree_sitter/api.h>

#include <string>
#include <string_view>
#include <vector>

namespace mine::dedup {

// The two normal forms of one piece of Python code, as token streams.
//
// `exact` drops what never changes behaviour and what formatters rewrite: comments, docstrings,
// whitespace and line breaks, line continuations, `;` between statements, quote style and string
// prefixes' case, number spelling case, and trailing commas before a closing bracket (black's
// "magic trailing comma"). Block structure is kept as <indent>/<dedent>/<nl> marker tokens so that
// moving a statement in or out of a block changes the stream even though Python's layout tokens
// are invisible in tree-sitter's tree.
//
// `alpha` is `exact` with local identifiers (parameters and names bound inside a function or
// lambda) renamed to v0, v1, ... in first-occurrence order. Globals, imports (`tl`, `triton`),
// attribute names and keyword-argument names keep their spelling: they are the code's interface
// to the outside, so renaming them would merge kernels that call different things.
struct NormalizedCode {
  std::vector<std::string> exact;
  std::vector<std::string> alpha;
  bool had_syntax_errors = false;
};

// A string literal's token in both forms: 'x', "x", '''x''' and """x""" are the same value; black
// rewrites between them and drops the escapes that the new quotes make unnecessary, so quote
// escapes are dropped too, and the prefix is lowercased.
std::string normalized_string(std::string_view raw);

// Hex SHA-256 of a token stream (tokens joined by U+001F, which no token contains unescaped).
std::string token_stream_hash(const std::vector<std::string>& tokens);

// Owns a tree-sitter parser; one per thread (tree-sitter parsers are not thread-safe).
class CodeNormalizer {
 public:
  CodeNormalizer();
  ~CodeNormalizer();
  CodeNormalizer(const CodeNormalizer&) = delete;
  CodeNormalizer& operator=(const CodeNormalizer&) = delete;

  // Never throws on bad Python: ERROR nodes are tokenized like any other subtree.
  NormalizedCode normalize(std::string_view python_source);

 private:
  TSParser* parser_;
};

}  // namespace mine::dedup
