// chorus-info: what this Chorus build is and every CHORUS_* tunable.
//
//   chorus-info            everything
//   chorus-info --params   the tunables table only
//   chorus-info --version  one line
#include <cstdio>
#include <cstring>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <hwloc.h>

#include "chorus_config.h"
#include "coll/registry.h"
#include "core/params.h"
#include "launcher/pmix.h"
#include "p2p/tag.h"
#include "ucx/ucx.h"

namespace {

void print_build() {
  fmt::print("Chorus {}\n", CHORUS_VERSION);
  fmt::print("  build            {} ({})\n", CHORUS_BUILDTYPE, CHORUS_CXX);
  fmt::print("  MPI standard     {}.{} (MPICH ABI, libmpi.so.12 / libmpich.so.12)\n", 4, 0);
  fmt::print("  UCX              {} (built against {})\n", chorus::ucx::version(), CHORUS_UCX_VERSION);
  chorus::ucx::Context ctx;
  if (chorus::ok(ctx.init(false, 1)))
    fmt::print("  UCX transports   {}\n", fmt::join(chorus::ucx::resources(ctx), ", "));
  else
    fmt::print("  UCX transports   (UCX context could not start)\n");
  fmt::print("  PMIx             {}\n", chorus::launcher::version());
  fmt::print("  hwloc            {}\n", CHORUS_HWLOC_VERSION);
  fmt::print("  CUDA toolkit     {} at build time; device buffers: not supported by this version\n",
             CHORUS_HAVE_CUDA ? "found" : "not found");
  fmt::print("  MPI_TAG_UB       {}, max ranks per communicator {}, context ids {}\n",
             chorus::tag::kTagUB, chorus::tag::kMaxRanks, chorus::tag::kMaxContexts);
}

void print_params() {
  using namespace chorus::params;
  fmt::print("\nTunables (environment variables):\n");
  fmt::print("  {:<26} {:<7} {:<9} {:<12} {}\n", "name", "type", "default", "current", "doc");
  for (int i = 0; i < count(); ++i) {
    auto id = static_cast<Id>(i);
    const Info& row = info(id);
    const Value& v = value(id);
    std::string cur = v.text.empty() ? "\"\"" : v.text;
    if (v.from_env) cur += " (env)";
    std::string doc(row.doc);
    if (!row.choices.empty()) doc += fmt::format(" [{}]", row.choices);
    fmt::print("  {:<26} {:<7} {:<9} {:<12} {}\n", row.env, type_name(row.type),
               row.def.empty() ? "\"\"" : row.def, cur, doc);
  }
}

void print_algorithms() {
  using namespace chorus::coll;
  fmt::print("\nCollective algorithms (force one with CHORUS_<COLL>_ALGO=<name>; the first listed is\n"
             "the catalog default, the cheapest estimate wins otherwise):\n");
  for (int k = 0; k < static_cast<int>(CollKind::Count); ++k) {
    auto kind = static_cast<CollKind>(k);
    fmt::print("  {}\n", kind_name(kind));
    for (const AlgoInfo& a : algorithms(kind)) {
      fmt::print("    {:<20} {}\n", a.name, a.doc);
      fmt::print("    {:<20} cost: {}\n", "", a.cost_formula);
      fmt::print("    {:<20} restrictions: {}\n", "", a.restrictions);
    }
  }
}

void usage(FILE* f) {
  std::fprintf(f, "usage: chorus-info [--params | --algorithms | --version | --help]\n");
}

}  // namespace

int main(int argc, char** argv) {
  bool params_only = false, algos_only = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--params") || !std::strcmp(argv[i], "-p")) {
      params_only = true;
    } else if (!std::strcmp(argv[i], "--algorithms") || !std::strcmp(argv[i], "-a")) {
      algos_only = true;
    } else if (!std::strcmp(argv[i], "--version") || !std::strcmp(argv[i], "-V")) {
      fmt::print("chorus-info (Chorus) {}\n", CHORUS_VERSION);
      return 0;
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    } else {
      std::fprintf(stderr, "chorus-info: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
  }
  if (algos_only) {
    print_algorithms();
    return 0;
  }
  if (!params_only) print_build();
  print_params();
  if (!params_only) print_algorithms();
  return 0;
}
