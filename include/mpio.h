/*
 * Chorus -- mpio.h
 *
 * All MPI-IO types, constants and routines are declared by mpi.h.  This file
 * exists only so that sources written for ROMIO-based MPIs, which include
 * <mpio.h> explicitly, keep compiling.
 */
#ifndef CHORUS_MPIO_H_INCLUDED
#define CHORUS_MPIO_H_INCLUDED
#include "mpi.h"
#endif /* CHORUS_MPIO_H_INCLUDED */
