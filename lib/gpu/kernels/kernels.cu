// The one translation unit nvcc turns into Chorus's fatbin (meson.build): every
// kernel of lib/gpu/kernels.h in one module, loaded once by launch.cc.
#include "common.cuh"
#include "reduce.cu"
#include "pack.cu"
