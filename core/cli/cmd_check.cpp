#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "core/check/bundle_writer.h"
#include "core/check/check_results.h"
#include "core/check/harness_process.h"
#include "core/check/inductor_form.h"
#include "core/check/kernel_only_module.h"
#include "core/check/kernel_target.h"
#include "core/check/nvcc_batch.h"
#include "core/check/pair_ingest.h"
#include "core/check/nvcc_check.h"
#include "core/check/signature_inference.h"
#include "core/cli/command.h"
#include "core/cli/options.h"
#include "core/error.h"
#include "core/python/function_parameters.h"
#include "core/python/module_model.h"
#include "core/shard/shard_spec.h"
#include "corpus/check_store.h"
#include "corpus/corpus.h"

namespace fs = std::filesystem;

namespace mine::cli {
namespace {

struct Selection {
  std::string where;
  int64_t limit = 0;
  ShardSpec shard;
  bool include_helpers = false;
  bool include_written_to_fail = false;
};

// The kernels the user chose, this shard's only.
std::vector<CheckKernel> select(const std::string& db, const Selection& selection, bool quiet) {
  Corpus::open(db, Corpus::Access::ReadWrite);  // migrates before the read-only look
  std::vector<CheckKernel> kernels;
  {
    auto read_only = Corpus::open(db, Corpus::Access::ReadOnly);
    // Sharded, --limit counts this shard's kernels, so the shard filter comes first.
    std::set<int64_t> helpers;
    if (!selection.include_helpers) helpers = jitted_helper_kernels(*read_only);
    // At most helpers.size() of the rows read are dropped, so that many more are read.
    int64_t sql_limit = selection.shard.whole() && selection.limit > 0 ? selection.limit + static_cast<int64_t>(helpers.size()) : 0;
    kernels = select_check_kernels(*read_only, selection.where, sql_limit);
    attach_launches(*read_only, kernels);
    if (!helpers.empty()) {
      size_t before = kernels.size();
      std::erase_if(kernels, [&](const CheckKernel& k) { return helpers.count(k.id) > 0; });
      if (!quiet && before != kernels.size())
        std::cout << "skipping " << before - kernels.size() << " jitted helper" << (before - kernels.size() == 1 ? "" : "s")
                  << " that other kernels call (compiled inside their callers; --include-helpers checks them alone)\n";
    }
    if (selection.shard.whole() && selection.limit > 0 && kernels.size() > static_cast<size_t>(selection.limit))
      kernels.resize(static_cast<size_t>(selection.limit));
  }
  if (!selection.shard.whole()) {
    std::erase_if(kernels, [&](const CheckKernel& k) {
      return !selection.shard.owns(kernel_shard_key(k.repo, k.path, k.qualname, k.source_sha256));
    });
    if (selection.limit > 0 && kernels.size() > static_cast<size_t>(selection.limit))
      kernels.resize(static_cast<size_t>(selection.limit));
  }
  return kernels;
}

bool is_cuda(const CheckKernel& k) { return k.plugin == "cuda"; }

check::BundleKernel bundle_entry(const CheckKernel& k, check::InferredSignature signature,
                                 std::optional<std::string> kernel_only) {
  check::BundleKernel b;
  b.id = k.id;
  b.plugin = k.plugin;
  b.entry = k.name;
  b.standalone = k.standalone;
  b.signature = std::move(signature);
  b.kernel_only = std::move(kernel_only);
  return b;
}

// Infers and stores the signatures of the Triton kernels and writes the bundle (CUDA C kernels
// go in as .cu units with their parameter declarations).
size_t emit(const std::string& db, std::vector<CheckKernel> kernels, const Selection& selection, const std::string& dir,
            bool quiet) {
  std::vector<std::pair<CheckKernel, check::InferredSignature>> inferred;
  std::vector<check::BundleKernel> bundle;
  size_t with_guesses = 0, device_functions = 0, methods = 0, cuda = 0, modules = 0, expected_errors = 0, templates = 0;
  std::map<std::string, size_t> other_targets;
  for (auto& k : kernels) {
    if (is_cuda(k)) {
      check::BundleKernel b = bundle_entry(k, {}, std::nullopt);
      b.language = "cuda";
      b.parameters = k.meta.value("parameters", nlohmann::json::array());
      b.launch_bounds = k.meta.value("launch_bounds", "");
      if (k.meta.contains("launch_config")) b.launch_config = k.meta["launch_config"];
      bundle.push_back(std::move(b));
      ++cuda;
      continue;
    }
    if (k.plugin == "torch_module") {
      check::BundleKernel b = bundle_entry(k, {}, std::nullopt);
      b.language = "torch_module";
      b.inputs = k.meta.value("inputs", nlohmann::json::object());
      bundle.push_back(std::move(b));
      ++modules;
      continue;
    }
    // What the repository itself runs only to see it fail, or completes by text substitution
    // first, says nothing about the kernel as mined (plugins/triton/written_to_fail.h).
    if (k.plugin == "triton" && !selection.include_written_to_fail) {
      if (k.meta.contains("source_placeholders")) {
        ++templates;
        continue;
      }
      if (k.meta.value("expects_error", false)) {
        ++expected_errors;
        continue;
      }
    }
    std::optional<std::string> kernel_only;
    std::unique_ptr<PythonModule> module;  // parsed once for the role, the kernel-only module and inference
    if (k.plugin == "triton") {
      try {
        module = PythonModule::build(k.path, k.standalone);
      } catch (const Error&) {
        // Unreadable standalones still go to the harness, which reports why they fail.
      }
      const FunctionSite* entry = module ? check::entry_function(*module, k.name) : nullptr;
      if (entry && !selection.include_helpers && check::returns_value(*module, *entry)) {
        ++device_functions;
        continue;
      }
      // A jitted method (`@gluon.jit def release(self, ...)` of an aggregate class) runs only
      // inside a kernel that holds the object.
      if (entry && !selection.include_helpers) {  // (its standalone may hold it without the class)
        auto params = parameter_nodes(*module, entry->definition);
        if (!params.empty() && params.front().name == "self") {
          ++methods;
          continue;
        }
      }
      if (module) kernel_only = check::kernel_only_module(*module, k.name);
    } else if (k.plugin == "inductor") {
      // The kernel without the header and heuristics of the torch that wrote it: what the
      // harness compiles when that header no longer imports (inductor_form.h).
      kernel_only = check::inductor_kernel_only(k.standalone, k.name);
    }
    check::InferredSignature sig = check::infer_signature({k.plugin, k.name, k.standalone, k.meta, module.get(), k.launches});
    nlohmann::ordered_json attrs = nlohmann::ordered_json::object();
    if (k.plugin == "inductor") {
      std::vector<std::string> params;
      for (const auto& p : sig.params) params.push_back(p.name);
      attrs = check::apply_specialization(check::inductor_specialization(k.standalone, params), sig);
    }
    with_guesses += sig.guessed().empty() ? 0 : 1;
    bundle.push_back(bundle_entry(k, sig, kernel_only));
    bundle.back().attrs = std::move(attrs);
    if (auto target = check::other_backend(k.path, k.standalone)) {
      bundle.back().target = {{"backend", target->backend}, {"evidence", target->evidence}};
      ++other_targets[target->backend];
    }
    inferred.emplace_back(std::move(k), std::move(sig));
  }
  if (!quiet && device_functions)
    std::cout << "skipping " << device_functions << " jitted function" << (device_functions == 1 ? "" : "s")
              << " that return a value (device functions, never launched; --include-helpers checks them alone)\n";
  if (!quiet && methods)
    std::cout << "skipping " << methods << " jitted method" << (methods == 1 ? "" : "s")
              << " (called through their object inside other kernels; --include-helpers checks them alone)\n";
  if (!quiet && templates)
    std::cout << "skipping " << templates << " kernel template" << (templates == 1 ? "" : "s")
              << " whose source a test completes by text substitution (kernels.meta source_placeholders; "
                 "--include-written-to-fail checks them as written)\n";
  if (!quiet && expected_errors)
    std::cout << "skipping " << expected_errors << " kernel" << (expected_errors == 1 ? "" : "s")
              << " their repository compiles or launches only where it expects an error (pytest.raises; kernels.meta "
                 "expects_error; --include-written-to-fail checks them)\n";
  auto corpus = Corpus::open(db, Corpus::Access::ReadWrite);
  // Packages the kernels import that another repository of the corpus has. The harness needs only
  // the standard library, torch and triton: those are the machine's, never copied.
  std::set<std::string> imported;
  std::vector<int64_t> ids;
  for (const auto& b : bundle) ids.push_back(b.id);
  for (const auto& [id, names] : external_modules(*corpus, ids))
    for (const auto& n : names)
      if (n != "torch" && n != "triton" && n != "numpy") imported.insert(n);
  std::vector<std::string> problems;
  nlohmann::json libraries = check::write_bundle(dir, bundle, library_packages(*corpus, imported), &problems);
  store_signatures(*corpus, inferred);
  if (!quiet) {
    std::cout << "wrote " << bundle.size() << " kernel" << (bundle.size() == 1 ? "" : "s") << " to " << dir << " ("
              << with_guesses << " with guessed parameters; see kernel_signatures";
    if (cuda) std::cout << "; " << cuda << " CUDA C";
    if (modules) std::cout << "; " << modules << " PyTorch module" << (modules == 1 ? "" : "s") << " for the inductor stage";
    std::cout << ")\n";
    if (!libraries.is_null()) {
      std::string list;
      for (const auto& [name, p] : libraries["packages"].items())
        list += (list.empty() ? "" : ", ") + name + " (" + p["repo"].get<std::string>() + ")";
      std::cout << "libraries the kernels import, copied from the corpus into " << dir << "/lib: " << list << "\n";
    }
    for (const auto& p : problems) std::cout << "warning: library file not copied: " << p << "\n";
    if (!other_targets.empty()) {
      size_t n = 0;
      std::string list;
      for (const auto& [backend, count] : other_targets) {
        n += count;
        list += (list.empty() ? "" : ", ") + backend + " " + std::to_string(count);
      }
      std::cout << n << " of them written for other accelerators (" << list
                << "): checked all the same, their results name the target\n";
    }
  }
  return bundle.size();
}

void print_summary(const std::vector<check::CheckResultRow>& rows) {
  std::map<std::string, int> by_stage, by_class;
  int ok = 0;
  for (const auto& r : rows) {
    if (r.status == "ok") {
      ++ok;
      ++by_stage[r.stage_reached];
    } else {
      ++by_class[r.error_class];
    }
  }
  std::cout << ok << " ok";
  if (!by_stage.empty()) {
    std::cout << " (";
    bool first = true;
    for (const auto& [stage, n] : by_stage) std::cout << (first ? "" : ", ") << n << " to " << stage, first = false;
    std::cout << ")";
  }
  std::cout << ", " << rows.size() - static_cast<size_t>(ok) << " failed";
  if (!by_class.empty()) {
    std::cout << " (";
    bool first = true;
    for (const auto& [c, n] : by_class) std::cout << (first ? "" : ", ") << c << " " << n, first = false;
    std::cout << ")";
  }
  std::cout << "\n";
}

int ingest(const std::string& db, const std::string& file, bool quiet) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error::in(file, "cannot read the results file");
  std::vector<check::CheckResultRow> rows = check::read_check_results(in, file);  // all checked before any write
  auto corpus = Corpus::open(db, Corpus::Access::ReadWrite);
  std::error_code ec;
  fs::path absolute = fs::absolute(file, ec);
  std::string source = ec ? file : absolute.string();
  std::vector<ModulePair> pairs = check::take_module_pairs(rows, source);
  IngestOutcome outcome = store_check_results(*corpus, rows, source);
  check::PairIngestOutcome paired = check::store_pairs(*corpus, pairs);
  if (!outcome.unknown_kernels.empty()) {
    std::cerr << "mine check: " << outcome.unknown_kernels.size()
              << " result(s) name kernels no longer in the corpus (rescanned away); skipped ids:";
    for (size_t i = 0; i < outcome.unknown_kernels.size() && i < 20; ++i) std::cerr << " " << outcome.unknown_kernels[i];
    std::cerr << (outcome.unknown_kernels.size() > 20 ? " ..." : "") << "\n";
  }
  if (!quiet) {
    std::cout << "stored " << outcome.results << " result" << (outcome.results == 1 ? "" : "s");
    if (outcome.configs) std::cout << " and " << outcome.configs << " autotune configs";
    std::cout << " from " << file << ": ";
    print_summary(rows);
    if (!pairs.empty())
      std::cout << "stored " << paired.pairs << " PyTorch/Inductor pair" << (paired.pairs == 1 ? "" : "s") << " ("
                << paired.kernels << " Inductor kernel occurrences in their output code, " << paired.links
                << " links in module_pair_kernels)\n";
    // A Triton port is two rows (first outcome, ported outcome); a CUDA unit is ported before its
    // first compile (toolkit macros, CUB operators): say how the ports went.
    size_t ported = 0, ported_ok = 0;
    for (const auto& r : rows)
      if (r.form == "ported") ++ported, ported_ok += r.status == "ok" ? 1 : 0;
    if (ported)
      std::cout << "checked as ported: " << ported << " (" << ported_ok
                << " ok); ported sources in kernel_ports, the rewrites in check_results (a Triton port's first "
                   "outcome is stored too)\n";
  }
  return kExitOk;
}

int run_check(const std::vector<std::string>& args) {
  po::options_description options("mine check options");
  std::string db, emit_dir, ingest_file, where, arch, stage, devices, harness, keep_dir, shard_text;
  int64_t limit = 0;
  int jobs = 0;
  double timeout = 60;
  options.add_options()
      ("db", po::value(&db)->default_value(default_db_path()), "corpus file")
      ("emit", po::value(&emit_dir), "write a bundle (modules + bundle.json, and lib/ with packages the kernels import that another "
       "repository of the corpus has) for run_bundle.py into this folder")
      ("ingest", po::value(&ingest_file), "record a run_bundle.py results file (JSON Lines) in the corpus")
      ("run", "emit, run kernels/harness/run_bundle.py here, and ingest (needs python3 with triton); CUDA C kernels "
              "with --stage compile are compiled here by nvcc instead ($CUDA_HOME, PATH or /usr/local/cuda)")
      ("where", po::value(&where), "SQL condition on the kernels table choosing what to check (read-only)")
      ("limit", po::value(&limit)->default_value(0), "check at most this many kernels (0 = all)")
      ("include-helpers", "also check alone the @triton.jit functions other kernels call (by default they are "
                          "checked only inside their callers: alone they take blocks no launch can pass)")
      ("include-written-to-fail", "also check the kernels a test suite writes to fail (compiled or launched only inside "
                                  "pytest.raises) and the templates it completes by text substitution (by default "
                                  "they are left out: their results say nothing about a working kernel)")
      ("shard", po::value(&shard_text), "emit or run only shard K/N of the selected kernels (by a stable hash of "
                                       "repo|path|qualname|source_sha256; default $MINE_SHARD)")
      ("jobs,j", po::value(&jobs)->default_value(0), "--run: parallel workers (0 = the harness's default, all cores)")
      ("stage", po::value(&stage)->default_value("run"), "--run: stop after import | compile | load | run")
      ("arch", po::value(&arch), "--run: target, e.g. sm_90 (default: the local GPU, else sm_90)")
      ("devices", po::value(&devices), "--run: GPU indices, e.g. 0,1 (default: all)")
      ("timeout", po::value(&timeout)->default_value(60), "--run: seconds per kernel")
      ("autotune", "--run: time every candidate config and store them in check_configs")
      ("harness", po::value(&harness), "--run: path of run_bundle.py (default: found beside mine)")
      ("keep", po::value(&keep_dir), "--run: emit the bundle and results into this folder and keep them")
      ("quiet,q", "print nothing but errors");
  po::positional_options_description positional;
  po::variables_map vm;
  if (!parse_options(args, options, positional, vm,
                     "mine check (--emit DIR | --ingest results.jsonl | --run) [--where SQL] [--limit N] [--db corpus.db]",
                     "mine check --run --where \"repo LIKE '%unsloth%'\" --jobs 16 --arch sm_90"))
    return kExitOk;
  bool run = vm.count("run") > 0, quiet = vm.count("quiet") > 0;
  int modes = (emit_dir.empty() ? 0 : 1) + (ingest_file.empty() ? 0 : 1) + (run ? 1 : 0);
  if (modes != 1) throw UsageError{"give exactly one of --emit DIR, --ingest FILE or --run"};
  if (!ingest_file.empty() && (vm.count("where") || limit))
    throw UsageError{"--where and --limit choose kernels to emit or run; --ingest takes every row of its file"};
  if (limit < 0) throw UsageError{"--limit must be 0 (all) or more"};
  if (stage != "import" && stage != "compile" && stage != "load" && stage != "run")
    throw UsageError{"unknown --stage '" + stage + "' (import, compile, load or run)"};
  if (!run && (vm.count("arch") || vm.count("devices") || vm.count("harness") || vm.count("keep") ||
               vm.count("autotune") || !vm["jobs"].defaulted() || !vm["stage"].defaulted() ||
               !vm["timeout"].defaulted()))
    throw UsageError{"--jobs, --stage, --arch, --devices, --timeout, --autotune, --harness and --keep go with --run"};
  if (!ingest_file.empty() && vm.count("shard"))
    throw UsageError{"--shard chooses kernels to emit or run; --ingest takes every row of its file"};
  for (const char* choice : {"include-helpers", "include-written-to-fail"})
    if (!ingest_file.empty() && vm.count(choice))
      throw UsageError{std::string("--") + choice + " chooses kernels to emit or run; --ingest takes every row of its file"};
  Selection selection{where, limit, ingest_file.empty() ? ShardSpec::resolve(vm.count("shard") ? &shard_text : nullptr)
                                                        : ShardSpec{},
                      vm.count("include-helpers") > 0, vm.count("include-written-to-fail") > 0};

  if (!ingest_file.empty()) return ingest(db, ingest_file, quiet);
  if (!emit_dir.empty()) {
    emit(db, select(db, selection, quiet), selection, emit_dir, quiet);
    if (!quiet)
      std::cout << "next: python3 kernels/harness/run_bundle.py " << emit_dir << " --out results.jsonl"
                << "  then: mine check --ingest results.jsonl\n";
    return kExitOk;
  }

  // --run. CUDA C kernels are compiled by nvcc right here when no GPU stage is asked for;
  // loading and launching them is the harness's job, as for every Triton kernel.
  std::vector<CheckKernel> direct, bundled;
  bool compile_only = stage == "import" || stage == "compile";
  for (auto& k : select(db, selection, quiet)) (is_cuda(k) && compile_only ? direct : bundled).push_back(std::move(k));

  // Find everything before writing anything.
  std::string script, python, nvcc;
  if (!bundled.empty()) {
    script = check::find_harness(harness);
    bool triton = std::any_of(bundled.begin(), bundled.end(), [](const CheckKernel& k) { return !is_cuda(k); });
    python = triton ? check::find_python_with_triton() : check::find_python();
  }
  if (!direct.empty()) {
    nvcc = check::find_nvcc();
    if (nvcc.empty()) {
      std::cerr << "mine check: nvcc not found (looked in " << check::nvcc_search_description() << "); "
                << direct.size() << " CUDA C kernel" << (direct.size() == 1 ? "" : "s") << " not checked\n";
      direct.clear();
    }
  }
  if (direct.empty() && bundled.empty()) return kExitOk;
  fs::path work;
  if (!keep_dir.empty()) {
    work = keep_dir;
    fs::create_directories(work);
  } else {
    std::string pattern = (fs::temp_directory_path() / "mine-check-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw Error("cannot create a temporary folder in " + fs::temp_directory_path().string());
    work = pattern;
  }
  int rc = kExitOk;
  if (!direct.empty()) {
    check::NvccLimits limits;
    limits.arch = arch.empty() ? "sm_90" : arch;
    limits.timeout_s = timeout;
    fs::path results = work / "results-nvcc.jsonl";
    check::check_with_nvcc(nvcc, direct, limits, jobs, work / "nvcc", results.string(), quiet);
    rc = ingest(db, results.string(), quiet);
  }
  if (!bundled.empty()) {
    fs::path bundle = work / "bundle", results = work / "results.jsonl";
    if (emit(db, std::move(bundled), selection, bundle.string(), quiet) == 0) {  // all were helpers
      if (keep_dir.empty()) fs::remove_all(work);
      return rc;
    }
    std::vector<std::string> argv = {python, script, bundle.string(), "--out", results.string(), "--stage", stage,
                                     "--timeout", std::to_string(timeout)};
    if (jobs > 0) argv.insert(argv.end(), {"--jobs", std::to_string(jobs)});
    if (!arch.empty()) argv.insert(argv.end(), {"--arch", arch});
    if (!devices.empty()) argv.insert(argv.end(), {"--devices", devices});
    if (vm.count("autotune")) argv.push_back("--autotune");
    if (quiet) argv.push_back("--quiet");
    int code = check::run_child(argv);
    // run_bundle.py exits 1 when some kernel failed: that is a result, not an error.
    if ((code != 0 && code != 1) || !fs::exists(results))
      throw Error("run_bundle.py stopped with exit code " + std::to_string(code) + "; bundle kept in " + bundle.string());
    rc = ingest(db, results.string(), quiet);
  }
  if (keep_dir.empty()) fs::remove_all(work);
  return rc;
}

RegisterCommand reg({"check", "compile and run kernels on a GPU (emit a bundle, run the harness, ingest results)",
                     run_check, 60});

}  // namespace
}  // namespace mine::cli
