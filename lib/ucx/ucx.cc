#include "ucx/ucx.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

#include <ucs/debug/log_def.h>

#include "core/log.h"

namespace chorus::ucx {

Status to_status(ucs_status_t s) {
  switch (s) {
    case UCS_OK: return Status::Ok;
    case UCS_ERR_MESSAGE_TRUNCATED: return Status::Truncate;
    case UCS_ERR_CANCELED: return Status::Canceled;
    case UCS_ERR_NO_MEMORY: return Status::NoMem;
    case UCS_ERR_INVALID_PARAM: return Status::InvalidArg;
    default: return Status::Transport;
  }
}

bool env_has(std::string_view name) {
  std::string var = "UCX_";
  var += name;
  return std::getenv(var.c_str()) != nullptr;
}

bool env_has(const Setting& s) {
  if (env_has(s.name)) return true;
  for (const auto& a : s.aliases)
    if (env_has(a)) return true;
  return false;
}

Status Context::init(bool multi_thread, std::size_t estimated_eps,
                     const std::vector<Setting>& settings, bool rma) {
  ucp_config_t* cfg = nullptr;
  ucs_status_t st = ucp_config_read(nullptr, nullptr, &cfg);
  if (st != UCS_OK) {
    CHORUS_WARN(INIT, "ucp_config_read failed: {}", ucs_status_string(st));
    return Status::Transport;
  }
  for (const Setting& s : settings) {
    if (env_has(s)) {
      CHORUS_LOG(INFO, INIT, "UCX_{}: the environment's value wins over Chorus's {}", s.name,
                 s.value);
      continue;
    }
    st = ucp_config_modify(cfg, s.name.c_str(), s.value.c_str());
    if (st != UCS_OK)
      CHORUS_WARN(INIT, "ucp_config_modify UCX_{}={} failed: {}", s.name, s.value,
                  ucs_status_string(st));
  }
  ucp_params_t p{};
  p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED |
                 UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_NAME;
  p.features = UCP_FEATURE_TAG | (rma ? UCP_FEATURE_RMA : 0);
  p.mt_workers_shared = multi_thread ? 1 : 0;
  p.estimated_num_eps = estimated_eps;
  p.name = "chorus";
  st = ucp_init(&p, cfg, &h_);
  ucp_config_release(cfg);
  if (st != UCS_OK) {
    CHORUS_WARN(INIT, "ucp_init failed: {}", ucs_status_string(st));
    h_ = nullptr;
    return Status::Transport;
  }
  return Status::Ok;
}

void Context::reset() {
  if (h_) ucp_cleanup(h_);
  h_ = nullptr;
}

std::uint64_t Context::memory_types() const {
  ucp_context_attr_t a{};
  a.field_mask = UCP_ATTR_FIELD_MEMORY_TYPES;
  if (!h_ || ucp_context_query(h_, &a) != UCS_OK) return 0;
  return a.memory_types;
}

Status Worker::init(const Context& ctx, bool multi_thread) {
  ucp_worker_params_t p{};
  p.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE;
  // Chorus serializes every UCX call itself (one lock when MPI_THREAD_MULTIPLE is
  // granted, or once a CUDA stream's agent thread runs enqueued operations), so
  // the worker never needs UCX's own locking; SERIALIZED (not SINGLE) because
  // calls may come from more than one thread even without MPI_THREAD_MULTIPLE.
  (void)multi_thread;
  p.thread_mode = UCS_THREAD_MODE_SERIALIZED;
  ucs_status_t st = ucp_worker_create(ctx.get(), &p, &h_);
  if (st != UCS_OK) {
    CHORUS_WARN(INIT, "ucp_worker_create failed: {}", ucs_status_string(st));
    h_ = nullptr;
    return Status::Transport;
  }
  ucp_address_t* addr = nullptr;
  std::size_t len = 0;
  st = ucp_worker_get_address(h_, &addr, &len);
  if (st != UCS_OK) {
    CHORUS_WARN(INIT, "ucp_worker_get_address failed: {}", ucs_status_string(st));
    return Status::Transport;
  }
  address_.resize(len);
  std::memcpy(address_.data(), addr, len);
  ucp_worker_release_address(h_, addr);
  return Status::Ok;
}

std::vector<std::byte> Worker::net_address() const {
  ucp_worker_attr_t a{};
  a.field_mask = UCP_WORKER_ATTR_FIELD_ADDRESS | UCP_WORKER_ATTR_FIELD_ADDRESS_FLAGS;
  a.address_flags = UCP_WORKER_ADDRESS_FLAG_NET_ONLY;
  std::vector<std::byte> out;
  if (!h_ || ucp_worker_query(h_, &a) != UCS_OK) return out;
  const auto* b = reinterpret_cast<const std::byte*>(a.address);
  out.assign(b, b + a.address_length);
  ucp_worker_release_address(h_, a.address);
  return out;
}

void Worker::reset() {
  if (h_) ucp_worker_destroy(h_);
  h_ = nullptr;
  address_.clear();
}

namespace {
// UCX's error and warning lines while a caller that reports failures itself
// creates an endpoint (ucs_log_push_handler: the last pushed runs first). Per
// thread: lines of UCX's own threads meanwhile go to its printer as usual.
thread_local std::string* g_kept = nullptr;
ucs_log_func_rc_t keep_line(const char* file, unsigned line, const char*, ucs_log_level_t level,
                            const ucs_log_component_config_t*, const char* format, va_list ap) {
  if (!g_kept || level > UCS_LOG_LEVEL_WARN) return UCS_LOG_FUNC_RC_CONTINUE;
  char text[512];
  std::vsnprintf(text, sizeof text, format, ap);
  CHORUS_LOG(INFO, P2P, "UCX {} ({}:{}): {}", ucs_log_level_names[level], file, line, text);
  if (!g_kept->empty()) *g_kept += "; ";
  *g_kept += text;
  return UCS_LOG_FUNC_RC_STOP;
}
}  // namespace

Status ep_create(const Worker& w, const void* address, ucp_ep_h* out, std::string* why) {
  ucp_ep_params_t p{};
  p.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
  p.address = static_cast<const ucp_address_t*>(address);
  if (why) {
    why->clear();
    g_kept = why;
    ucs_log_push_handler(keep_line);
  }
  ucs_status_t st = ucp_ep_create(w.get(), &p, out);
  if (why) {
    ucs_log_pop_handler();
    g_kept = nullptr;
    if (st != UCS_OK && why->empty()) *why = ucs_status_string(st);
  }
  if (st != UCS_OK) {
    if (!why) CHORUS_WARN(P2P, "ucp_ep_create failed: {}", ucs_status_string(st));
    return Status::Transport;
  }
  return Status::Ok;
}

ucs_status_t wait_ptr(Worker& w, ucs_status_ptr_t p) {
  if (p == nullptr) return UCS_OK;
  if (UCS_PTR_IS_ERR(p)) return UCS_PTR_STATUS(p);
  ucs_status_t st;
  while ((st = ucp_request_check_status(p)) == UCS_INPROGRESS) w.progress();
  ucp_request_free(p);
  return st;
}

void ep_close_all(Worker& w, std::vector<ucp_ep_h>& eps, bool force) {
  // Start every close, then progress until all finish: peers close towards us at
  // the same time, and each side's flush needs the other side progressing.
  std::vector<ucs_status_ptr_t> pending;
  for (ucp_ep_h& ep : eps) {
    if (!ep) continue;
    ucp_request_param_t p{};
    if (force) {
      p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      p.flags = UCP_EP_CLOSE_FLAG_FORCE;
    }
    ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &p);
    if (r && !UCS_PTR_IS_ERR(r)) pending.push_back(r);
    ep = nullptr;
  }
  for (ucs_status_ptr_t r : pending) {
    ucs_status_t st = wait_ptr(w, r);
    if (st != UCS_OK && st != UCS_ERR_CONNECTION_RESET && st != UCS_ERR_ENDPOINT_TIMEOUT)
      CHORUS_LOG(INFO, P2P, "endpoint close: {}", ucs_status_string(st));
  }
}

std::string ep_info(ucp_ep_h ep) {
  char* text = nullptr;
  std::size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (!f) return {};
  ucp_ep_print_info(ep, f);
  std::fclose(f);
  std::string all(text, len);
  std::free(text);
  return all;
}

std::vector<std::string> lane_transports(std::string_view info, bool rma_only) {
  // Lane lines look like
  //   "#   lane[0]:  1:tcp/veth0.0 md[1]  -> md[1]/tcp/sysdev[255] rma_bw#0 am am_bw#0 wireup"
  // and name the transport between the second colon and the next '.' or blank.
  std::set<std::string, std::less<>> names;
  std::size_t at = 0;
  while (at < info.size()) {
    std::size_t eol = info.find('\n', at);
    if (eol == std::string_view::npos) eol = info.size();
    const std::string_view line = info.substr(at, eol - at);
    at = eol + 1;
    const std::size_t lane = line.find("lane[");
    if (lane == std::string_view::npos || (rma_only && line.find(" rma") == std::string_view::npos)) continue;
    const std::size_t colon = line.find(':', lane);
    const std::size_t start = colon == std::string_view::npos ? colon : line.find(':', colon + 1);
    if (start == std::string_view::npos) continue;
    const std::size_t end = line.find_first_of(". ", start + 1);
    const std::string_view name = line.substr(start + 1, end == std::string_view::npos ? end : end - start - 1);
    if (!name.empty()) names.emplace(name);
  }
  return {names.begin(), names.end()};
}

std::size_t rndv_threshold(std::string_view info) {
  // "#                tag_send: 0..<egr/short>..8185..<egr/zcopy>..19522..<rndv>..(inf)":
  // the number before "..<rndv>" on the tag_send line (not tag_send_nbr's or _sync's).
  std::size_t at = info.find(" tag_send:");
  if (at == std::string_view::npos) return 0;
  std::size_t eol = info.find('\n', at);
  const std::string_view line = info.substr(at, eol == std::string_view::npos ? eol : eol - at);
  const std::size_t rndv = line.find("..<rndv>");
  if (rndv == std::string_view::npos) return 0;
  std::size_t begin = rndv;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  if (begin == rndv || rndv - begin > 18) return 0;  // no number, or none that fits
  std::size_t value = 0;
  for (std::size_t i = begin; i < rndv; ++i) value = value * 10 + static_cast<std::size_t>(line[i] - '0');
  return value;
}

std::string ep_transports(ucp_ep_h ep) {
  std::string out;
  for (const std::string& n : lane_transports(ep_info(ep), false)) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? std::string("?") : out;
}

std::vector<std::string> ep_rma_transports(ucp_ep_h ep) { return lane_transports(ep_info(ep), true); }

std::size_t ep_rndv_threshold(ucp_ep_h ep) { return rndv_threshold(ep_info(ep)); }

std::vector<std::string> resources(const Context& ctx) {
  std::vector<std::string> out;
  char* text = nullptr;
  std::size_t len = 0;
  FILE* f = open_memstream(&text, &len);
  if (!f || !ctx.get()) return out;
  ucp_context_print_info(ctx.get(), f);
  std::fclose(f);
  std::string all(text, len);
  std::free(text);
  // "#      resource 2  :  md 1  dev 2  flags -- tcp/lo"
  std::size_t pos = 0;
  while ((pos = all.find("resource", pos)) != std::string::npos) {
    std::size_t eol = all.find('\n', pos);
    std::string line = all.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    std::size_t sp = line.find_last_of(' ');
    if (sp != std::string::npos && line.find('/', sp) != std::string::npos) out.push_back(line.substr(sp + 1));
    pos = eol == std::string::npos ? all.size() : eol;
  }
  return out;
}

std::string version() {
  unsigned maj, min, rel;
  ucp_get_version(&maj, &min, &rel);
  return fmt::format("{}.{}.{}", maj, min, rel);
}

}  // namespace chorus::ucx
