// Loading the CUDA driver at run time: dlopen the library named by
// CHORUS_CUDA_LIBRARY and resolve every entry point of CHORUS_CU_FUNCTIONS.
// Nothing here is fatal; a library that is missing or incomplete just means
// host-only (gpu.cc logs the reason).
#include "gpu/driver.h"

#include <dlfcn.h>

#include <atomic>
#include <mutex>

#include <fmt/format.h>

namespace chorus::gpu {
namespace {

Driver g_driver;
std::atomic<bool> g_loaded{false};
std::mutex g_load_mu;

}  // namespace

const Driver& driver() { return g_driver; }

bool driver_loaded() { return g_loaded.load(std::memory_order_acquire); }

bool load_driver(const std::string& path, std::string* why) {
  std::lock_guard<std::mutex> lock(g_load_mu);
  if (g_loaded.load(std::memory_order_relaxed)) return true;
  if (path.empty()) {
    if (why) *why = "no CUDA driver library named (CHORUS_CUDA_LIBRARY is empty)";
    return false;
  }
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* err = dlerror();
    if (why) *why = err ? std::string(err) : path + ": cannot be loaded";
    return false;
  }
  Driver d;
  std::string missing;
#define CHORUS_CU_RESOLVE(member, symbol, params)                         \
  d.member = reinterpret_cast<decltype(d.member)>(dlsym(handle, symbol)); \
  if (!d.member) missing += missing.empty() ? symbol : ", " symbol;
  CHORUS_CU_FUNCTIONS(CHORUS_CU_RESOLVE)
#undef CHORUS_CU_RESOLVE
  if (!missing.empty()) {
    dlclose(handle);
    if (why) {
      if (!d.Init)
        *why = fmt::format("{} is not a CUDA driver (no cuInit)", path);
      else
        *why = fmt::format("{}: {} missing (driver too old?)", path, missing);
    }
    return false;
  }
  // The handle stays open for the life of the process: kernels, streams and
  // pinned memory may outlive any one user of the table.
  g_driver = d;
  g_loaded.store(true, std::memory_order_release);
  return true;
}

std::string error_text(cu::Result r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (driver_loaded()) {
    if (g_driver.GetErrorName(r, &name) != cu::kSuccess) name = nullptr;
    if (g_driver.GetErrorString(r, &text) != cu::kSuccess) text = nullptr;
  }
  if (name && text) return fmt::format("{} ({})", name, text);
  if (name) return name;
  return fmt::format("CUDA error {}", r);
}

}  // namespace chorus::gpu
