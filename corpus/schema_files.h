#pragma once
#include <string>
#include <vector>

namespace mine {

// One numbered migration from schema/ (e.g. "001_foundation.sql"), embedded at build time.
struct SchemaFile {
  const char* name;
  const char* sql;
};

const std::vector<SchemaFile>& schema_files();

}  // namespace mine
