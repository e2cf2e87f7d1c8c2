// lib/topo: what this node is made of, from hwloc, and where this process sits in
// it. Read once per process, on first use (hwloc's PCI scan costs tens of
// milliseconds, so MPI_Init reads it only when something asks: a TOPO log, a
// hardware split, the doctor, GPU placement).
//
// The node: packages, NUMA nodes, cores, hardware threads, caches, and the PCI
// devices that matter to communication: GPUs (PCI display and 3D controllers) and
// NICs (network and InfiniBand devices, with their OS names). Each device has a
// locality (the cpuset of its nearest non-I/O ancestor), so "nearest to this
// process" is "its locality overlaps the process's binding".
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace chorus::topo {

struct Device {
  std::string kind;      // "GPU" or "NIC"
  std::string name;      // OS names ("mlx5_0", "eth0", "card1"), else the PCI address
  std::string pci;       // "0000:1b:00.0"
  std::string model;     // hwloc's PCI model string, when it has one
  std::string locality;  // CPU list of its nearest non-I/O ancestor ("0-15")
  bool near = false;     // its locality overlaps this process's binding
};

struct Cache {
  int level = 0;
  unsigned long long bytes = 0;
  int count = 0;
};

struct Node {
  bool ok = false;           // hwloc read the topology
  std::string error;         // why not
  int packages = 0, numa_nodes = 0, cores = 0, pus = 0;
  std::vector<Cache> caches; // one entry per level (data and unified caches)
  std::vector<Device> gpus, nics;
  std::vector<std::string> interfaces;  // network interfaces up, loopback aside (veth0 too)
  std::string binding;       // this process's CPU list ("0", "0-1")
  bool bound = false;        // the binding is smaller than the node
  int nearest_gpu = -1;      // index into gpus of the first near one, -1 when none or unbound
  int nearest_nic = -1;

  // "1 package, 1 NUMA node, 2 cores, 2 hardware threads; L2 1 MiB x2, L3 32 MiB x1"
  std::string layout() const;
  // "GPUs: none; NICs: eth0 (0000:00:03.0); interfaces up: eth0"
  std::string devices() const;
};

// The node as seen by this process (read on the first call; thread-safe).
const Node& node();

// The resource types a hardware split names, as MPICH spells them, with or without
// "hwloc://": machine, package (socket), numanode (numa), l1cache .. l5cache (l3 ...),
// core, pu (hwthread). Returns false for any other name.
bool resource_known(std::string_view name);

// Which object of resource `name` this process's binding (as it is now) lies in: its logical
// index; -1 when the binding spans several (an unbound process on a node with two
// packages) or the node has no such object; -2 when the name is unknown.
int resource_index(std::string_view name);

// The resource levels of an unguided split, from the widest under the node down.
const std::vector<std::string>& unguided_levels();

}  // namespace chorus::topo
