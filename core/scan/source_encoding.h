#pragma once
#include <string>

namespace mine {

// A Python source file as UTF-8, decoded the way CPython decodes it (PEP 263, PEP 3120).
struct DecodedSource {
  std::string encoding;  // what it was decoded from: empty for plain UTF-8, else e.g. "iso-8859-1", "utf-8-sig"
  std::string error;     // why it could not be decoded; empty on success (then `text` is UTF-8)
  size_t error_offset = std::string::npos;  // byte of the raw text the error is at, when known
};

// The encoding a PEP 263 declaration names in the first two lines (`# -*- coding: latin-1 -*-`,
// `# vim: set fileencoding=cp1252 :`), normalized as CPython does (`latin-1` -> `iso-8859-1`,
// `utf_8` -> `utf-8`); empty when there is none. The second line counts only when the first is
// a comment or blank.
std::string declared_encoding(const std::string& text);

// Decodes `text` in place to UTF-8: a UTF-8 byte-order mark is dropped (utf-8-sig), a declared
// encoding other than UTF-8 is converted with iconv. Undeclared or UTF-8-declared text must be
// valid UTF-8, as CPython requires; otherwise `error` says where it is not.
DecodedSource decode_python_source(std::string& text);

}  // namespace mine
