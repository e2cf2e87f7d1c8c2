// MPI_Info objects: ordered (key, value) lists. A handle is make(Direct, Info,
// slot); MPI_INFO_ENV is a builtin, read-only object describing how the process
// was started. Info calls work before MPI_Init and after MPI_Finalize too.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <memory>

#include "core/handle.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"
#include "topo/topo.h"

namespace chorus::mpi {
namespace {

std::vector<std::unique_ptr<InfoPairs>> g_infos;
InfoPairs g_env;
bool g_env_ready = false;

// MPI_INFO_ENV (MPI-4 9.4.1): command, argv, maxprocs, host, wdir, thread_level.
const InfoPairs& env_info() {
  if (g_env_ready) return g_env;
  g_env_ready = true;
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (std::size_t p = 0; p < all.size();) {
    std::size_t e = all.find('\0', p);
    if (e == std::string::npos) e = all.size();
    args.push_back(all.substr(p, e - p));
    p = e + 1;
  }
  if (!args.empty()) {
    g_env.emplace_back("command", args[0]);
    std::string rest;
    for (std::size_t i = 1; i < args.size(); ++i) rest += (i > 1 ? " " : "") + args[i];
    g_env.emplace_back("argv", rest);
  }
  g_env.emplace_back("maxprocs", std::to_string(g_phase == Phase::Running ? world().size : 1));
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) g_env.emplace_back("host", host);
  char cwd[4096] = {};
  if (getcwd(cwd, sizeof cwd - 1)) g_env.emplace_back("wdir", cwd);
  static const char* kLevels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                                  "MPI_THREAD_MULTIPLE"};
  g_env.emplace_back("thread_level", kLevels[std::clamp(g_thread_level, 0, 3)]);
  return g_env;
}

InfoPairs* lookup(MPI_Info info) {
  int h = static_cast<int>(info);
  if (!handle::is(h, handle::Direct, handle::Info)) return nullptr;
  auto i = static_cast<std::size_t>(handle::index(h));
  return i < g_infos.size() ? g_infos[i].get() : nullptr;
}

// Resolve a handle for reading (MPI_INFO_ENV allowed) or writing (not allowed).
int resolve(const char* call, MPI_Info info, InfoPairs** out, bool write) {
  if (info == MPI_INFO_ENV) {
    if (write) return fail(nullptr, MPI_ERR_INFO, "{}: info is MPI_INFO_ENV, which is read-only", call);
    *out = const_cast<InfoPairs*>(&env_info());
    return MPI_SUCCESS;
  }
  InfoPairs* p = lookup(info);
  if (!p) {
    if (info == MPI_INFO_NULL) return fail(nullptr, MPI_ERR_INFO, "{}: info is MPI_INFO_NULL", call);
    return fail(nullptr, MPI_ERR_INFO, "{}: invalid info handle 0x{:x}", call, static_cast<unsigned>(info));
  }
  *out = p;
  return MPI_SUCCESS;
}

int check_key(const char* call, const char* key) {
  if (!key) return fail(nullptr, MPI_ERR_INFO_KEY, "{}: key is NULL", call);
  std::size_t n = strnlen(key, MPI_MAX_INFO_KEY + 1);
  if (n == 0) return fail(nullptr, MPI_ERR_INFO_KEY, "{}: key is empty", call);
  if (n > MPI_MAX_INFO_KEY)
    return fail(nullptr, MPI_ERR_INFO_KEY, "{}: key is longer than MPI_MAX_INFO_KEY ({})", call,
                MPI_MAX_INFO_KEY);
  return MPI_SUCCESS;
}

InfoPairs::iterator find(InfoPairs& p, const char* key) {
  return std::find_if(p.begin(), p.end(), [&](const auto& kv) { return kv.first == key; });
}

}  // namespace

int check_info(const char* call, Comm* c, MPI_Info info, const InfoPairs** out, bool null_ok) {
  static const InfoPairs kEmpty;
  if (info == MPI_INFO_NULL && null_ok) {
    *out = &kEmpty;
    return MPI_SUCCESS;
  }
  if (info == MPI_INFO_ENV) {
    *out = &env_info();
    return MPI_SUCCESS;
  }
  const InfoPairs* p = lookup(info);
  if (!p) {
    if (info == MPI_INFO_NULL) return fail(c, MPI_ERR_INFO, "{}: info is MPI_INFO_NULL", call);
    return fail(c, MPI_ERR_INFO, "{}: invalid info handle 0x{:x}", call, static_cast<unsigned>(info));
  }
  *out = p;
  return MPI_SUCCESS;
}

MPI_Info info_new(InfoPairs pairs) {
  std::size_t i = 0;
  while (i < g_infos.size() && g_infos[i]) ++i;
  if (i == g_infos.size()) g_infos.emplace_back();
  g_infos[i] = std::make_unique<InfoPairs>(std::move(pairs));
  return static_cast<MPI_Info>(handle::make(handle::Direct, handle::Info, static_cast<int>(i)));
}

InfoPairs known_hints(const InfoPairs& pairs) {
  InfoPairs kept;
  for (const auto& kv : pairs)
    if (kv.first.rfind("mpi_", 0) == 0) kept.push_back(kv);
  return kept;
}

const std::string* info_find(const InfoPairs& pairs, const std::string& key) {
  for (const auto& [k, v] : pairs)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Info_create(MPI_Info* info) {
  p2p::ApiLock lock;
  if (!info) return fail(nullptr, MPI_ERR_ARG, "MPI_Info_create: info is NULL");
  *info = info_new({});
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Info_create)

// MPI 4.1: the hardware resource types this process may name in a guided split
// (MPI_Comm_split_type with MPI_COMM_TYPE_HW_GUIDED and mpi_hw_resource_type), as
// keys, each "true" where the process is bound within one object of that type
// (the split would give it a communicator of the others there) and "false"
// where its binding spans several or the node has none: "mpi_shared_memory"
// (the node), then hwloc://machine, package, numanode, l1cache .. l5cache, core,
// pu. A fresh object the caller frees.
int PMPI_Get_hw_resource_info(MPI_Info* hw_info) {
  if (!hw_info) return fail(nullptr, MPI_ERR_ARG, "MPI_Get_hw_resource_info: hw_info is NULL");
  InfoPairs pairs{{"mpi_shared_memory", "true"}};
  for (const char* type :
       {"machine", "package", "numanode", "l1cache", "l2cache", "l3cache", "l4cache", "l5cache", "core", "pu"}) {
    const std::string key = std::string("hwloc://") + type;
    pairs.emplace_back(key, topo::resource_index(key) >= 0 ? "true" : "false");
  }
  p2p::ApiLock lock;
  *hw_info = info_new(std::move(pairs));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Get_hw_resource_info)

int PMPI_Info_create_env(int /*argc*/, char* /*argv*/[], MPI_Info* info) {
  p2p::ApiLock lock;
  if (!info) return fail(nullptr, MPI_ERR_ARG, "MPI_Info_create_env: info is NULL");
  *info = info_new(env_info());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Info_create_env)

int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  p2p::ApiLock lock;
  InfoPairs* p;
  CHORUS_TRY_MPI(resolve("MPI_Info_dup", info, &p, false));
  if (!newinfo) return fail(nullptr, MPI_ERR_ARG, "MPI_Info_dup: newinfo is NULL");
  *newinfo = info_new(*p);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Info_dup)

int PMPI_Info_free(MPI_Info* info) {
  p2p::ApiLock lock;
  if (!info) return fail(nullptr, MPI_ERR_ARG, "MPI_Info_free: info is NULL");
  InfoPairs* p;
  CHORUS_TRY_MPI(resolve("MPI_Info_free", *info, &p, true));
  auto i = static_cast<std::size_t>(handle::index(static_cast<int>(*info)));
  g_infos[i].reset();
  while (!g_infos.empty() && !g_infos.back()) g_infos.pop_back();
  *info = MPI_INFO_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Info_free)

int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  const char* call = "MPI_Info_set";
  p2p::ApiLock lock;
  InfoPairs* p;
  CHORUS_TRY_MPI(resolve(call, info, &p, true));
  CHORUS_TRY_MPI(check_key(call, key));
  if (!value) return fail(nullptr, MPI_ERR_INFO_VALUE, "{}: value of key \"{}\" is NULL", call, key);
  std::size_t n = strnlen(value, MPI_MAX_INFO_VAL + 1);
  if (n > MPI_MAX_INFO_VAL)
    return fail(nullptr, MPI_ERR_INFO_VALUE, "{}: value of key \"{}\" is longer than MPI_MAX_INFO_VAL ({})",
                call, key, MPI_MAX_INFO_VAL);
  auto it = find(*p, key);
  if (it != p->end()) it->second = value;
  else p->emplace_back(key, value);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Info_set)

int PMPI_Info_delete(MPI_Info info, const char* key) {
  const char* call = "MPI_Info_delete";
  p2p::ApiLock lock;
  InfoPairs* p;
  CHORUS_TRY_MPI(resolve(call, info, &p, true));
  CHORUS_TRY_MPI(check_key(call, key));
  auto it = find(*p, key);
  if (it == p->end()) return fail(nullptr, MPI_ERR_INFO_NOKEY, "{}: key \"{}\" is not set", call, key);
  p->erase(it);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Info_delete)

int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  const char* call = "MPI_Info_get";
  p2p::ApiLock lock;
  InfoPairs* p;
  CHORUS_TRY_MPI(resolve(call, info, &p, false));
  CHORUS_TRY_MPI(check_key(call, key));
  if (!flag) return fail(nullptr, MPI_ERR_ARG, "{}: flag is NULL", call);
  if (valuelen < 0) return fail(nullptr, MPI_ERR_ARG, "{}: valuelen is {}, must be non-negative", call, valuelen);
  auto it = find(*p, key);
  *flag = it != p->end();
  if (!*flag) return MPI_SUCCESS;
  if (!value) return fail(nullptr, MPI_ERR_ARG, "{}: value is NULL", call);
  // value holds valuelen characters plus the terminating NUL.
  std::size_t n = std::min<std::size_t>(it->second.size(), static_cast<std::size_t>(valuelen));
  std::memcpy(value, it->second.data(), n);
  value[n] = '\0';
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Info_get)

int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  const char* call = "MPI_Info_get_string";
  p2p::ApiLock lock;
  InfoPairs* p;
  CHORUS_TRY_MPI(resolve(call, info, &p, false));
  CHORUS_TRY_MPI(check_key(call, key));
  if (!flag || !buflen) return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL", call, flag ? "buflen" : "flag");
  if (*buflen < 0) return fail(nullptr, MPI_ERR_ARG, "{}: *buflen is {}, must be non-negative", call, *buflen);
  auto it = find(*p, key);
  *flag = it != p->end();
  if (!*flag) return MPI_SUCCESS;
  // Copy what fits (NUL-terminated); *buflen becomes the full length plus one.
  if (*buflen > 0) {
    if (!value) return fail(nullptr, MPI_ERR_ARG, "{}: value is NULL with *buflen {}", call, *buflen);
    std::size_t n = std::min<std::size_t>(it->second.size(), static_cast<std::size_t>(*buflen - 1));
    std::memcpy(value, it->second.data(), n);
    value[n] = '\0';
  }
  *buflen = static_cast<int>(it->second.size()) + 1;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Info_get_string)

int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  const char* call = "MPI_Info_get_valuelen";
  p2p::ApiLock lock;
  InfoPairs* p;
  CHORUS_TRY_MPI(resolve(call, info, &p, false));
  CHORUS_TRY_MPI(check_key(call, key));
  if (!flag || !valuelen) return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL", call, flag ? "valuelen" : "flag");
  auto it = find(*p, key);
  *flag = it != p->end();
  if (*flag) *valuelen = static_cast<int>(it->second.size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  p2p::ApiLock lock;
  InfoPairs* p;
  CHORUS_TRY_MPI(resolve("MPI_Info_get_nkeys", info, &p, false));
  if (!nkeys) return fail(nullptr, MPI_ERR_ARG, "MPI_Info_get_nkeys: nkeys is NULL");
  *nkeys = static_cast<int>(p->size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  const char* call = "MPI_Info_get_nthkey";
  p2p::ApiLock lock;
  InfoPairs* p;
  CHORUS_TRY_MPI(resolve(call, info, &p, false));
  if (!key) return fail(nullptr, MPI_ERR_ARG, "{}: key is NULL", call);
  if (n < 0 || n >= static_cast<int>(p->size()))
    return fail(nullptr, MPI_ERR_ARG, "{}: n is {}, must be in [0, {})", call, n, p->size());
  const std::string& k = (*p)[static_cast<std::size_t>(n)].first;
  std::memcpy(key, k.c_str(), k.size() + 1);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Info_get_nthkey)

}  // extern "C"
