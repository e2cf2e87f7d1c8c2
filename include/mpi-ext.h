/*
 * mpi-ext.h: Chorus's extension header, as Open MPI ships one. Programs written
 * for Open MPI's CUDA-aware support compile unchanged:
 *
 *   #include <mpi-ext.h>
 *   #if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
 *     if (MPIX_Query_cuda_support()) { ... pass device pointers ... }
 *   #endif
 *
 * MPIX_CUDA_AWARE_SUPPORT says the library can take CUDA device buffers (every
 * Chorus build can: the driver is loaded at run time); MPIX_Query_cuda_support()
 * says whether this process has a usable CUDA device (1) or runs host-only (0).
 * The functions themselves are declared in mpi.h, with the other MPIX routines.
 */
#ifndef CHORUS_MPI_EXT_H_INCLUDED
#define CHORUS_MPI_EXT_H_INCLUDED

#include <mpi.h>

#define MPIX_CUDA_AWARE_SUPPORT 1
#define MPIX_ROCM_AWARE_SUPPORT 0

#endif /* CHORUS_MPI_EXT_H_INCLUDED */
