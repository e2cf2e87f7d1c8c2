// The CUDA driver, loaded at run time: dlopen(CHORUS_CUDA_LIBRARY, default
// "libcuda.so.1") and dlsym of every entry point below. No driver, no device or
// any error on the way means "host only" (logged once at INFO), never a failure.
//
// The list is an X-macro so that the loader (driver.cc) and the test double
// (tests/mockcuda, a libcuda look-alike for CPU-only machines) share it:
//   CHORUS_CU_FN(member, "exported symbol", return-type-is-Result, (parameters))
#pragma once
#include <cstddef>
#include <string>

#include "gpu/cuda_abi.h"

#define CHORUS_CU_FUNCTIONS(X)                                                                   \
  X(Init, "cuInit", (unsigned flags))                                                            \
  X(DriverGetVersion, "cuDriverGetVersion", (int* version))                                      \
  X(GetErrorName, "cuGetErrorName", (cu::Result err, const char** name))                         \
  X(GetErrorString, "cuGetErrorString", (cu::Result err, const char** str))                      \
  X(DeviceGetCount, "cuDeviceGetCount", (int* count))                                            \
  X(DeviceGet, "cuDeviceGet", (cu::Device* dev, int ordinal))                                    \
  X(DeviceGetName, "cuDeviceGetName", (char* name, int len, cu::Device dev))                     \
  X(DeviceGetAttribute, "cuDeviceGetAttribute", (int* value, int attr, cu::Device dev))          \
  X(DeviceTotalMem, "cuDeviceTotalMem_v2", (std::size_t* bytes, cu::Device dev))                 \
  X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (cu::Context* ctx, cu::Device dev))      \
  X(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", (cu::Device dev))                   \
  X(CtxSetCurrent, "cuCtxSetCurrent", (cu::Context ctx))                                         \
  X(CtxGetCurrent, "cuCtxGetCurrent", (cu::Context* ctx))                                        \
  X(PointerGetAttribute, "cuPointerGetAttribute", (void* data, int attr, cu::DevicePtr ptr))     \
  X(PointerGetAttributes, "cuPointerGetAttributes",                                              \
    (unsigned num, int* attrs, void** data, cu::DevicePtr ptr))                                  \
  X(MemAlloc, "cuMemAlloc_v2", (cu::DevicePtr* ptr, std::size_t bytes))                          \
  X(MemFree, "cuMemFree_v2", (cu::DevicePtr ptr))                                                \
  X(MemAllocManaged, "cuMemAllocManaged", (cu::DevicePtr* ptr, std::size_t bytes, unsigned flags)) \
  X(MemAllocAsync, "cuMemAllocAsync", (cu::DevicePtr* ptr, std::size_t bytes, cu::Stream s))     \
  X(MemFreeAsync, "cuMemFreeAsync", (cu::DevicePtr ptr, cu::Stream s))                           \
  X(MemHostAlloc, "cuMemHostAlloc", (void** ptr, std::size_t bytes, unsigned flags))             \
  X(MemFreeHost, "cuMemFreeHost", (void* ptr))                                                   \
  X(MemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2",                                     \
    (cu::DevicePtr* dptr, void* host, unsigned flags))                                           \
  X(Memcpy, "cuMemcpy", (cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes))               \
  X(MemcpyAsync, "cuMemcpyAsync",                                                                \
    (cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes, cu::Stream s))                     \
  X(MemsetD8, "cuMemsetD8_v2", (cu::DevicePtr dst, unsigned char value, std::size_t n))          \
  X(StreamCreate, "cuStreamCreate", (cu::Stream* s, unsigned flags))                             \
  X(StreamDestroy, "cuStreamDestroy_v2", (cu::Stream s))                                         \
  X(StreamSynchronize, "cuStreamSynchronize", (cu::Stream s))                                    \
  X(StreamQuery, "cuStreamQuery", (cu::Stream s))                                                \
  X(StreamWaitEvent, "cuStreamWaitEvent", (cu::Stream s, cu::Event e, unsigned flags))           \
  X(StreamWriteValue32, "cuStreamWriteValue32_v2",                                               \
    (cu::Stream s, cu::DevicePtr addr, unsigned value, unsigned flags))                          \
  X(StreamWaitValue32, "cuStreamWaitValue32_v2",                                                 \
    (cu::Stream s, cu::DevicePtr addr, unsigned value, unsigned flags))                          \
  X(EventCreate, "cuEventCreate", (cu::Event* e, unsigned flags))                                \
  X(EventDestroy, "cuEventDestroy_v2", (cu::Event e))                                            \
  X(EventRecord, "cuEventRecord", (cu::Event e, cu::Stream s))                                   \
  X(EventQuery, "cuEventQuery", (cu::Event e))                                                   \
  X(EventSynchronize, "cuEventSynchronize", (cu::Event e))                                       \
  X(EventElapsedTime, "cuEventElapsedTime", (float* ms, cu::Event start, cu::Event end))         \
  X(ModuleLoadData, "cuModuleLoadData", (cu::Module* m, const void* image))                      \
  X(ModuleUnload, "cuModuleUnload", (cu::Module m))                                              \
  X(ModuleGetFunction, "cuModuleGetFunction", (cu::Function* f, cu::Module m, const char* name)) \
  X(LaunchKernel, "cuLaunchKernel",                                                              \
    (cu::Function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,            \
     unsigned bz, unsigned shared_bytes, cu::Stream s, void** params, void** extra))

namespace chorus::gpu {

// Function pointers to the loaded driver; all null when it is not loaded.
struct Driver {
#define CHORUS_CU_MEMBER(member, symbol, params) cu::Result(*member) params = nullptr;
  CHORUS_CU_FUNCTIONS(CHORUS_CU_MEMBER)
#undef CHORUS_CU_MEMBER
};

// The process's driver table (filled by load_driver; read-only afterwards).
const Driver& driver();

// dlopen `path` and resolve every symbol. On failure returns false and sets *why
// (e.g. "libcuda.so.1: cannot open shared object file", "cuMemAllocAsync missing").
// Idempotent; the library stays loaded for the life of the process.
bool load_driver(const std::string& path, std::string* why);
bool driver_loaded();

// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" for messages.
std::string error_text(cu::Result r);

}  // namespace chorus::gpu
