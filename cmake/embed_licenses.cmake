# Writes a C++ file holding the SPDX texts of the licenses `mine scan` recognises in LICENSE files,
# read from the spdx-license-list package that scripts/setup.sh unpacks (one JSON file per id).
# IDS: "file-id=reported-id" pairs; the reported id is GitHub's spelling (GPL-3.0, not
# GPL-3.0-only), so a detected license compares directly with what the API reports.
set(body "// Generated from ${DIR} by cmake/embed_licenses.cmake. Do not edit.\n#include \"core/license/license_texts.h\"\nnamespace mine {\nconst std::vector<LicenseText>& license_texts() {\n  static const std::vector<LicenseText> texts = {\n")
foreach(pair ${IDS})
  string(REPLACE "=" ";" parts "${pair}")
  list(GET parts 0 file_id)
  list(GET parts 1 spdx_id)
  file(READ "${DIR}/${file_id}.json" json)
  string(JSON text GET "${json}" licenseText)
  string(APPEND body "    {\"${spdx_id}\", R\"mine_license(${text})mine_license\"},\n")
endforeach()
string(APPEND body "  };\n  return texts;\n}\n}  // namespace mine\n")
file(WRITE "${OUT}.tmp" "${body}")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
