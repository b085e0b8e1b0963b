#!/usr/bin/env python3
"""Instructions by phase of `mine scan` from callgrind profiles, side by side (bench/results/scan.md).

usage: bench/callgrind_phases.py OUT [OUT ...]
  where each OUT is written by
  valgrind --tool=callgrind --callgrind-out-file=OUT build/mine scan REPO --db /tmp/x.db --quiet --jobs 1

Inclusive counts (a function's callees included) of the outermost call of each phase's function,
read from callgrind_annotate; recursive entries ('2) are skipped. Module loads a closure triggers
count in both the module model and the closures. malloc/free is the allocator's own (self) cost.
"""
import re
import subprocess
import sys
phases = [
 ("total", None),
 ("tree-sitter parse (ts_parser_parse)", r"ts_parser_parse \["),
 ("module model (PythonModule::build, parse included)", r"mine::PythonModule::build\("),
 ("  free names of statements (free_names)", r"mine::free_names\(mine::SyntaxTree const&, TSNode, int\) \["),
 # From issue 21's fifth round the module model asks statement_names for every statement but
 # imports: free_names for definitions, one walk for both sets of an assignment or guarded block
 # (no longer under free_names). Compare this row with the free_names row of older profiles.
 ("  names of module statements, bound and free (statement_names)", r"mine::statement_names\(mine::SyntaxTree const&, TSNode\) \["),
 ("  functions and local scopes (collect_functions)", r"mine::PythonModule::collect_functions\(TSNode, std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&, bool, bool, int\) \["),
 ("closures (ClosureBuilder::run, module loads included)", r"ClosureBuilder::run\(\) \["),
 ("  rendering (ClosureBuilder::render)", r"ClosureBuilder::render\(\) \["),
 ("  global references (global_references)", r"mine::global_references\(mine::SyntaxTree const&, TSNode, int, int\*\) \["),
 ("launch sites (find_launches)", r"mine::find_launches\("),
 ("  launcher evaluations (LauncherValues, top level)", r"mine::LauncherValues::LauncherValues\(mine::PythonModule const&, TSNode, unsigned int"),
 ("  helper evaluations (LauncherValues::helper, outermost)", r"mine::LauncherValues::helper\[abi:cxx11\]\(TSNode, int\) const \["),
 ("Triton: source placeholders (source_placeholders)", r"mine::source_placeholders\[abi:cxx11\]\("),
 ("torch_module inputs (infer_inputs)", r"mine::torch_module::infer_inputs\["),
 ("CUDA: sources parsed (CudaSource::CudaSource, units and headers)", r"mine::CudaSource::CudaSource\(std::"),
 ("CUDA: kernels extracted (CudaSource::extract, header parses included)", r"mine::CudaSource::extract\(mine::CudaKernelSite"),
 ("  implied includes (implied_includes)", r"implied_includes\(std::"),
 ("CUDA: build defines (build_defines_of, module loads included)", r"mine::build_defines_of\("),
 ("store while extracting (RepoWriter::add)", r"mine::RepoWriter::add\(mine::ScannedFile( const&|&&)\) \["),
 ("store at commit (RepoWriter::commit)", r"mine::RepoWriter::commit\(\) \["),
 ("  SQLite (sqlite3_step, all)", r"sqlite3_step \["),
 ("SHA-256 (SHA256_Update, all)", r"SHA256_Update \["),
 ("blob reads (git_odb_read)", r"git_odb_read \["),
 ("malloc/free (glibc or mimalloc, self)", "ALLOC"),
]
def load(f):
    out = subprocess.run(["callgrind_annotate","--inclusive=yes","--threshold=100",f],capture_output=True,text=True).stdout
    lines = out.split('\n')
    tot = None
    for l in lines:
        if 'PROGRAM TOTALS' in l: tot=int(l.split()[0].replace(',',''))
    selfout = subprocess.run(["callgrind_annotate","--threshold=100",f],capture_output=True,text=True).stdout
    return tot, lines, selfout.split('\n')
def val(data, pat):
    tot, lines, selflines = data
    if pat is None: return tot
    if pat == "ALLOC":
        s=0
        for l in selflines:
            if re.search(r"malloc\.c:|arena\.c:|libmimalloc|operator new\(unsigned long\) \[/usr/lib/x86_64-linux-gnu/libstdc\+\+|operator delete\(void\*", l):
                try: s+=int(l.split()[0].replace(',',''))
                except: pass
        return s
    best=0
    for l in lines:
        if "'2" in l: continue
        if re.search(pat,l):
            v=int(l.split()[0].replace(',',''))
            best=max(best,v)
    return best
files=sys.argv[1:]
datas=[load(f) for f in files]
print("| phase | " + " | ".join(files) + " |")
print("|---|" + "---:|"*len(files))
for name,pat in phases:
    print("| %s | %s |" % (name, " | ".join("%.2f G" % (val(d,pat)/1e9) for d in datas)))
