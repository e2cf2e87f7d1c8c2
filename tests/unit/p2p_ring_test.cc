// The node-local point-to-point ring (lib/p2p/ring.h) in one process: order and
// contents through wraps and a full ring, and stale payload never read as a record.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <deque>
#include <random>
#include <vector>

#include "p2p/ring.h"

using namespace chorus::p2p::ring;

namespace {

struct Mem {
  explicit Mem(std::size_t bytes) : buf(bytes + 2 * kLine) {
    auto a = (reinterpret_cast<std::uintptr_t>(buf.data()) + kLine - 1) / kLine * kLine;
    ctl = reinterpret_cast<Ctl*>(a);
    ctl->head = 0;
    data = reinterpret_cast<std::byte*>(a + kLine);
    w.attach(ctl, data, bytes);
    r.attach(ctl, data, bytes);
  }
  std::vector<std::byte> buf;  // zeroed, like a new segment
  Ctl* ctl;
  std::byte* data;
  Writer w;
  Reader r;
};

Header eager(std::uint64_t tag, std::uint32_t len) { return Header{0, tag, 0, len, kEager}; }

}  // namespace

TEST_CASE("Records arrive in order and intact through wraps and a full ring", "[ring]") {
  for (std::size_t bytes : {256u, 1024u, 16384u}) {
    INFO("ring of " << bytes << " B");
    Mem m(bytes);
    std::mt19937 rng(7);
    const std::uint32_t max_len = static_cast<std::uint32_t>(bytes / 4 - 8);
    std::deque<std::vector<std::byte>> sent;
    std::uint64_t written = 0, read = 0, refused = 0;
    int bad = 0;
    while (read < 5000) {
      // Write a random burst until the ring refuses, then read a random burst.
      for (int k = static_cast<int>(rng() % 8); k >= 0; --k) {
        std::uint32_t len = rng() % (max_len + 1);
        if (rng() % 4 == 0) len = 0;
        std::vector<std::byte> p(len);
        for (auto& b : p) b = static_cast<std::byte>(rng());
        // Now and then a first fragment: an 8-byte prefix written before the data.
        const bool prefixed = rng() % 4 == 0;
        Header h = eager(written, len);
        std::uint64_t prefix = written * 3 + 1;
        bool wrote;
        if (prefixed) {
          h.set(len + 8, kFirst);
          wrote = m.w.try_write(h, p.data(), &prefix, 8);
          std::vector<std::byte> full(8 + len);
          std::memcpy(full.data(), &prefix, 8);
          if (len) std::memcpy(full.data() + 8, p.data(), len);
          p = std::move(full);
        } else {
          wrote = m.w.try_write(h, p.data());
        }
        if (!wrote) {
          ++refused;
          break;
        }
        sent.push_back(std::move(p));
        ++written;
      }
      for (int k = static_cast<int>(rng() % 8); k >= 0; --k) {
        const Header* h = m.r.peek();
        if (!h) {
          bad += !sent.empty();  // written records are visible at once
          break;
        }
        const auto& want = sent.front();
        bad += h->tag != read || h->len() != want.size() || (h->kind() != kEager && h->kind() != kFirst) ||
               (!want.empty() && std::memcmp(h + 1, want.data(), want.size()) != 0);
        m.r.pop();
        sent.pop_front();
        ++read;
      }
    }
    CHECK(bad == 0);
    CHECK(refused > 0);  // the ring did fill up
  }
}

TEST_CASE("Stale payload at a waiting reader's position never reads as a record", "[ring]") {
  // Plan record sizes, find where each record's header will sit and with which
  // seq, and fill earlier records' payload so that the first word of every line
  // holds the seq of the record that later starts there. Before each write the
  // reader must see nothing.
  const std::size_t bytes = 1024;
  std::mt19937 rng(3);
  const int n = 400;
  std::vector<std::uint32_t> len(n);
  for (auto& l : len) l = 32 + rng() % 200;  // 1 to 4 lines
  // Replay the writer's placement: (position, seq) of every header, wraps included.
  std::vector<std::size_t> pos(n);
  std::vector<std::uint64_t> seq(n);
  std::vector<std::vector<std::uint64_t>> future(n);
  {
    std::uint64_t tail = 0, s = 1;
    for (int i = 0; i < n; ++i) {
      std::size_t need = record_bytes(kEager, len[i]);
      std::size_t p = tail % bytes;
      if (p + need > bytes) {
        tail += bytes - p;
        ++s;
        p = 0;
      }
      pos[i] = p;
      seq[i] = s++;
      tail += need;
    }
  }
  int poisoned = 0;
  for (int i = 0; i < n; ++i) {
    // Payload word at line start L of record i: the seq of the next record j > i
    // whose header lands on that line.
    std::vector<std::uint64_t> words((len[i] + 7) / 8, 0);
    for (std::size_t off = kLine; off < record_bytes(kEager, len[i]); off += kLine) {
      std::size_t line = pos[i] + off;
      for (int j = i + 1; j < n; ++j) {
        if (pos[j] == line) {
          words[(off - sizeof(Header)) / 8] = seq[j];
          ++poisoned;
          break;
        }
      }
    }
    future[i] = std::move(words);
  }
  REQUIRE(poisoned > 20);  // the plan does put headers over old payload
  Mem m(bytes);
  int early = 0, bad = 0;
  for (int i = 0; i < n; ++i) {
    early += m.r.peek() != nullptr;
    REQUIRE(m.w.try_write(eager(static_cast<std::uint64_t>(i), len[i]), future[i].data()));
    const Header* h = m.r.peek();
    bad += !h || h->tag != static_cast<std::uint64_t>(i) || h->len() != len[i];
    if (h) m.r.pop();
  }
  CHECK(early == 0);
  CHECK(bad == 0);
}

TEST_CASE("Records of every small size carry exactly their bytes", "[ring]") {
  // Payloads of 0 to 40 bytes (up to 16 copied inline, with overlapping words):
  // each arrives intact and the bytes after it in its record are not written.
  Mem m(4096);
  std::vector<unsigned char> src(64);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(0xa0 + i);
  for (std::uint32_t len = 0; len <= 40; ++len) {
    REQUIRE(m.w.try_write(eager(len, len), src.data() + 1));
    const Header* h = m.r.peek();
    REQUIRE(h != nullptr);
    CHECK(h->tag == len);
    CHECK(h->len() == len);
    const auto* got = reinterpret_cast<const unsigned char*>(h + 1);
    CHECK(std::memcmp(got, src.data() + 1, len) == 0);
    if (len < 32) CHECK(got[len] != src[len + 1]);  // the next source byte was not copied too
    m.r.pop();
  }
}
