#include "topo/topo.h"

#include <hwloc.h>
#include <ifaddrs.h>
#include <net/if.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

namespace chorus::topo {
namespace {

std::string cpu_list(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  if (!set || hwloc_bitmap_iszero(set) || hwloc_bitmap_list_asprintf(&text, set) < 0) return "none";
  std::string out = text;
  std::free(text);
  return out;
}

std::string bytes_text(unsigned long long b) {
  if (b >= (1ull << 20) && b % (1ull << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= (1ull << 10)) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

std::string plural(int n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

// The name MPICH's hardware splits use, as hwloc reads it ("numa" -> "NUMANode").
std::string canonical(std::string_view name) {
  if (name.substr(0, 8) == "hwloc://") name.remove_prefix(8);
  std::string n(name);
  for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n == "numa") return "numanode";
  if (n == "socket") return "package";
  if (n == "hwthread") return "pu";
  if (n.size() == 2 && n[0] == 'l' && n[1] >= '1' && n[1] <= '5') return n + "cache";
  return n;
}

// A known name's hwloc type (and cache level and type for caches).
bool parse_type(std::string_view name, hwloc_obj_type_t* type) {
  const std::string n = canonical(name);
  static const char* const kNames[] = {"machine", "package", "numanode", "l1cache", "l2cache", "l3cache",
                                       "l4cache", "l5cache", "core", "pu"};
  if (std::find_if(std::begin(kNames), std::end(kNames), [&](const char* k) { return n == k; }) == std::end(kNames))
    return false;
  return hwloc_type_sscanf(n.c_str(), type, nullptr, 0) == 0;
}

struct State {
  std::once_flag once;
  hwloc_topology_t topo = nullptr;
  hwloc_bitmap_t bind = nullptr;
  Node node;
};
State& state() {
  static State s;
  return s;
}

void load(State& s) {
  Node& n = s.node;
  if (hwloc_topology_init(&s.topo) != 0) {
    n.error = "hwloc_topology_init failed";
    s.topo = nullptr;
    return;
  }
  // PCI devices that have an OS device (GPUs, NICs, InfiniBand HCAs), not bridges.
  hwloc_topology_set_io_types_filter(s.topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  if (hwloc_topology_load(s.topo) != 0) {
    n.error = "hwloc cannot read this node's topology";
    hwloc_topology_destroy(s.topo);
    s.topo = nullptr;
    return;
  }
  n.ok = true;
  hwloc_topology_t t = s.topo;
  n.packages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
  n.numa_nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
  n.cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
  n.pus = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
  static const hwloc_obj_type_t kCaches[] = {HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE,
                                             HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L5CACHE};
  for (int level = 1; level <= 5; ++level) {
    const int count = hwloc_get_nbobjs_by_type(t, kCaches[level - 1]);
    if (count <= 0) continue;
    hwloc_obj_t c = hwloc_get_obj_by_type(t, kCaches[level - 1], 0);
    n.caches.push_back({level, c && c->attr ? c->attr->cache.size : 0, count});
  }

  s.bind = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(t, s.bind, HWLOC_CPUBIND_PROCESS) != 0)
    hwloc_bitmap_copy(s.bind, hwloc_topology_get_topology_cpuset(t));
  n.binding = cpu_list(s.bind);
  n.bound = !hwloc_bitmap_isincluded(hwloc_topology_get_topology_cpuset(t), s.bind);

  for (hwloc_obj_t pci = hwloc_get_next_pcidev(t, nullptr); pci; pci = hwloc_get_next_pcidev(t, pci)) {
    const unsigned cls = pci->attr->pcidev.class_id >> 8, full = pci->attr->pcidev.class_id;
    const unsigned vendor = pci->attr->pcidev.vendor_id;
    Device d;
    std::string osnames;
    bool net = cls == 0x02 || full == 0x0c06;               // network controllers; InfiniBand (serial bus)
    for (hwloc_obj_t os = pci->io_first_child; os; os = os->next_sibling) {
      if (os->type != HWLOC_OBJ_OS_DEVICE) continue;
      const auto ot = os->attr->osdev.type;
      if (ot == HWLOC_OBJ_OSDEV_NETWORK || ot == HWLOC_OBJ_OSDEV_OPENFABRICS) net = true;
      if (os->name) osnames += (osnames.empty() ? "" : ",") + std::string(os->name);
    }
    // GPUs: 3D controllers, and NVIDIA's or AMD's VGA controllers and processing
    // accelerators (a server's on-board VGA chip is no GPU).
    const bool gpu_vendor = vendor == 0x10de || vendor == 0x1002;
    if (full == 0x0302 || ((full == 0x0300 || cls == 0x12) && gpu_vendor)) d.kind = "GPU";
    else if (net) d.kind = "NIC";
    else continue;
    d.pci = fmt::format("{:04x}:{:02x}:{:02x}.{:x}", pci->attr->pcidev.domain, pci->attr->pcidev.bus,
                        pci->attr->pcidev.dev, pci->attr->pcidev.func);
    d.name = osnames.empty() ? d.pci : osnames;
    if (const char* m = hwloc_obj_get_info_by_name(pci, "PCIDevice")) d.model = m;
    hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(t, pci);
    d.locality = cpu_list(anc ? anc->cpuset : nullptr);
    d.near = anc && anc->cpuset && hwloc_bitmap_intersects(anc->cpuset, s.bind);
    (d.kind == "GPU" ? n.gpus : n.nics).push_back(std::move(d));
  }
  // Interfaces that are up, PCI or not (virtual ones carry traffic too).
  ifaddrs* ifs = nullptr;
  if (getifaddrs(&ifs) == 0) {
    for (ifaddrs* i = ifs; i; i = i->ifa_next)
      if (i->ifa_name && (i->ifa_flags & IFF_UP) && !(i->ifa_flags & IFF_LOOPBACK) &&
          std::find(n.interfaces.begin(), n.interfaces.end(), i->ifa_name) == n.interfaces.end())
        n.interfaces.push_back(i->ifa_name);
    freeifaddrs(ifs);
  }
  // Nearest: only meaningful for a bound process (an unbound one is near everything).
  if (n.bound) {
    for (std::size_t i = 0; i < n.gpus.size() && n.nearest_gpu < 0; ++i)
      if (n.gpus[i].near) n.nearest_gpu = static_cast<int>(i);
    for (std::size_t i = 0; i < n.nics.size() && n.nearest_nic < 0; ++i)
      if (n.nics[i].near) n.nearest_nic = static_cast<int>(i);
  }
}

State& loaded() {
  State& s = state();
  std::call_once(s.once, [&] { load(s); });
  return s;
}

}  // namespace

std::string Node::layout() const {
  if (!ok) return "unknown (" + error + ")";
  std::string out = fmt::format("{}, {}, {}, {}", plural(packages, "package", "packages"),
                                plural(numa_nodes, "NUMA node", "NUMA nodes"), plural(cores, "core", "cores"),
                                plural(pus, "hardware thread", "hardware threads"));
  for (std::size_t i = 0; i < caches.size(); ++i)
    out += fmt::format("{}L{} {} x{}", i == 0 ? "; " : ", ", caches[i].level, bytes_text(caches[i].bytes),
                       caches[i].count);
  return out;
}

std::string Node::devices() const {
  auto list = [](const std::vector<Device>& v) {
    if (v.empty()) return std::string("none");
    std::string out;
    for (const Device& d : v) {
      if (!out.empty()) out += ", ";
      out += d.name == d.pci ? d.pci : fmt::format("{} ({})", d.name, d.pci);
      if (!d.model.empty()) out += " " + d.model;
    }
    return out;
  };
  std::string up;
  for (const std::string& i : interfaces) up += (up.empty() ? "" : ",") + i;
  return fmt::format("GPUs: {}; NICs: {}; interfaces up: {}", list(gpus), list(nics), up.empty() ? "none" : up);
}

const Node& node() { return loaded().node; }

bool resource_known(std::string_view name) {
  hwloc_obj_type_t type;
  return parse_type(name, &type);
}

int resource_index(std::string_view name) {
  hwloc_obj_type_t type;
  if (!parse_type(name, &type)) return -2;
  State& s = loaded();
  if (!s.topo) return -1;
  // The binding now (the process may have moved since the topology was read).
  hwloc_bitmap_t bind = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(s.topo, bind, HWLOC_CPUBIND_PROCESS) != 0) hwloc_bitmap_copy(bind, s.bind);
  int found = -1;
  const int count = hwloc_get_nbobjs_by_type(s.topo, type);
  for (int i = 0; i < count && found < 0; ++i) {
    hwloc_obj_t o = hwloc_get_obj_by_type(s.topo, type, static_cast<unsigned>(i));
    if (o && o->cpuset && hwloc_bitmap_isincluded(bind, o->cpuset)) found = static_cast<int>(o->logical_index);
  }
  hwloc_bitmap_free(bind);
  return found;
}

const std::vector<std::string>& unguided_levels() {
  static const std::vector<std::string> kLevels = {"package", "numanode", "l3cache", "l2cache",
                                                   "l1cache", "core", "pu"};
  return kLevels;
}

}  // namespace chorus::topo
