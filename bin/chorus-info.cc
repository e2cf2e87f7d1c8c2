// chorus-info: what this Chorus build is and every CHORUS_* tunable.
//
//   chorus-info            everything
//   chorus-info --params   the tunables table only
//   chorus-info --gpu      CUDA support: device, transport, and the matrix of
//                          operation x call form x memory kind -> native / staged
//   chorus-info --version  one line
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <hwloc.h>

#include "chorus_config.h"
#include "coll/registry.h"
#include "core/params.h"
#include "gpu/gpu.h"
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
  fmt::print("  CUDA toolkit     {} at build time (driver loaded at run time; see GPU support)\n",
             CHORUS_HAVE_CUDA ? "found" : "not found");
  fmt::print("  MPI_TAG_UB       {}, max ranks per communicator {}, context ids {}\n",
             chorus::tag::kTagUB, chorus::tag::kMaxRanks, chorus::tag::kMaxContexts);
}

void print_params() {
  using namespace chorus::params;
  fmt::print("\nTunables (environment variables):\n");
  std::size_t width = 4;  // the longest name
  for (int i = 0; i < count(); ++i) width = std::max(width, std::string_view(info(static_cast<Id>(i)).env).size());
  fmt::print("  {:<{}} {:<7} {:<9} {:<12} {}\n", "name", width, "type", "default", "current", "doc");
  for (int i = 0; i < count(); ++i) {
    auto id = static_cast<Id>(i);
    const Info& row = info(id);
    const Value& v = value(id);
    std::string cur = v.text.empty() ? "\"\"" : v.text;
    if (v.from_env) cur += " (env)";
    std::string doc(row.doc);
    if (!row.choices.empty()) doc += fmt::format(" [{}]", row.choices);
    fmt::print("  {:<{}} {:<7} {:<9} {:<12} {}\n", row.env, width, type_name(row.type),
               row.def.empty() ? "\"\"" : row.def, cur, doc);
  }
}

void print_algorithms() {
  using namespace chorus::coll;
  fmt::print("\nCollective algorithms (force one with CHORUS_<COLL>_ALGO=<name>; the first listed is\n"
             "the catalog default, the cheapest estimate wins otherwise; α is per message, and between\n"
             "nodes, in allreduce, bcast, reduce, allgather(v) and reduce_scatter(_block), a message from\n"
             "UCX's rendezvous threshold up adds the handshake MPI_Init measured):\n");
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

// GPU support, as this process finds it: the same checks MPI_Init makes (the CUDA
// driver and a device: lib/gpu; whether UCX moves CUDA memory: its context's
// memory types, the test lib/p2p makes to choose between native and staged).
void print_gpu() {
  using chorus::gpu::enabled;
  chorus::gpu::init(0, 1);
  chorus::ucx::Context ctx;
  std::uint64_t types = chorus::ok(ctx.init(false, 1)) ? ctx.memory_types() : 0;
  bool ucx_cuda = (types & (1ull << UCS_MEMORY_TYPE_CUDA)) != 0;

  fmt::print("\nGPU support:\n");
  if (enabled())
    fmt::print("  CUDA device      {}\n", chorus::gpu::describe());
  else
    fmt::print("  CUDA device      none usable: {}\n", chorus::gpu::host_only_reason());
  fmt::print("  UCX CUDA memory  {}\n",
             ucx_cuda ? "yes: device buffers go to UCX as they are"
                      : "no (this UCX has no CUDA transport): device buffers are staged through "
                        "pinned host memory");
  if (!ucx_cuda)
    fmt::print("  staging chunk    {} B (CHORUS_GPU_CHUNK_BYTES)\n", chorus::gpu::chunk_bytes());
  if (enabled())
    fmt::print("  device reduction {}\n", chorus::gpu::kernels_loaded()
                   ? "CUDA kernels (predefined ops); user-defined ops staged to the host"
                   : "on the host: CUDA kernels unavailable (" +
                         chorus::gpu::kernels_unavailable_reason() + ")");
  fmt::print("  queries          MPIX_Query_cuda_support() = {}, mpi_memory_alloc_kinds = {}\n",
             enabled() ? 1 : 0, enabled() ? "mpi,system,cuda:device,cuda:host,cuda:managed" : "mpi,system");

  // Rows: operations; `enqueue`: it has an MPIX_*_enqueue form (stream-ordered);
  // `user_op`: a reduction with a user-defined MPI_Op (device data reduced on the host);
  // `rma`: one-sided origin and result buffers (through the operation's message, so
  // staged; MPI_R* is the non-blocking form, and there is no persistent one).
  struct Row {
    const char* name;
    bool enqueue;
    bool user_op;
    bool rma = false;
  };
  static const Row kRows[] = {
      {"send/recv", true, false},          {"bcast", true, false},
      {"reduce", true, false},             {"allreduce", true, false},
      {"allgather", true, false},          {"reduce_scatter", true, false},
      {"reduce_scatter_block", true, false}, {"allgatherv", false, false},
      {"gather(v)", false, false},         {"scatter(v)", false, false},
      {"alltoall(v,w)", false, false},     {"scan/exscan", false, false},
      {"neighbor_*", false, false},        {"reductions, user op", true, true},
      {"put/get/acc (origin)", false, true, true},
  };
  static const char* kForms[] = {"block", "nonblk", "persist", "stream"};
  static const char* kKinds[] = {"host", "device", "managed"};
  fmt::print("\n  {:<22}", "operation");
  for (const char* k : kKinds) fmt::print("| {:<32}", k);
  fmt::print("\n  {:<22}", "");
  for (int k = 0; k < 3; ++k) {
    fmt::print("| ");
    for (const char* f : kForms) fmt::print("{:<8}", f);
  }
  fmt::print("\n");
  for (const Row& r : kRows) {
    fmt::print("  {:<22}", r.name);
    for (int k = 0; k < 3; ++k) {
      fmt::print("| ");
      for (int f = 0; f < 4; ++f) {
        const char* cell;
        if ((f == 3 && !r.enqueue) || (f == 2 && r.rma)) cell = "-";
        else if (k == 0) cell = "native";
        else if (!enabled()) cell = "n/a";
        else if (r.user_op) cell = "staged";
        else cell = ucx_cuda ? "native" : "staged";  // lib/p2p: native iff UCX has CUDA
        fmt::print("{:<8}", cell);
      }
    }
    fmt::print("\n");
  }
  fmt::print("  native: the transport moves the buffer where it lies; staged: through pinned host\n"
             "  memory (copies overlap the transfer); n/a: no usable CUDA device in this process;\n"
             "  stream: MPIX_*_enqueue on a CUDA stream (\"-\": the operation has no such form).\n"
             "  One-sided windows hold host memory (MPI_Win_create over device memory: MPI_ERR_BASE).\n");
  chorus::gpu::finalize();
}

void usage(FILE* f) {
  std::fprintf(f, "usage: chorus-info [--params | --algorithms | --gpu | --version | --help]\n");
}

}  // namespace

int main(int argc, char** argv) {
  bool params_only = false, algos_only = false, gpu_only = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--params") || !std::strcmp(argv[i], "-p")) {
      params_only = true;
    } else if (!std::strcmp(argv[i], "--algorithms") || !std::strcmp(argv[i], "-a")) {
      algos_only = true;
    } else if (!std::strcmp(argv[i], "--gpu") || !std::strcmp(argv[i], "-g")) {
      gpu_only = true;
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
  if (gpu_only) {
    print_gpu();
    return 0;
  }
  if (algos_only) {
    print_algorithms();
    return 0;
  }
  if (!params_only) {
    print_build();
    print_gpu();
  }
  print_params();
  if (!params_only) print_algorithms();
  return 0;
}
