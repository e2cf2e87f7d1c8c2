// Harness of the stream-ordered call tests (tests/gpu_stream): the CUDA driver
// loaded as Chorus loads it (dlopen of CHORUS_CUDA_LIBRARY, default libcuda.so.1),
// so one binary runs on a GPU and against the CPU test double tests/mockcuda, and
// the pieces these tests need that tests/gpu's harness does not offer: a user
// stream of our own, kernels enqueued on it without synchronizing, events.
//
//  - stream_main.cc probes the driver before MPI_Init. No driver or device: every
//    rank exits 0 after rank 0 prints "SKIP: no CUDA device (<reason>)", unless
//    CHORUS_GPU=off is set: then the tests tagged [nogpu] run (capability queries
//    and host-stream behaviour of a host-only process).
//  - Any driver error fails the job with a message naming the call (MPI_Abort).
//  - Kernels come from tests/gpu's fatbin of test_kernels.cu (chorus_test_fill_f32,
//    chorus_test_scale_f32, chorus_test_delay) when nvcc built it; under the mock
//    any image works. Tests needing kernels SKIP without them.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

#include "../jobs/mpi_test.h"

namespace stream_test {

bool probe(std::string* why);  // before MPI_Init
void setup();                  // after MPI_Init: bind the device, load the kernels
bool have_device();            // probe() and setup() succeeded (and CHORUS_GPU is not off)
bool have_kernels();
bool gpu_off();                // CHORUS_GPU=off in the environment
bool is_mock();

// A non-blocking CUDA stream of the test (cuStreamCreate), as a cudaStream_t value.
void* stream_create();
void stream_destroy(void* s);
void stream_sync(void* s);
// Record an event on `s` and wait for it (the host sees what the stream did up to here).
void event_sync(void* s);

// Device memory (cuMemAlloc) of n floats, and synchronous copies.
float* dev_alloc(std::size_t n);
void dev_free(float* p);
void dev_zero(float* p, std::size_t n);
std::vector<float> to_host(const float* p, std::size_t n);
void to_device(float* p, const std::vector<float>& v);

// Kernels enqueued on `s` (not synchronized). Need have_kernels().
void fill(void* s, float* p, std::size_t n, float v);
void scale(void* s, float* p, std::size_t n, float f);
void delay(void* s, unsigned long long ns);

// MPIX_Stream for a CUDA stream, built as MPICH users do (info "type" and the
// stream's bytes through MPIX_Info_set_hex).
MPIX_Stream mpix_stream(void* s);

[[noreturn]] void fatal(const std::string& what);

}  // namespace stream_test
