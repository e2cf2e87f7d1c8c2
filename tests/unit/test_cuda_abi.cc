// Compile-time check of lib/gpu/cuda_abi.h against the toolkit's <cuda.h>: every
// constant and type size Chorus declares itself must equal the driver's own.
// Built only where cuda.h is found; running it just reports success.
#include <cuda.h>

#include <cstdio>

#include "gpu/cuda_abi.h"

namespace cu = chorus::gpu::cu;

// Types
static_assert(sizeof(cu::Result) == sizeof(CUresult));
static_assert(sizeof(cu::Device) == sizeof(CUdevice));
static_assert(sizeof(cu::DevicePtr) == sizeof(CUdeviceptr));
static_assert(sizeof(cu::Context) == sizeof(CUcontext));
static_assert(sizeof(cu::Stream) == sizeof(CUstream));
static_assert(sizeof(cu::Event) == sizeof(CUevent));
static_assert(sizeof(cu::Module) == sizeof(CUmodule));
static_assert(sizeof(cu::Function) == sizeof(CUfunction));
static_assert(sizeof(cu::MemPool) == sizeof(CUmemoryPool));

// CUresult
static_assert(cu::kSuccess == CUDA_SUCCESS);
static_assert(cu::kErrorInvalidValue == CUDA_ERROR_INVALID_VALUE);
static_assert(cu::kErrorNotInitialized == CUDA_ERROR_NOT_INITIALIZED);
static_assert(cu::kErrorDeinitialized == CUDA_ERROR_DEINITIALIZED);
static_assert(cu::kErrorNoDevice == CUDA_ERROR_NO_DEVICE);
static_assert(cu::kErrorNotReady == CUDA_ERROR_NOT_READY);
static_assert(cu::kErrorNotSupported == CUDA_ERROR_NOT_SUPPORTED);

// CUpointer_attribute
static_assert(cu::kPointerAttrContext == CU_POINTER_ATTRIBUTE_CONTEXT);
static_assert(cu::kPointerAttrMemoryType == CU_POINTER_ATTRIBUTE_MEMORY_TYPE);
static_assert(cu::kPointerAttrDevicePointer == CU_POINTER_ATTRIBUTE_DEVICE_POINTER);
static_assert(cu::kPointerAttrBufferId == CU_POINTER_ATTRIBUTE_BUFFER_ID);
static_assert(cu::kPointerAttrIsManaged == CU_POINTER_ATTRIBUTE_IS_MANAGED);
static_assert(cu::kPointerAttrDeviceOrdinal == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL);
static_assert(cu::kPointerAttrRangeStartAddr == CU_POINTER_ATTRIBUTE_RANGE_START_ADDR);
static_assert(cu::kPointerAttrRangeSize == CU_POINTER_ATTRIBUTE_RANGE_SIZE);
static_assert(cu::kPointerAttrMapped == CU_POINTER_ATTRIBUTE_MAPPED);
static_assert(cu::kPointerAttrMempoolHandle == CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE);

// CUmemorytype
static_assert(cu::kMemoryTypeHost == CU_MEMORYTYPE_HOST);
static_assert(cu::kMemoryTypeDevice == CU_MEMORYTYPE_DEVICE);
static_assert(cu::kMemoryTypeArray == CU_MEMORYTYPE_ARRAY);
static_assert(cu::kMemoryTypeUnified == CU_MEMORYTYPE_UNIFIED);

// CUdevice_attribute
static_assert(cu::kDevAttrMultiprocessorCount == CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
static_assert(cu::kDevAttrPciBusId == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
static_assert(cu::kDevAttrUnifiedAddressing == CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING);
static_assert(cu::kDevAttrComputeCapabilityMajor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
static_assert(cu::kDevAttrComputeCapabilityMinor == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
static_assert(cu::kDevAttrMemoryPoolsSupported == CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED);

// Flags
static_assert(cu::kStreamNonBlocking == CU_STREAM_NON_BLOCKING);
static_assert(cu::kEventDisableTiming == CU_EVENT_DISABLE_TIMING);
static_assert(cu::kEventDefault == CU_EVENT_DEFAULT);
static_assert(cu::kStreamWaitValueGeq == CU_STREAM_WAIT_VALUE_GEQ);
static_assert(cu::kStreamWaitValueEq == CU_STREAM_WAIT_VALUE_EQ);
static_assert(cu::kStreamWriteValueDefault == CU_STREAM_WRITE_VALUE_DEFAULT);
static_assert(cu::kMemHostAllocPortable == CU_MEMHOSTALLOC_PORTABLE);
static_assert(cu::kMemHostAllocDeviceMap == CU_MEMHOSTALLOC_DEVICEMAP);
static_assert(cu::kMemAttachGlobal == CU_MEM_ATTACH_GLOBAL);

int main() {
  std::printf("cuda_abi.h matches <cuda.h> (CUDA_VERSION %d)\n", CUDA_VERSION);
  return 0;
}
