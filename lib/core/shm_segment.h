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

// How a created segment's pages are backed. Sparse: allocated as first touched,
// so a /dev/shm that fills up after creation (other jobs, other segments) makes
// that first touch a SIGBUS. Reserved: every page allocated at creation
// (posix_fallocate), so creation fails with ENOSPC instead and no later access
// can; for segments whose every byte will be used (rings, one-sided windows).
enum class Backing { sparse, reserved };

// Create (exclusively, `bytes` long, zero-filled) or open an existing segment of
// exactly `bytes` bytes and map it. On failure returns nullptr, sets *err to the
// call and errno text, and removes a segment it created. A creation first checks
// that the file system has room for all `bytes`, then backs it as `backing` says.
std::byte* map(const std::string& name, std::size_t bytes, bool create, std::string* err,
               Backing backing = Backing::sparse);
void unmap(std::byte* base, std::size_t bytes);
void unlink(const std::string& name);

}  // namespace chorus::shm
