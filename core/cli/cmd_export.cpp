#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "core/cli/command.h"
#include "core/cli/dedup_run.h"
#include "core/cli/export_pairs.h"
#include "core/cli/options.h"
#include "core/dedup/representative.h"
#include "core/dedup/signature_batch.h"
#include "core/error.h"
#include "core/export/atomic_file.h"
#include "core/export/chat_prompt.h"
#include "core/export/decontamination.h"
#include "core/export/kernel_form.h"
#include "core/export/kernel_language.h"
#include "core/export/train_test_split.h"
#include "corpus/corpus.h"
#include "corpus/dedup_store.h"
#include "corpus/launcher_store.h"
#include "corpus/port_store.h"

namespace mine::cli {
namespace {

// SPDX ids of licenses that allow use, modification and redistribution with at most attribution:
// the permissive set of The Stack's license filter, plus public-domain dedications.
const std::set<std::string> kPermissive = {
    "MIT",       "MIT-0",      "Apache-2.0", "BSD-2-Clause", "BSD-3-Clause", "BSD-3-Clause-Clear",
    "0BSD",      "ISC",        "Unlicense",  "CC0-1.0",      "Zlib",         "BSL-1.0",
    "Python-2.0", "PSF-2.0",   "NCSA",       "UPL-1.0",      "MIT-CMU",      "X11",
    "PostgreSQL", "WTFPL",     "CC-BY-4.0",  "AFL-3.0",      "ECL-2.0",      "Artistic-2.0"};

std::string split_path(const std::string& out, const std::string& split) {
  std::filesystem::path p(out);
  std::filesystem::path name = p.stem();
  name += "." + split;
  name += p.extension();
  return (p.parent_path() / name).string();
}

// Fields in a reading order: the code, then where it came from, then what is known about it.
nlohmann::ordered_json jsonl_record(const ExportKernel& k, const FormedKernel& code) {
  nlohmann::ordered_json r = nlohmann::ordered_json::object();
  r["kernel_id"] = k.id;
  r["code"] = code.code;
  r["form"] = code.form;
  r["repo"] = k.repo;
  r["commit"] = k.commit_id.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(k.commit_id);
  r["path"] = k.path;
  r["start_line"] = k.start_line;
  r["end_line"] = k.end_line;
  r["license"] = k.license.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(k.license);
  r["stars"] = k.stars ? nlohmann::ordered_json(*k.stars) : nlohmann::ordered_json(nullptr);
  r["plugin"] = k.plugin;
  r["language"] = kernel_language(k.plugin, k.meta);
  r["kernel_name"] = k.name;
  r["qualname"] = k.qualname;
  r["self_contained"] = k.self_contained;
  // Paths come from hostile trees and may hold invalid UTF-8: replaced, never an exception.
  r["dependencies"] = nlohmann::ordered_json::parse(
      k.dependencies.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  r["check_status"] = k.check_status ? nlohmann::ordered_json(*k.check_status) : nlohmann::ordered_json(nullptr);
  r["cluster_id"] = k.near_cluster ? nlohmann::ordered_json(*k.near_cluster) : nlohmann::ordered_json(nullptr);
  return r;
}

nlohmann::ordered_json chat_record(const ExportKernel& k, const FormedKernel& code, const KernelLauncher* launcher) {
  PromptFacts facts;
  if (launcher) {
    facts.launcher = launcher->name.substr(launcher->name.rfind('.') + 1);
    facts.launcher_source = launcher->source;
  }
  facts.plugin = k.plugin;
  facts.language = kernel_language(k.plugin, k.meta);
  facts.name = k.name;
  facts.source = k.source;
  facts.meta = k.meta;
  for (const auto& d : k.dependencies) {
    std::string kind = d.value("kind", std::string());
    if (kind == "function" || kind == "jit_function" || kind == "device_function") facts.helpers.push_back(d.value("name", std::string()));
  }
  nlohmann::ordered_json user{{"role", "user"}, {"content", chat_prompt(facts)}};
  nlohmann::ordered_json assistant{{"role", "assistant"}, {"content", fenced(code.code, facts.language)}};
  return nlohmann::ordered_json{{"messages", nlohmann::ordered_json::array({user, assistant})}};
}

// Keeps one kernel per group of `cluster_of` among `kept`: the cluster's representative when it
// is among them, else the best remaining copy by the same rule (the representative may have been
// filtered out by --where or --license). Returns how many were dropped.
size_t keep_one_per_cluster(std::vector<const ExportKernel*>& kept,
                            std::optional<int64_t> ExportKernel::*cluster_of) {
  std::map<int64_t, const ExportKernel*> best;
  auto provenance = [](const ExportKernel* k) {
    return dedup::CopyProvenance{k->id, k->stars.value_or(-1), ""};
  };
  for (const ExportKernel* k : kept) {
    int64_t c = (k->*cluster_of).value_or(k->id);
    auto [it, fresh] = best.try_emplace(c, k);
    if (fresh) continue;
    bool is_rep = k->id == c, was_rep = it->second->id == c;
    if (is_rep || (!was_rep && dedup::better_representative(provenance(k), provenance(it->second)))) it->second = k;
  }
  std::vector<const ExportKernel*> out;
  for (const ExportKernel* k : kept)
    if (best[(k->*cluster_of).value_or(k->id)] == k) out.push_back(k);
  size_t dropped = kept.size() - out.size();
  kept = std::move(out);
  return dropped;
}

// The torch_module plugin's records are PyTorch modules, not kernels: they leave through
// --format pairs, paired with the kernels Inductor made of them.
std::vector<ExportKernel> without_modules(std::vector<ExportKernel> kernels) {
  std::erase_if(kernels, [](const ExportKernel& k) { return k.plugin == "torch_module"; });
  return kernels;
}

int run_export(const std::vector<std::string>& args) {
  po::options_description options("mine export options");
  std::string db, out, format, where, dedup_mode, license, split_by, column, form_text, language;
  std::vector<std::string> splits, benchmarks;
  int jobs = 0;
  options.add_options()
      ("db", po::value(&db)->default_value(default_db_path()), "corpus file")
      ("out,o", po::value(&out), "output file (with --split, other splits go beside it as NAME.SPLIT.EXT)")
      ("format,f", po::value(&format)->default_value("jsonl"),
       "torchtune | jsonl | chat, or pairs | pairs-chat: the PyTorch/Inductor pairs of `mine check` (module_pairs)")
      ("where", po::value(&where), "SQL condition on kernels (alias k), e.g. \"k.plugin = 'triton'\"")
      ("dedup", po::value(&dedup_mode)->default_value("near"),
       "none | exact (identical after normalization, including renamed locals) | near (MinHash clusters too)")
      ("license", po::value(&license)->default_value("any"), "permissive | any")
      ("language", po::value(&language)->default_value("any"),
       "python | cuda | any: only kernels whose standalone is in this language (CUDA C++ from .cu files "
       "and from Python strings is cuda; Triton, Inductor and numba are python)")
      ("split", po::value(&splits)->composing(), "NAME=FRACTION, e.g. test=0.05 (repeatable); the rest is train")
      ("split-by", po::value(&split_by)->default_value("repo"), "repo (near-duplicate clusters never straddle splits either)")
      ("column", po::value(&column)->default_value("text"), "torchtune: the field that holds the code")
      ("form", po::value(&form_text)->default_value("original"),
       "original | kernel-only (Inductor kernels without their torch version's header and heuristics) | "
       "ported (onto the Triton of the newest check, where a port exists)")
      ("decontaminate", po::value(&benchmarks)->multitoken()->composing(),
       "benchmark files (.py, .json, .jsonl): drop kernels that are near duplicates of their code")
      ("with-launcher", "write each kernel together with the function of its repository that launches it "
       "(kernel_launches) and that function's closure: a runnable unit; chat prompts then ask for that "
       "function. Kernels without a launcher are written as they are")
      ("include-written-to-fail", "keep the kernels a test suite writes to fail (used only inside pytest.raises) and "
                                  "the templates it completes by text substitution, left out by default")
      ("jobs,j", po::value(&jobs)->default_value(0), "threads for decontamination and dedup (0 = all cores)")
      ("no-dedup-update", "fail, as before, when selected kernels have not been through `mine dedup`, instead of "
                          "running its incremental update first")
      ("quiet,q", "print nothing but errors");
  po::variables_map vm;
  if (!parse_options(args, options, {}, vm,
                     "mine export --out FILE --format torchtune|jsonl|chat [--where SQL] [--dedup none|exact|near] "
                     "[--license permissive|any] [--language python|cuda] [--split test=0.05 --split-by repo] [--column text] "
                     "[--decontaminate FILE...] [--no-dedup-update]",
                     "mine export --out triton.json --format torchtune --license permissive "
                     "--split test=0.05 --decontaminate kernelbench.jsonl"))
    return kExitOk;
  if (out.empty()) throw UsageError{"give --out FILE"};
  bool pairs = format == "pairs" || format == "pairs-chat";
  if (format != "torchtune" && format != "jsonl" && format != "chat" && !pairs)
    throw UsageError{"unknown --format '" + format + "' (use torchtune, jsonl, chat, pairs or pairs-chat)"};
  if (pairs && (vm.count("where") || !vm["language"].defaulted() || !vm["form"].defaulted() || vm.count("with-launcher")))
    throw UsageError{"--where, --language, --form and --with-launcher choose kernels; --format " + format +
                     " writes module pairs"};
  if (dedup_mode != "none" && dedup_mode != "exact" && dedup_mode != "near")
    throw UsageError{"unknown --dedup '" + dedup_mode + "' (use none, exact or near)"};
  if (language != "any" && !is_known_language(language))
    throw UsageError{"unknown --language '" + language + "' (use python, cuda or any)"};
  if (license != "permissive" && license != "any") throw UsageError{"unknown --license '" + license + "' (use permissive or any)"};
  if (split_by != "repo") throw UsageError{"--split-by: only 'repo' is supported"};
  if (column.empty()) throw UsageError{"--column must name a field"};
  KernelForm form;
  try {
    form = parse_kernel_form(form_text);
  } catch (const Error& e) {
    throw UsageError{std::string("--form: ") + e.what()};
  }
  std::vector<SplitSpec> specs;
  std::set<std::string> split_names;
  for (const auto& s : splits) {
    try {
      specs.push_back(parse_split(s));
    } catch (const Error& e) {
      throw UsageError{e.what()};
    }
    if (!split_names.insert(specs.back().name).second) throw UsageError{"--split: '" + specs.back().name + "' twice"};
  }
  bool quiet = vm.count("quiet") > 0;
  int threads = jobs > 0 ? jobs : dedup::default_threads();
  if (pairs) {
    PairExport p{db, out, format == "pairs-chat", license == "permissive", &kPermissive, specs, benchmarks, threads, quiet};
    return export_pairs(p);
  }

  auto corpus = Corpus::open(db, Corpus::Access::ReadOnly);
  std::vector<ExportKernel> all = without_modules(export_kernels(*corpus, where));
  // Kernels never hashed cannot be deduplicated: bring the corpus up to date the way `mine dedup`
  // does (only new kernels are hashed, with the parameters of the last run), then read again.
  bool needs_clusters = dedup_mode != "none" || !benchmarks.empty();
  size_t unhashed = 0;
  for (const auto& k : all) unhashed += !k.near_cluster.has_value();
  std::optional<DedupOutcome> dedup_update;
  if (needs_clusters && unhashed > 0 && !vm.count("no-dedup-update")) {
    corpus.reset();
    auto writable = Corpus::open(db, Corpus::Access::ReadWrite);
    DedupSettings settings = last_dedup_settings(*writable).value_or(DedupSettings{});
    settings.threads = threads;
    dedup_update = run_incremental_dedup(*writable, settings);
    writable.reset();
    corpus = Corpus::open(db, Corpus::Access::ReadOnly);
    all = without_modules(export_kernels(*corpus, where));
  }
  std::map<std::string, size_t> by_language;
  if (language != "any") {
    std::vector<ExportKernel> chosen;
    for (auto& k : all)
      if (kernel_language(k.plugin, k.meta) == language) chosen.push_back(std::move(k));
    all = std::move(chosen);
  }
  // Kernels a test suite writes to fail or completes by text substitution (plugins/triton/
  // written_to_fail.h) are no examples of working code.
  size_t written_to_fail = 0;
  if (!vm.count("include-written-to-fail"))
    written_to_fail = std::erase_if(all, [](const ExportKernel& k) {
      return k.meta.contains("source_placeholders") || k.meta.value("expects_error", false);
    });
  std::map<int64_t, std::string> ports = form == KernelForm::Ported ? current_ports(*corpus) : std::map<int64_t, std::string>{};
  bool with_launcher = vm.count("with-launcher") > 0;
  std::map<int64_t, KernelLauncher> launchers = with_launcher ? kernel_launchers(*corpus) : std::map<int64_t, KernelLauncher>{};
  size_t with_launchers = 0;

  // 1. License.
  std::map<std::string, size_t> by_license;
  std::vector<const ExportKernel*> kept;
  size_t license_removed = 0;
  for (const auto& k : all) {
    by_license[k.license.empty() ? "unknown" : k.license]++;
    if (license == "permissive" && !kPermissive.count(k.license)) {
      ++license_removed;
      continue;
    }
    kept.push_back(&k);
  }

  // 2. Duplicates.
  size_t not_deduped = 0;
  for (const ExportKernel* k : kept) not_deduped += !k->near_cluster.has_value();
  if (needs_clusters && not_deduped > 0)
    throw Error(std::to_string(not_deduped) + " of the selected kernels have not been through `mine dedup` yet; run `mine dedup --db " +
                db + "` first (it only hashes what is new), or export without --no-dedup-update");
  size_t exact_removed = 0, renamed_removed = 0, near_removed = 0;
  if (dedup_mode != "none") {
    std::vector<const ExportKernel*> probe = kept;
    exact_removed = keep_one_per_cluster(probe, &ExportKernel::exact_cluster);
    renamed_removed = keep_one_per_cluster(kept, &ExportKernel::alpha_cluster) - exact_removed;
    if (dedup_mode == "near") near_removed = keep_one_per_cluster(kept, &ExportKernel::near_cluster);
  }

  // 3. Decontamination: a kernel goes if its standalone or its own definition is near any item.
  size_t contaminated = 0;
  std::map<std::string, size_t> contaminated_by_file;
  if (!benchmarks.empty()) {
    std::vector<BenchmarkItem> items;
    for (const auto& f : benchmarks) {
      auto more = read_benchmark_file(f);
      items.insert(items.end(), more.begin(), more.end());
    }
    dedup::MinHasher hasher;  // the parameters `mine dedup` stores signatures with by default
    size_t perms = static_cast<size_t>(hasher.params().perms);
    Decontaminator decon(std::move(items), hasher, 0.85, threads);
    dedup::SignedBatch sources = dedup::sign_documents(
        kept.size(), [&](size_t i) { return std::string_view(kept[i]->source); }, hasher, threads, false);
    std::vector<const ExportKernel*> clean;
    for (size_t i = 0; i < kept.size(); ++i) {
      std::optional<size_t> hit;
      if (kept[i]->minhash.size() == perms) hit = decon.match(kept[i]->minhash.data());
      if (!hit) hit = decon.match(sources.signatures.row(i));
      if (hit) {
        ++contaminated;
        contaminated_by_file[decon.items()[*hit].file]++;
      } else {
        clean.push_back(kept[i]);
      }
    }
    kept = std::move(clean);
  }

  // 4. Splits.
  std::vector<std::string> repos;
  std::vector<int64_t> clusters;
  for (const ExportKernel* k : kept) {
    repos.push_back(k->repo);
    clusters.push_back(k->near_cluster.value_or(-1));
  }
  std::vector<int> split_of = specs.empty() ? std::vector<int>(kept.size(), 0) : assign_splits(repos, clusters, specs);

  // 5. Write every split to its temporary file; rename them all only when all are complete.
  std::vector<std::string> names{"train"};
  for (const auto& s : specs) names.push_back(s.name);
  std::vector<std::unique_ptr<AtomicFile>> files;
  std::vector<size_t> written(names.size(), 0);
  for (size_t s = 0; s < names.size(); ++s)
    files.push_back(std::make_unique<AtomicFile>(s == 0 ? out : split_path(out, names[s])));
  std::vector<bool> first(names.size(), true);
  std::map<std::string, size_t> written_forms;
  if (format == "torchtune")
    for (auto& f : files) f->write("[");
  for (size_t i = 0; i < kept.size(); ++i) {
    const ExportKernel& k = *kept[i];
    size_t s = static_cast<size_t>(split_of[i]);
    FormedKernel code = kernel_in_form(form, k.plugin, k.name, k.id, k.standalone, ports);
    // The launcher's closure holds the kernel as stored: only the original form goes with it.
    auto launcher = code.form == "original" ? launchers.find(k.id) : launchers.end();
    const KernelLauncher* with = launcher != launchers.end() ? &launcher->second : nullptr;
    if (with) {
      // A launcher handed its kernel by its callers (`def run(kernel, x)`) does not reach it:
      // the kernel's own module goes first.
      bool reached = with->standalone.find("def " + k.name + "(") != std::string::npos;
      code.code = reached ? with->standalone : code.code + "\n\n" + with->standalone;
      ++with_launchers;
    }
    ++written_forms[code.form];
    nlohmann::ordered_json record;
    std::string code_language = kernel_language(k.plugin, k.meta);
    by_language[code_language]++;
    if (format == "torchtune") {
      record = nlohmann::ordered_json{{column, fenced(code.code, code_language)}};
    } else if (format == "jsonl") {
      record = jsonl_record(k, code);
      if (with_launcher) record["launcher"] = with ? nlohmann::ordered_json(with->name) : nlohmann::ordered_json(nullptr);
    } else {
      record = chat_record(k, code, with);
    }
    std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (format == "torchtune") {
      files[s]->write(first[s] ? "\n" : ",\n");
      files[s]->write(line);
    } else {
      files[s]->write(line + "\n");
    }
    first[s] = false;
    ++written[s];
  }
  if (format == "torchtune")
    for (auto& f : files) f->write("\n]\n");
  for (auto& f : files) f->commit();

  if (!quiet) {
    if (dedup_update)
      std::cout << "dedup: " << unhashed << " selected kernels had not been through `mine dedup`: ran its incremental "
                << "update first (" << dedup_update->run.hashed << " kernels hashed, " << dedup_update->run.kernels
                << " clustered; --no-dedup-update to fail instead)\n";
    std::cout << "export: " << all.size() << " kernels selected" << (where.empty() ? "" : " by --where")
              << (language == "any" ? "" : " in " + language) << "\n";
    std::cout << "  by license:";
    for (const auto& [l, n] : by_license) std::cout << " " << l << " " << n << ";";
    std::cout << "\n";
    if (written_to_fail)
      std::cout << "  left out, written to fail or completed by a test's text substitution: " << written_to_fail
                << " (--include-written-to-fail keeps them)\n";
    if (license == "permissive") std::cout << "  removed, license not permissive or unknown: " << license_removed << "\n";
    if (dedup_mode != "none") {
      std::cout << "  removed as exact duplicates: " << (exact_removed + renamed_removed) << " (" << renamed_removed
                << " of them only after renaming locals)\n";
      if (dedup_mode == "near") std::cout << "  removed as near duplicates: " << near_removed << "\n";
    }
    if (!benchmarks.empty()) {
      std::cout << "  removed as near duplicates of benchmark items: " << contaminated << "\n";
      for (const auto& [f, n] : contaminated_by_file) std::cout << "    " << f << ": " << n << "\n";
    }
    if (with_launcher)
      std::cout << "  written with their launcher: " << with_launchers << " (the others have none in kernel_launches)\n";
    if (form != KernelForm::Original) {
      std::cout << "  forms written:";
      for (const auto& [f, n] : written_forms) std::cout << " " << f << " " << n << ";";
      std::cout << "\n";
    }
    std::cout << "  written by language:";
    for (const auto& [l, n] : by_language) std::cout << " " << l << " " << n << ";";
    std::cout << "\n";
    for (size_t s = 0; s < names.size(); ++s)
      std::cout << "  written " << names[s] << ": " << written[s] << " -> " << files[s]->path()
                << (written[s] == 0 && !kept.empty() ? "  (empty: splits take whole repositories)" : "") << "\n";
  }
  return kExitOk;
}

RegisterCommand reg({"export", "write deduplicated training data (torchtune, jsonl, chat)", run_export, 60});

}  // namespace
}  // namespace mine::cli
