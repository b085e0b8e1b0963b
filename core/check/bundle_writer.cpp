#include "core/check/bundle_writer.h"

#include <filesystem>
#include <fstream>
#include <regex>

#include "core/check/bundle_libraries.h"
#include "core/error.h"

namespace fs = std::filesystem;

namespace mine::check {
namespace {

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error::in(path.string(), "cannot write");
}

void prepare_folder(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) throw Error::in(dir.string(), "exists and is not a folder");
  fs::create_directories(dir, ec);
  if (ec) throw Error::in(dir.string(), "cannot create the bundle folder: " + ec.message());
  static const std::regex kModule(R"(k\d+(_kernel)?\.py|k\d+\.cu)");
  bool earlier_bundle = fs::exists(dir / "bundle.json", ec);
  std::vector<fs::path> modules;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (std::regex_match(name, kModule) || (name == "lib" && e.is_directory(ec))) modules.push_back(e.path());
    else if (name != "bundle.json" && name != "results.jsonl")
      throw Error::in(dir.string(), "not empty and not a bundle (holds " + name + "); give a new or empty folder");
  }
  if (ec) throw Error::in(dir.string(), "cannot list: " + ec.message());
  if (!modules.empty() && !earlier_bundle)
    throw Error::in(dir.string(), "holds k*.py files but no bundle.json; give a new or empty folder");
  // The old bundle.json goes first: until the new one is written there is no bundle here.
  fs::remove(dir / "bundle.json", ec);
  for (const auto& m : modules) fs::remove_all(m, ec);
}

}  // namespace

nlohmann::json write_bundle(const std::string& dir_text, const std::vector<BundleKernel>& kernels,
                            const std::vector<LibraryPackage>& libraries, std::vector<std::string>* problems) {
  fs::path dir(dir_text);
  prepare_folder(dir);
  std::vector<std::string> unread;
  nlohmann::json copied = libraries.empty() ? nlohmann::json(nullptr) : write_bundle_libraries(dir_text, libraries, unread);
  if (problems) problems->insert(problems->end(), unread.begin(), unread.end());
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& k : kernels) {
    bool cuda = k.language == "cuda";
    std::string module = "k" + std::to_string(k.id) + (cuda ? ".cu" : ".py");
    write_file(dir / module, k.standalone);
    std::string kernel_only = "k" + std::to_string(k.id) + "_kernel.py";
    if (k.kernel_only) write_file(dir / kernel_only, *k.kernel_only);
    nlohmann::ordered_json entry;
    entry["id"] = k.id;
    entry["entry"] = k.entry;
    entry["module"] = module;
    if (k.kernel_only) entry["kernel_only_module"] = kernel_only;
    entry["language"] = k.language;
    entry["plugin"] = k.plugin;
    if (k.language == "torch_module") {  // the harness instantiates, runs and compiles the class
      entry["inputs"] = k.inputs;
      list.push_back(std::move(entry));
      continue;
    }
    if (cuda) {  // the harness compiles it with nvcc and synthesizes arguments from the declarations
      entry["params"] = k.parameters;
      if (!k.launch_bounds.empty()) entry["launch_bounds"] = k.launch_bounds;
      if (k.launch_config.is_object()) {
        entry["block"] = k.launch_config["block"];
        if (k.launch_config.contains("grid")) entry["grid"] = k.launch_config["grid"];
      }
      list.push_back(std::move(entry));
      continue;
    }
    entry["signature"] = k.signature.signature();
    entry["constexprs"] = k.signature.constexprs();
    entry["grid"] = k.signature.grid;
    if (!k.signature.numels.empty()) entry["numels"] = k.signature.numels;
    if (!k.signature.options.empty()) entry["options"] = k.signature.options;
    entry["guessed"] = k.signature.guessed();
    if (!k.attrs.empty()) entry["attrs"] = k.attrs;
    if (!k.signature.autotune.empty()) entry["autotune"] = k.signature.autotune;
    if (!k.signature.args.empty()) entry["args"] = k.signature.args;
    if (!k.signature.tensors.empty()) entry["tensors"] = k.signature.tensors;
    if (!k.signature.launch.is_null()) entry["launch"] = k.signature.launch;
    if (!k.target.is_null()) entry["target"] = k.target;
    if (!k.signature.assumed_fp32.empty()) entry["assumed_fp32"] = k.signature.assumed_fp32;
    if (!k.signature.pointer_tables.empty()) entry["pointer_tables"] = k.signature.pointer_tables;
    if (!k.signature.addresses.empty()) entry["addresses"] = k.signature.addresses;
    if (!k.signature.nominal.empty()) entry["nominal"] = k.signature.nominal;
    if (!k.signature.keyword_splat.empty()) entry["keyword_splat"] = k.signature.keyword_splat;
    list.push_back(std::move(entry));
  }
  nlohmann::ordered_json doc;
  doc["version"] = 1;
  if (!copied.is_null()) doc["libraries"] = copied;
  doc["kernels"] = std::move(list);
  write_file(dir / "bundle.json", doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  return copied;
}

}  // namespace mine::check
