#pragma once
#include <string>
#include <string_view>

#include "core/dedup/code_normalizer.h"

namespace mine::dedup {

// The exact and alpha normal forms of code_normalizer.h, read from Python's tokens instead of a
// tree-sitter parse: a tokenizer with Python's indentation rules, then one pass that finds the
// statements, blocks, function and lambda scopes and the names they bind. About ten times cheaper
// than parsing, which is what lets a first `mine dedup` of a large corpus take seconds.
//
// It reproduces CodeNormalizer::normalize token for token on the code it models (checked on the
// real repositories' standalones and on every test snippet). Anything it does not model, or that
// tree-sitter might read differently (syntax errors, tabs in indentation, `global`, `match`,
// Python 3.12 f-strings, type parameters, a one-element tuple with a comment inside, ...), makes
// it return false: the caller then parses (normalize_python below does both).
bool normalize_by_tokens(std::string_view python_source, NormalizedCode& out);

// The source line of token_normalizer.cpp whose rule made this thread's last call decline (for
// bench/normalizer_agreement's histogram).
int token_normalizer_decline_line();

// normalize_by_tokens, or the tree-sitter walk where it declines. Identical results either way.
NormalizedCode normalize_python(std::string_view python_source, CodeNormalizer& parser_fallback);

// token_stream_hash of both forms without building them token by token: what dedup stores.
// hash_by_tokens declines as normalize_by_tokens does; hash_python then parses.
bool hash_by_tokens(std::string_view python_source, std::string& exact_hash, std::string& alpha_hash);
void hash_python(std::string_view python_source, CodeNormalizer& parser_fallback, std::string& exact_hash,
                 std::string& alpha_hash);

}  // namespace mine::dedup
