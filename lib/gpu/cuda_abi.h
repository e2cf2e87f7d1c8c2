// The slice of the CUDA driver ABI Chorus uses, declared here so that lib/gpu
// builds without the CUDA toolkit and loads libcuda.so.1 at run time (driver.h).
// Values are the driver's documented, ABI-stable ones; when the toolkit is found,
// tests/unit/test_cuda_abi.cc checks every one against <cuda.h>.
#pragma once
#include <cstddef>
#include <cstdint>

namespace chorus::gpu::cu {

using Result = int;         // CUresult
using Device = int;         // CUdevice
using DevicePtr = std::uintptr_t;  // CUdeviceptr (64-bit)
using Context = struct CUctx_st*;
using Stream = struct CUstream_st*;
using Event = struct CUevent_st*;
using Module = struct CUmod_st*;
using Function = struct CUfunc_st*;
using MemPool = struct CUmemPoolHandle_st*;

// CUresult
constexpr Result kSuccess = 0;
constexpr Result kErrorInvalidValue = 1;
constexpr Result kErrorNotInitialized = 3;
constexpr Result kErrorDeinitialized = 4;
constexpr Result kErrorNoDevice = 100;
constexpr Result kErrorNotReady = 600;
constexpr Result kErrorNotSupported = 801;

// CUpointer_attribute
constexpr int kPointerAttrContext = 1;
constexpr int kPointerAttrMemoryType = 2;
constexpr int kPointerAttrDevicePointer = 3;
constexpr int kPointerAttrBufferId = 7;
constexpr int kPointerAttrIsManaged = 8;
constexpr int kPointerAttrDeviceOrdinal = 9;
constexpr int kPointerAttrRangeStartAddr = 11;
constexpr int kPointerAttrRangeSize = 12;
constexpr int kPointerAttrMapped = 13;
constexpr int kPointerAttrMempoolHandle = 17;

// CUmemorytype
constexpr unsigned kMemoryTypeHost = 1;
constexpr unsigned kMemoryTypeDevice = 2;
constexpr unsigned kMemoryTypeArray = 3;
constexpr unsigned kMemoryTypeUnified = 4;

// CUdevice_attribute
constexpr int kDevAttrMultiprocessorCount = 16;
constexpr int kDevAttrPciBusId = 33;
constexpr int kDevAttrPciDeviceId = 34;
constexpr int kDevAttrPciDomainId = 50;
constexpr int kDevAttrUnifiedAddressing = 41;
constexpr int kDevAttrComputeCapabilityMajor = 75;
constexpr int kDevAttrComputeCapabilityMinor = 76;
constexpr int kDevAttrMemoryPoolsSupported = 115;

// Flags
constexpr unsigned kStreamNonBlocking = 0x1;     // CU_STREAM_NON_BLOCKING
constexpr unsigned kEventDisableTiming = 0x2;    // CU_EVENT_DISABLE_TIMING
constexpr unsigned kEventDefault = 0x0;
constexpr unsigned kStreamWaitValueGeq = 0x0;    // CU_STREAM_WAIT_VALUE_GEQ
constexpr unsigned kStreamWaitValueEq = 0x1;     // CU_STREAM_WAIT_VALUE_EQ
constexpr unsigned kStreamWriteValueDefault = 0x0;
constexpr unsigned kMemHostAllocPortable = 0x01; // CU_MEMHOSTALLOC_PORTABLE
constexpr unsigned kMemHostAllocDeviceMap = 0x02;
constexpr unsigned kMemAttachGlobal = 0x1;       // CU_MEM_ATTACH_GLOBAL

}  // namespace chorus::gpu::cu
