// Named POSIX shared-memory segments (/dev/shm), mapped read-write. Used by the
// collectives' shared windows (coll/shm.h) and the node-local point-to-point rings
// (p2p/local.h). One rank creates a segment, the others open it by name, and the
// creator unlinks the name once all have mapped it: the mappings outlive the name.
#pragma once
#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

namespace chorus::shm {

// Every segment a Chorus process creates is named "/chorus-<its pid>-<what>", so
// that the launcher can remove what a rank that died early left behind.
std::string name(pid_t creator, std::string_view what);
// Remove every /dev/shm name `creator` made; the number removed.
int remove_all_of(pid_t creator);
// Remove the names of this user's Chorus processes that are gone (a rank killed
// with its launcher, before it could unlink them); the number removed.
int remove_stale();
// False once `pid` has exited (also while it is a zombie nobody reaped).
bool pid_alive(pid_t pid);

// Create (exclusively, `bytes` long, zero-filled and sparse) or open an existing
// segment of exactly `bytes` bytes and map it. On failure returns nullptr, sets
// *err to the call and errno text, leaves errno as the cause, and removes a
// segment it created.
// A creation first checks that the file system has room for all `bytes`: pages
// are allocated as touched, and a full /dev/shm would later mean SIGBUS. That
// check races with everything else that fills /dev/shm: reserve() or allocate()
// closes the gap.
// With `fd`, the segment's file descriptor stays open there (for allocate()).
std::byte* map(const std::string& name, std::size_t bytes, bool create, std::string* err, int* fd = nullptr);
// Allocate now the pages of [p, p + n) of a mapped segment (MADV_POPULATE_WRITE;
// contents unchanged), so that no later access to them can be a SIGBUS for want
// of room in /dev/shm. Each rank reserves the part it uses first, so its pages
// land on its own NUMA node, as first touch would place them. 0, or the errno:
// EFAULT or ENOMEM when /dev/shm (or memory) has no room for them, EINVAL on a
// kernel older than 5.14, which cannot do it (nothing is then promised).
int reserve(std::byte* p, std::size_t n);
// Allocate now the pages of bytes [off, off + n) of the segment open as `fd` without
// mapping them (fallocate: the file system's room, on the caller's NUMA node,
// zeroed when first touched), so that no later access to them can be a SIGBUS.
// Far cheaper than reserve() for large areas on a VM where every page-table
// entry costs a trip to the hypervisor. 0, or the errno: ENOSPC when /dev/shm has
// no room; EOPNOTSUPP where the file system cannot (nothing is then promised).
int allocate(int fd, std::size_t off, std::size_t n);
void unmap(std::byte* base, std::size_t bytes);
void unlink(const std::string& name);

}  // namespace chorus::shm
