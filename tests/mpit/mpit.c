/* The MPI tool information interface (MPI_T): set-up before MPI_Init and after
 * MPI_Finalize (nested), every control variable's info and value, the string
 * conventions, CHORUS_DEBUG and its enumeration (run with CHORUS_DEBUG set by
 * meson), writes of the log's level and subsystems, refused writes of the other rows, the categories (one per subsystem under "chorus"),
 * performance variables that count what the job did (messages on the rings,
 * collective algorithm uses, the progress timer), pvar sessions, events, the event
 * source's clock, the error code of each bad index, handle and NULL pointer,
 * and threads that use MPI_T at once. Every rank checks on its own; each failure prints a line and the
 * exit status is 1. Rank 0 prints "No Errors" when its checks all passed. */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static int errs = 0;
static int rank = -1;

#define CHECK(cond, ...)                                            \
  do {                                                              \
    if (!(cond)) {                                                  \
      ++errs;                                                       \
      printf("mpit r%d line %d: %s: ", rank, __LINE__, #cond);      \
      printf(__VA_ARGS__);                                          \
      printf("\n");                                                 \
    }                                                               \
  } while (0)

/* `call` must return `want`. */
#define EXPECT(call, want)                                                            \
  do {                                                                                \
    int rc_ = (call);                                                                 \
    if (rc_ != (want)) {                                                              \
      ++errs;                                                                         \
      printf("mpit r%d line %d: %s returned %d, want %s (%d)\n", rank, __LINE__, #call, \
             rc_, #want, (want));                                                     \
    }                                                                                 \
  } while (0)

static int valid_type(MPI_Datatype t) {
  return t == MPI_INT || t == MPI_UNSIGNED || t == MPI_UNSIGNED_LONG || t == MPI_UNSIGNED_LONG_LONG ||
         t == MPI_COUNT || t == MPI_CHAR || t == MPI_DOUBLE;
}

static size_t type_size(MPI_Datatype t) {
  if (t == MPI_INT) return sizeof(int);
  if (t == MPI_UNSIGNED) return sizeof(unsigned);
  if (t == MPI_UNSIGNED_LONG) return sizeof(unsigned long);
  if (t == MPI_UNSIGNED_LONG_LONG) return sizeof(unsigned long long);
  if (t == MPI_COUNT) return sizeof(MPI_Count);
  if (t == MPI_DOUBLE) return sizeof(double);
  return 1;
}

/* Every control variable: info, name round trip, a read of `count` elements. */
static void check_cvars(int num) {
  for (int i = 0; i < num; ++i) {
    char name[256], desc[2048];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = -1, bind = -1, scope = -1;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum et = MPI_T_ENUM_NULL;
    EXPECT(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &et, desc, &desc_len, &bind, &scope),
           MPI_SUCCESS);
    CHECK(name_len == (int)strlen(name) + 1, "cvar %d: name_len %d for '%s'", i, name_len, name);
    CHECK(desc_len == (int)strlen(desc) + 1, "cvar %d (%s): desc_len %d", i, name, desc_len);
    CHECK(strncmp(name, "CHORUS_", 7) == 0, "cvar %d is named '%s'", i, name);
    CHECK(desc_len > 1, "cvar %s has no description", name);
    CHECK(verbosity == MPI_T_VERBOSITY_USER_BASIC, "cvar %s: verbosity %d", name, verbosity);
    CHECK(bind == MPI_T_BIND_NO_OBJECT, "cvar %s: bind %d", name, bind);
    /* The log's level and subsystems may be written; the rest is read once at start-up. */
    const int writable = strcmp(name, "CHORUS_DEBUG") == 0 || strcmp(name, "CHORUS_DEBUG_SUBSYS") == 0;
    CHECK(scope == (writable ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_READONLY), "cvar %s: scope %d", name, scope);
    CHECK(valid_type(type), "cvar %s: datatype 0x%x is not one MPI_T allows", name, (unsigned)type);
    CHECK(et == MPI_T_ENUM_NULL || type == MPI_INT, "cvar %s: an enumeration on a non-MPI_INT variable", name);
    int idx = -1;
    EXPECT(MPI_T_cvar_get_index(name, &idx), MPI_SUCCESS);
    CHECK(idx == i, "cvar_get_index(%s) = %d, want %d", name, idx, i);
    if (et != MPI_T_ENUM_NULL) {
      int n = -1;
      EXPECT(MPI_T_enum_get_info(et, &n, NULL, NULL), MPI_SUCCESS);
      CHECK(n > 0, "cvar %s: enumeration of %d items", name, n);
    }

    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    int count = -1;
    EXPECT(MPI_T_cvar_handle_alloc(i, NULL, &h, &count), MPI_SUCCESS);
    CHECK(h != MPI_T_CVAR_HANDLE_NULL, "cvar %s: NULL handle", name);
    CHECK(type == MPI_CHAR ? count >= 1 : count == 1, "cvar %s: count %d", name, count);
    if (count < 1) count = 1;
    /* One guard byte past the value: the read must not touch it. */
    size_t bytes = (size_t)count * type_size(type);
    unsigned char* buf = malloc(bytes + 1);
    memset(buf, 0xa5, bytes + 1);
    EXPECT(MPI_T_cvar_read(h, buf), MPI_SUCCESS);
    CHECK(buf[bytes] == 0xa5, "cvar %s: the read wrote past %d elements", name, count);
    if (type == MPI_CHAR) {
      CHECK(buf[count - 1] == '\0' && strlen((char*)buf) == (size_t)count - 1,
            "cvar %s: string of count %d is not %d characters and a NUL", name, count, count - 1);
    }
    EXPECT(MPI_T_cvar_write(h, buf), writable ? MPI_SUCCESS : MPI_T_ERR_CVAR_SET_NEVER);  /* its own value */
    free(buf);
    EXPECT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "cvar %s: handle_free left the handle set", name);
  }
}

/* MPI-4.1 15.3.3: (buf, len) pairs. */
static void check_strings(int num) {
  int full = -1;
  EXPECT(MPI_T_cvar_get_info(0, NULL, &full, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
  CHECK(full > 1, "name length %d", full);
  char name[256];
  int len = 0;
  EXPECT(MPI_T_cvar_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
  CHECK(len == full, "*len == 0 gave length %d, NULL buffer %d", len, full);
  memset(name, 'x', sizeof name);
  len = 4;
  EXPECT(MPI_T_cvar_get_info(0, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
  CHECK(len == full, "a truncated name gave length %d, want %d", len, full);
  CHECK(name[3] == '\0' && strlen(name) == 3 && name[4] == 'x', "truncation to 4 is not 3 characters and a NUL");
  memset(name, 'x', sizeof name);
  EXPECT(MPI_T_cvar_get_info(0, name, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
  CHECK(name[0] == 'x', "a NULL length still wrote the buffer");
  (void)num;
}

static void check_debug(void) {
  int idx = -1;
  EXPECT(MPI_T_cvar_get_index("CHORUS_DEBUG", &idx), MPI_SUCCESS);
  if (idx < 0) return;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_T_enum et = MPI_T_ENUM_NULL;
  EXPECT(MPI_T_cvar_get_info(idx, NULL, NULL, NULL, &type, &et, NULL, NULL, NULL, NULL), MPI_SUCCESS);
  CHECK(type == MPI_INT, "CHORUS_DEBUG is not MPI_INT");
  CHECK(et != MPI_T_ENUM_NULL, "CHORUS_DEBUG has no enumeration");
  if (et == MPI_T_ENUM_NULL) return;
  int n = -1;
  char ename[64];
  int elen = sizeof ename;
  EXPECT(MPI_T_enum_get_info(et, &n, ename, &elen), MPI_SUCCESS);
  CHECK(n == 4, "CHORUS_DEBUG's enumeration has %d items, want 4", n);
  CHECK(elen == (int)strlen(ename) + 1 && elen > 1, "enumeration name '%s', length %d", ename, elen);
  static const char* const want[4] = {"NONE", "WARN", "INFO", "TRACE"};
  const char* env = getenv("CHORUS_DEBUG");
  int env_item = -1;
  for (int i = 0; i < n && i < 4; ++i) {
    char item[32];
    int ilen = sizeof item, value = -1;
    EXPECT(MPI_T_enum_get_item(et, i, &value, item, &ilen), MPI_SUCCESS);
    CHECK(strcmp(item, want[i]) == 0, "item %d is '%s', want '%s'", i, item, want[i]);
    CHECK(value == i, "item %s has value %d, want %d", item, value, i);
    if (env && strcasecmp(env, item) == 0) env_item = value;
  }
  int value;
  char item[32];
  int ilen = sizeof item;
  EXPECT(MPI_T_enum_get_item(et, n, &value, item, &ilen), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_enum_get_item(et, -1, &value, item, &ilen), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_enum_get_item(et, 0, NULL, item, &ilen), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_enum_get_item(MPI_T_ENUM_NULL, 0, &value, item, &ilen), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_enum_get_info((MPI_T_enum)&value, &n, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_enum_get_info(et, NULL, NULL, NULL), MPI_T_ERR_INVALID);

  /* meson sets CHORUS_DEBUG; without it the default is WARN. */
  CHECK(env != NULL, "CHORUS_DEBUG is not set in the environment (tests/mpit/meson.build sets it)");
  if (!env) env_item = 1;
  CHECK(env_item >= 0, "CHORUS_DEBUG='%s' is none of the items", env);
  MPI_T_cvar_handle h;
  int count = -1, level = -1;
  EXPECT(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count), MPI_SUCCESS);
  CHECK(count == 1, "CHORUS_DEBUG count %d", count);
  EXPECT(MPI_T_cvar_read(h, &level), MPI_SUCCESS);
  CHECK(level == env_item, "CHORUS_DEBUG reads %d, want %d (%s)", level, env_item, env ? env : "default");
  /* The log's level may change at run time (scope local); other rows may not. */
  int scope = -1;
  EXPECT(MPI_T_cvar_get_info(idx, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &scope), MPI_SUCCESS);
  CHECK(scope == MPI_T_SCOPE_LOCAL, "CHORUS_DEBUG has scope %d, want MPI_T_SCOPE_LOCAL", scope);
  int other = 0; /* NONE: nothing is logged while it holds */
  EXPECT(MPI_T_cvar_write(h, &other), MPI_SUCCESS);
  EXPECT(MPI_T_cvar_read(h, &level), MPI_SUCCESS);
  CHECK(level == 0, "CHORUS_DEBUG reads %d after writing 0", level);
  int bad = -1, past = 7;  /* a level past TRACE reads back as written (MPICH's mpi_t/cvarwrite wants it) */
  EXPECT(MPI_T_cvar_write(h, &past), MPI_SUCCESS);
  EXPECT(MPI_T_cvar_read(h, &level), MPI_SUCCESS);
  CHECK(level == 7, "CHORUS_DEBUG reads %d after writing 7", level);
  EXPECT(MPI_T_cvar_write(h, &other), MPI_SUCCESS);
  EXPECT(MPI_T_cvar_write(h, &bad), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_cvar_write(h, NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_cvar_read(h, NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_cvar_read(h, &level), MPI_SUCCESS);
  CHECK(level == 0, "CHORUS_DEBUG changed to %d after a refused write", level);
  EXPECT(MPI_T_cvar_write(h, &env_item), MPI_SUCCESS);
  EXPECT(MPI_T_cvar_read(h, &level), MPI_SUCCESS);
  CHECK(level == env_item, "CHORUS_DEBUG reads %d after writing back %d", level, env_item);
  EXPECT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
  /* The subsystem mask too: none, then every one. */
  int sidx = -1;
  EXPECT(MPI_T_cvar_get_index("CHORUS_DEBUG_SUBSYS", &sidx), MPI_SUCCESS);
  if (sidx >= 0) {
    unsigned long long mask = 0, back = 1, all = ~0ULL;
    EXPECT(MPI_T_cvar_handle_alloc(sidx, NULL, &h, &count), MPI_SUCCESS);
    EXPECT(MPI_T_cvar_read(h, &all), MPI_SUCCESS);
    EXPECT(MPI_T_cvar_write(h, &mask), MPI_SUCCESS);
    EXPECT(MPI_T_cvar_read(h, &back), MPI_SUCCESS);
    CHECK(back == 0, "CHORUS_DEBUG_SUBSYS reads 0x%llx after writing 0", back);
    EXPECT(MPI_T_cvar_write(h, &all), MPI_SUCCESS);
    EXPECT(MPI_T_cvar_read(h, &back), MPI_SUCCESS);
    CHECK(back == all, "CHORUS_DEBUG_SUBSYS reads 0x%llx after writing 0x%llx", back, all);
    EXPECT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
  }
  /* A row read once at start-up. */
  int ridx = -1;
  EXPECT(MPI_T_cvar_get_index("CHORUS_SPIN_COUNT", &ridx), MPI_SUCCESS);
  if (ridx >= 0) {
    MPI_Count spins = 5;
    EXPECT(MPI_T_cvar_get_info(ridx, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &scope), MPI_SUCCESS);
    CHECK(scope == MPI_T_SCOPE_READONLY, "CHORUS_SPIN_COUNT has scope %d, want MPI_T_SCOPE_READONLY", scope);
    EXPECT(MPI_T_cvar_handle_alloc(ridx, NULL, &h, &count), MPI_SUCCESS);
    EXPECT(MPI_T_cvar_write(h, &spins), MPI_T_ERR_CVAR_SET_NEVER);
    EXPECT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
  }
}

static void check_bad_cvar_args(int num) {
  char name[64];
  int len = sizeof name, idx, count;
  MPI_T_cvar_handle h;
  EXPECT(MPI_T_cvar_get_num(NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_cvar_get_info(-1, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_cvar_get_info(num, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_cvar_get_index("CHORUS_NO_SUCH_VARIABLE", &idx), MPI_T_ERR_INVALID_NAME);
  EXPECT(MPI_T_cvar_get_index("chorus_debug", &idx), MPI_T_ERR_INVALID_NAME);
  EXPECT(MPI_T_cvar_get_index(NULL, &idx), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_cvar_get_index("CHORUS_DEBUG", NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_cvar_handle_alloc(num, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_cvar_handle_alloc(-1, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_cvar_handle_alloc(0, NULL, NULL, &count), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_cvar_handle_alloc(0, NULL, &h, NULL), MPI_T_ERR_INVALID);
  int buf[64];
  EXPECT(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_cvar_read((MPI_T_cvar_handle)buf, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_cvar_write(MPI_T_CVAR_HANDLE_NULL, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_cvar_handle_free(NULL), MPI_T_ERR_INVALID);
  MPI_T_cvar_handle none = MPI_T_CVAR_HANDLE_NULL;
  EXPECT(MPI_T_cvar_handle_free(&none), MPI_T_ERR_INVALID_HANDLE);
  /* A freed handle is no longer valid. */
  EXPECT(MPI_T_cvar_handle_alloc(0, NULL, &h, &count), MPI_SUCCESS);
  MPI_T_cvar_handle old = h;
  EXPECT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
  EXPECT(MPI_T_cvar_read(old, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_cvar_handle_free(&old), MPI_T_ERR_INVALID_HANDLE);
}

static void check_categories(int num_cvar) {
  int ncat = -1, idx = -1;
  EXPECT(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
  CHECK(ncat >= 1, "%d categories", ncat);
  EXPECT(MPI_T_category_get_index("chorus", &idx), MPI_SUCCESS);
  CHECK(idx >= 0 && idx < ncat, "category 'chorus' has index %d", idx);
  if (idx < 0 || idx >= ncat) return;
  char name[64], desc[512];
  int name_len = sizeof name, desc_len = sizeof desc, nc = -1, np = -1, nsub = -1, nev = -1;
  EXPECT(MPI_T_category_get_info(idx, name, &name_len, desc, &desc_len, &nc, &np, &nsub), MPI_SUCCESS);
  CHECK(strcmp(name, "chorus") == 0 && name_len == 7, "category %d is '%s' (length %d)", idx, name, name_len);
  CHECK(desc_len > 1, "category chorus has no description");
  /* "chorus" holds the subsystems' categories; every cvar and pvar is in exactly one of them. */
  CHECK(nc == 0 && np == 0 && nsub >= 5, "category chorus: %d cvars, %d pvars, %d subcategories", nc, np, nsub);
  int num_pvar = 0;
  EXPECT(MPI_T_pvar_get_num(&num_pvar), MPI_SUCCESS);
  int* subs = malloc(sizeof(int) * (size_t)(nsub + 1));
  for (int i = 0; i <= nsub; ++i) subs[i] = -7;
  EXPECT(MPI_T_category_get_categories(idx, nsub + 1, subs), MPI_SUCCESS);
  CHECK(subs[nsub] == -7, "category_get_categories wrote past the number of subcategories");
  char* seen = calloc((size_t)num_cvar + 1, 1);
  char* seen_p = calloc((size_t)num_pvar + 1, 1);
  int in_cats = 0, p_in_cats = 0, p2p_found = 0;
  for (int k = 0; k < nsub; ++k) {
    int sc = -1, sp = -1, ss = -1, len = sizeof name;
    EXPECT(MPI_T_category_get_info(subs[k], name, &len, NULL, NULL, &sc, &sp, &ss), MPI_SUCCESS);
    CHECK(strncmp(name, "chorus_", 7) == 0 && ss == 0, "subcategory '%s' (%d subcategories)", name, ss);
    if (strcmp(name, "chorus_p2p") == 0) p2p_found = sp > 0;
    int* ix = malloc(sizeof(int) * (size_t)(sc + sp + 2));
    for (int i = 0; i <= sc; ++i) ix[i] = -7;
    EXPECT(MPI_T_category_get_cvars(subs[k], sc + 1, ix), MPI_SUCCESS);
    for (int i = 0; i < sc; ++i) {
      CHECK(ix[i] >= 0 && ix[i] < num_cvar && !seen[ix[i]], "category %s entry %d is cvar %d", name, i, ix[i]);
      if (ix[i] >= 0 && ix[i] < num_cvar) seen[ix[i]] = 1;
    }
    CHECK(ix[sc] == -7, "category_get_cvars wrote past the number of cvars");
    in_cats += sc;
    for (int i = 0; i <= sp; ++i) ix[i] = -7;
    EXPECT(MPI_T_category_get_pvars(subs[k], sp + 1, ix), MPI_SUCCESS);
    for (int i = 0; i < sp; ++i) {
      CHECK(ix[i] >= 0 && ix[i] < num_pvar && !seen_p[ix[i]], "category %s entry %d is pvar %d", name, i, ix[i]);
      if (ix[i] >= 0 && ix[i] < num_pvar) seen_p[ix[i]] = 1;
    }
    CHECK(ix[sp] == -7, "category_get_pvars wrote past the number of pvars");
    p_in_cats += sp;
    if (sc >= 3) {
      for (int i = 0; i <= sc; ++i) ix[i] = -7;
      EXPECT(MPI_T_category_get_cvars(subs[k], 2, ix), MPI_SUCCESS);
      CHECK(ix[2] == -7, "category_get_cvars wrote past len");
    }
    EXPECT(MPI_T_category_get_cvars(subs[k], 0, NULL), MPI_SUCCESS);
    free(ix);
  }
  CHECK(in_cats == num_cvar, "%d cvars in the subsystems' categories, want all %d", in_cats, num_cvar);
  CHECK(p_in_cats == num_pvar, "%d pvars in the subsystems' categories, want all %d", p_in_cats, num_pvar);
  CHECK(p2p_found, "no category chorus_p2p with performance variables");
  free(subs);
  free(seen);
  free(seen_p);
  int one[1];
  EXPECT(MPI_T_category_get_pvars(idx, 1, one), MPI_SUCCESS);
  EXPECT(MPI_T_category_get_categories(idx, 1, one), MPI_SUCCESS);
  EXPECT(MPI_T_category_get_num_events(idx, &nev), MPI_SUCCESS);
  CHECK(nev >= 0, "%d events in category chorus", nev);
  EXPECT(MPI_T_category_get_events(idx, 1, one), MPI_SUCCESS);
  int s1 = -1, s2 = -2;
  EXPECT(MPI_T_category_changed(&s1), MPI_SUCCESS);
  EXPECT(MPI_T_category_changed(&s2), MPI_SUCCESS);
  CHECK(s1 == s2, "category stamp changed from %d to %d", s1, s2);

  /* Names of every category round-trip. */
  for (int c = 0; c < ncat; ++c) {
    int len = sizeof name, back = -1;
    EXPECT(MPI_T_category_get_info(c, name, &len, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    EXPECT(MPI_T_category_get_index(name, &back), MPI_SUCCESS);
    CHECK(back == c, "category '%s': index %d, want %d", name, back, c);
  }

  EXPECT(MPI_T_category_get_index("no such category", &idx), MPI_T_ERR_INVALID_NAME);
  EXPECT(MPI_T_category_get_index(NULL, &idx), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_category_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_category_get_cvars(ncat, 1, one), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_category_get_cvars(0, -1, one), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_category_get_cvars(0, 1, NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_category_get_pvars(ncat, 1, one), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_category_get_categories(ncat, 1, one), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_category_get_num_events(ncat, &nev), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_category_get_events(ncat, 1, one), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_category_get_num(NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_category_changed(NULL), MPI_T_ERR_INVALID);
}

static void check_pvars(void) {
  int num = -1, idx;
  EXPECT(MPI_T_pvar_get_num(&num), MPI_SUCCESS);
  CHECK(num >= 0, "%d pvars", num);
  for (int i = 0; i < num; ++i) {
    char name[256];
    int len = sizeof name, cls = -1;
    EXPECT(MPI_T_pvar_get_info(i, name, &len, NULL, &cls, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_SUCCESS);
    EXPECT(MPI_T_pvar_get_index(name, cls, &idx), MPI_SUCCESS);
    CHECK(idx == i, "pvar '%s': index %d, want %d", name, idx, i);
  }
  EXPECT(MPI_T_pvar_get_num(NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_pvar_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
         MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_pvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
         MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_pvar_get_index("no such pvar", MPI_T_PVAR_CLASS_COUNTER, &idx), MPI_T_ERR_INVALID_NAME);
  EXPECT(MPI_T_pvar_get_index(NULL, MPI_T_PVAR_CLASS_COUNTER, &idx), MPI_T_ERR_INVALID);

  MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL, s2 = MPI_T_PVAR_SESSION_NULL;
  EXPECT(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
  EXPECT(MPI_T_pvar_session_create(&s2), MPI_SUCCESS);
  CHECK(s != MPI_T_PVAR_SESSION_NULL && s2 != MPI_T_PVAR_SESSION_NULL && s != s2, "sessions %p and %p",
        (void*)s, (void*)s2);
  MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
  int count, buf[16];
  EXPECT(MPI_T_pvar_handle_alloc(s, num, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_pvar_handle_alloc(s, 0, NULL, NULL, &count), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, 0, NULL, &h, &count), MPI_T_ERR_INVALID_SESSION);
  EXPECT(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  EXPECT(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  EXPECT(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  EXPECT(MPI_T_pvar_start(s, MPI_T_PVAR_HANDLE_NULL), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_pvar_stop(s, MPI_T_PVAR_HANDLE_NULL), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_pvar_reset(s, MPI_T_PVAR_HANDLE_NULL), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_pvar_read(s, MPI_T_PVAR_HANDLE_NULL, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_pvar_readreset(s, MPI_T_PVAR_HANDLE_NULL, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_pvar_write(s, MPI_T_PVAR_HANDLE_NULL, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_pvar_read(s, MPI_T_PVAR_HANDLE_NULL, NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_pvar_handle_free(s, &h), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_pvar_handle_free(s, NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_pvar_session_create(NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_pvar_session_free(NULL), MPI_T_ERR_INVALID);

  MPI_T_pvar_session old = s;
  EXPECT(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
  CHECK(s == MPI_T_PVAR_SESSION_NULL, "session_free left the session set");
  EXPECT(MPI_T_pvar_session_free(&old), MPI_T_ERR_INVALID_SESSION);
  EXPECT(MPI_T_pvar_start(old, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
  EXPECT(MPI_T_pvar_read(old, MPI_T_PVAR_HANDLE_NULL, buf), MPI_T_ERR_INVALID_SESSION);
  EXPECT(MPI_T_pvar_handle_free(old, &h), MPI_T_ERR_INVALID_SESSION);
  EXPECT(MPI_T_pvar_start(s2, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);  /* the other one lives on */
  EXPECT(MPI_T_pvar_session_free(&s2), MPI_SUCCESS);
}

/* A handle of the pvar called `name` (class `cls`) in session `s`. */
static MPI_T_pvar_handle pvar_handle(MPI_T_pvar_session s, const char* name, int cls) {
  int idx = -1, count = -1;
  MPI_T_pvar_handle h = MPI_T_PVAR_HANDLE_NULL;
  EXPECT(MPI_T_pvar_get_index(name, cls, &idx), MPI_SUCCESS);
  if (idx < 0) return h;
  EXPECT(MPI_T_pvar_handle_alloc(s, idx, NULL, &h, &count), MPI_SUCCESS);
  CHECK(count == 1, "pvar %s: count %d", name, count);
  return h;
}

static unsigned long long pvar_value(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
  unsigned long long v = ~0ULL;
  EXPECT(MPI_T_pvar_read(s, h, &v), MPI_SUCCESS);
  return v;
}

/* The counters count what this rank did: 10 messages of 8 B through the node's
 * rings, 3 allreduces run by the algorithm CHORUS_ALLREDUCE_ALGO forced, time in
 * progress only while the timer runs; reset, write and readreset act on the
 * handle; the level is read-only and the counters cannot be started. */
static void check_pvar_values(void) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_T_pvar_session s;
  EXPECT(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
  MPI_T_pvar_handle msgs = pvar_handle(s, "p2p_ring_eager_messages", MPI_T_PVAR_CLASS_COUNTER);
  MPI_T_pvar_handle bytes = pvar_handle(s, "p2p_ring_eager_bytes", MPI_T_PVAR_CLASS_COUNTER);
  MPI_T_pvar_handle algo = pvar_handle(s, "coll_allreduce_recursive_doubling", MPI_T_PVAR_CLASS_COUNTER);
  MPI_T_pvar_handle level = pvar_handle(s, "p2p_ring_unexpected", MPI_T_PVAR_CLASS_LEVEL);
  MPI_T_pvar_handle timer = pvar_handle(s, "p2p_progress_time", MPI_T_PVAR_CLASS_TIMER);
  CHECK(pvar_value(s, msgs) == 0 && pvar_value(s, algo) == 0, "a new counter handle reads %llu and %llu",
        pvar_value(s, msgs), pvar_value(s, algo));
  int v = rank, sum = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  /* Collectives of the barrier above run through the rings too: start from here. */
  EXPECT(MPI_T_pvar_reset(s, msgs), MPI_SUCCESS);
  EXPECT(MPI_T_pvar_reset(s, bytes), MPI_SUCCESS);
  if (size >= 2 && rank < 2) {
    for (int i = 0; i < 10; ++i) {
      if (rank == 0) MPI_Send(&v, 2, MPI_INT, 1, 5, MPI_COMM_WORLD);
      else MPI_Recv(&v, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  const unsigned long long sent = rank == 0 && size >= 2 ? 10 : 0;
  CHECK(pvar_value(s, msgs) == sent && pvar_value(s, bytes) == 8 * sent, "%llu messages and %llu bytes, want %llu and %llu",
        pvar_value(s, msgs), pvar_value(s, bytes), sent, 8 * sent);
  for (int i = 0; i < 3; ++i) MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const unsigned long long want = 3;
  CHECK(pvar_value(s, algo) == want, "recursive_doubling ran %llu allreduces, want %llu", pvar_value(s, algo), want);
  /* readreset, write and reset change what this handle reads. */
  unsigned long long got = 0, forty = 40;
  EXPECT(MPI_T_pvar_readreset(s, algo, &got), MPI_SUCCESS);
  CHECK(got == want && pvar_value(s, algo) == 0, "readreset gave %llu, then %llu", got, pvar_value(s, algo));
  EXPECT(MPI_T_pvar_write(s, algo, &forty), MPI_SUCCESS);
  MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(pvar_value(s, algo) == 41, "written 40, then one allreduce: %llu", pvar_value(s, algo));
  /* Messages that arrive before their receive keep their bytes in a buffer that
   * the next early arrival reuses: 50 of 64 KiB (fragments through the ring, or
   * read single-copy where ranks outnumber the CPUs), each seen by Iprobe before
   * MPI_Recv takes it, allocate a few buffers, not one each. */
  MPI_T_pvar_handle allocs = pvar_handle(s, "p2p_ring_unexpected_allocs", MPI_T_PVAR_CLASS_COUNTER);
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT(MPI_T_pvar_reset(s, allocs), MPI_SUCCESS);
  if (size >= 2 && rank < 2) {
    enum { kEarly = 50, kLen = 65536 };
    unsigned char* b = malloc(kLen);
    for (int i = 0; i < kEarly && b; ++i) {
      if (rank == 0) {
        memset(b, i, kLen);
        MPI_Send(b, kLen, MPI_BYTE, 1, 6, MPI_COMM_WORLD);
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        int flag = 0;
        while (!flag) MPI_Iprobe(0, 6, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Recv(b, kLen, MPI_BYTE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(b[0] == (unsigned char)i && b[kLen - 1] == (unsigned char)i, "early message %d: bytes %d and %d", i,
              b[0], b[kLen - 1]);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
      }
    }
    free(b);
  }
  CHECK(pvar_value(s, allocs) <= 4, "%llu buffers allocated for 50 early messages", pvar_value(s, allocs));
  /* A collective's messages of 256 KiB-1 MiB between the two ranks of a 2-rank
   * job whose ranks have two CPUs between them go through UCX's pipelined copy,
   * announced on the rings, instead of a single copy (which point-to-point of that
   * size uses where the ranks may read each other's memory). */
  MPI_T_pvar_handle announced = pvar_handle(s, "p2p_ucx_announced_messages", MPI_T_PVAR_CLASS_COUNTER);
  MPI_T_pvar_handle single = pvar_handle(s, "p2p_ring_single_copy_messages", MPI_T_PVAR_CLASS_COUNTER);
  unsigned long mask[CPU_SETSIZE / (8 * sizeof(unsigned long))] = {0};
  cpu_set_t mine;
  if (sched_getaffinity(0, sizeof mine, &mine) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &mine)) mask[c / (8 * sizeof(unsigned long))] |= 1UL << (c % (8 * sizeof(unsigned long)));
  MPI_Allreduce(MPI_IN_PLACE, mask, (int)(sizeof mask / sizeof mask[0]), MPI_UNSIGNED_LONG, MPI_BOR, MPI_COMM_WORLD);
  int cpus = 0;
  for (size_t w = 0; w < sizeof mask / sizeof mask[0]; ++w) cpus += __builtin_popcountl(mask[w]);
  if (size == 2 && cpus >= 2) {
    enum { kFloats = 1 << 17 }; /* 512 KiB: above the ring's copies, within single copy's sizes */
    float* in = malloc(kFloats * sizeof(float));
    float* out = malloc(kFloats * sizeof(float));
    for (int i = 0; in && out && i < kFloats; ++i) in[i] = (float)(rank + 1);
    if (in && out) {
      MPI_Barrier(MPI_COMM_WORLD);
      EXPECT(MPI_T_pvar_reset(s, announced), MPI_SUCCESS);
      EXPECT(MPI_T_pvar_reset(s, single), MPI_SUCCESS);
      MPI_Allreduce(in, out, kFloats, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      CHECK(out[0] == 3.0f && out[kFloats - 1] == 3.0f, "512 KiB allreduce: %g and %g, want 3", out[0],
            out[kFloats - 1]);
      CHECK(pvar_value(s, announced) >= 1 && pvar_value(s, single) == 0,
            "512 KiB allreduce: %llu messages pipelined through UCX (want some), %llu single-copy (want none)",
            pvar_value(s, announced), pvar_value(s, single));
      EXPECT(MPI_T_pvar_reset(s, announced), MPI_SUCCESS);
      EXPECT(MPI_T_pvar_reset(s, single), MPI_SUCCESS);
      MPI_Sendrecv(in, kFloats, MPI_FLOAT, 1 - rank, 8, out, kFloats, MPI_FLOAT, 1 - rank, 8, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      CHECK(out[0] == (float)(2 - rank), "512 KiB sendrecv: %g", out[0]);
      /* Without single copy (ptrace rules, CHORUS_P2P_SHM_CMA=off) UCX carries it. */
      CHECK(pvar_value(s, single) == 0 || pvar_value(s, announced) == 0,
            "512 KiB point-to-point: %llu single-copy and %llu through UCX", pvar_value(s, single),
            pvar_value(s, announced));
    }
    free(in);
    free(out);
  }
  /* The level: read-only, nothing waiting once every rank is past a barrier. */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(pvar_value(s, level) == 0, "%llu unexpected messages", pvar_value(s, level));
  EXPECT(MPI_T_pvar_write(s, level, &forty), MPI_T_ERR_PVAR_NO_WRITE);
  EXPECT(MPI_T_pvar_reset(s, level), MPI_T_ERR_PVAR_NO_WRITE);
  EXPECT(MPI_T_pvar_readreset(s, level, &got), MPI_T_ERR_PVAR_NO_WRITE);
  EXPECT(MPI_T_pvar_start(s, msgs), MPI_T_ERR_PVAR_NO_STARTSTOP);
  EXPECT(MPI_T_pvar_stop(s, msgs), MPI_T_ERR_PVAR_NO_STARTSTOP);
  /* The timer: zero until started, grows while started (each MPI_Iprobe polls
   * once; a barrier through the shared window may find its peers there already
   * and never poll, as it did when other load descheduled this rank), stays put
   * once stopped. */
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(pvar_value(s, timer) == 0, "a timer never started reads %llu", pvar_value(s, timer));
  EXPECT(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
  for (int i = 0; i < 20; ++i) {
    int flag = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT(MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK(!flag, "a message with tag 99 that nobody sent");
  }
  EXPECT(MPI_T_pvar_stop(s, timer), MPI_SUCCESS);
  const unsigned long long t1 = pvar_value(s, timer);
  CHECK(t1 > 0, "no time in progress over 20 barriers and probes");
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(pvar_value(s, timer) == t1, "a stopped timer moved from %llu to %llu", t1, pvar_value(s, timer));
  EXPECT(MPI_T_pvar_reset(s, timer), MPI_SUCCESS);
  CHECK(pvar_value(s, timer) == 0, "a reset timer reads %llu", pvar_value(s, timer));
  /* Another session's handle is not one of this session's. */
  MPI_T_pvar_session s2;
  EXPECT(MPI_T_pvar_session_create(&s2), MPI_SUCCESS);
  EXPECT(MPI_T_pvar_read(s2, msgs, &got), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_pvar_session_free(&s2), MPI_SUCCESS);
  EXPECT(MPI_T_pvar_handle_free(s, &msgs), MPI_SUCCESS);
  CHECK(msgs == MPI_T_PVAR_HANDLE_NULL, "handle_free left the handle set");
  EXPECT(MPI_T_pvar_session_free(&s), MPI_SUCCESS);  /* frees the other handles */
}

static void check_events(void) {
  int num = -1, idx;
  EXPECT(MPI_T_event_get_num(&num), MPI_SUCCESS);
  CHECK(num >= 0, "%d event types", num);
  EXPECT(MPI_T_event_get_num(NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_event_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
         MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_event_get_index("no such event", &idx), MPI_T_ERR_INVALID_NAME);
  EXPECT(MPI_T_event_get_index(NULL, &idx), MPI_T_ERR_INVALID);
  MPI_T_event_registration reg = NULL;
  EXPECT(MPI_T_event_handle_alloc(num, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_event_handle_free(reg, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
  MPI_Info info;
  EXPECT(MPI_T_event_handle_get_info(reg, &info), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_event_handle_set_info(reg, MPI_INFO_NULL), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_NONE, &info), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_event_set_dropped_handler(reg, NULL), MPI_T_ERR_INVALID_HANDLE);
  char buf[64];
  MPI_Count ts;
  int src;
  EXPECT(MPI_T_event_read(NULL, 0, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_event_copy(NULL, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_event_get_timestamp(NULL, &ts), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_event_get_source(NULL, &src), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_event_get_timestamp(NULL, NULL), MPI_T_ERR_INVALID);
}

static void check_sources(void) {
  int num = -1;
  EXPECT(MPI_T_source_get_num(&num), MPI_SUCCESS);
  CHECK(num >= 1, "%d sources", num);
  if (num < 1) return;
  char name[64], desc[256];
  int name_len = sizeof name, desc_len = sizeof desc;
  MPI_T_source_order order = MPI_T_SOURCE_UNORDERED;
  MPI_Count tps = -1, max = -1;
  MPI_Info info = MPI_INFO_NULL;
  EXPECT(MPI_T_source_get_info(0, name, &name_len, desc, &desc_len, &order, &tps, &max, &info), MPI_SUCCESS);
  CHECK(name_len > 1 && name_len == (int)strlen(name) + 1, "source name '%s', length %d", name, name_len);
  CHECK(order == MPI_T_SOURCE_ORDERED, "source 0 is not ordered");
  CHECK(tps == 1000000000, "source 0: %ld ticks per second", (long)tps);
  CHECK(max > 0, "source 0: max_ticks %ld", (long)max);
  CHECK(info != MPI_INFO_NULL, "source 0: no info object");
  if (info != MPI_INFO_NULL) EXPECT(MPI_Info_free(&info), MPI_SUCCESS);
  EXPECT(MPI_T_source_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
  EXPECT(MPI_T_source_get_info(num, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);

  MPI_Count t0 = -1, t1 = -1;
  EXPECT(MPI_T_source_get_timestamp(0, &t0), MPI_SUCCESS);
  for (long i = 0; i < 100000000L; ++i) {
    EXPECT(MPI_T_source_get_timestamp(0, &t1), MPI_SUCCESS);
    if (t1 != t0) break;
  }
  CHECK(t1 > t0, "timestamps %ld then %ld: the clock did not move forward", (long)t0, (long)t1);
  /* About 10 ms of MPI_Wtime against the source: the same rate. */
  double w0 = MPI_Wtime();
  EXPECT(MPI_T_source_get_timestamp(0, &t0), MPI_SUCCESS);
  while (MPI_Wtime() - w0 < 0.01) {}
  EXPECT(MPI_T_source_get_timestamp(0, &t1), MPI_SUCCESS);
  double w1 = MPI_Wtime();
  double ticks = (double)(t1 - t0), secs = w1 - w0;
  CHECK(ticks > 0.5 * secs * 1e9 && ticks < 2.0 * secs * 1e9, "%.0f ticks in %.6f s", ticks, secs);
  EXPECT(MPI_T_source_get_timestamp(num, &t0), MPI_T_ERR_INVALID_INDEX);
  EXPECT(MPI_T_source_get_timestamp(0, NULL), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_source_get_num(NULL), MPI_T_ERR_INVALID);
}

/* Threads that initialize MPI_T themselves and allocate, read and free handles
 * and sessions at once: every call must succeed (one lock guards the state). */
enum { kThreads = 4, kRounds = 500 };
static int thread_errs[kThreads];

static void* hammer(void* arg) {
  int t = (int)(long)arg, provided, num = 0, bad = 0;
  bad += MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS;
  bad += MPI_T_cvar_get_num(&num) != MPI_SUCCESS || num <= 0;
  for (int r = 0; r < kRounds && num > 0 && !bad; ++r) {
    int i = (r * kThreads + t) % num, count = 0;
    MPI_T_cvar_handle h;
    MPI_T_pvar_session s;
    MPI_Datatype type;
    bad += MPI_T_cvar_get_info(i, NULL, NULL, NULL, &type, NULL, NULL, NULL, NULL, NULL) != MPI_SUCCESS;
    bad += MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS;
    void* buf = malloc((size_t)(count > 0 ? count : 1) * type_size(type));
    bad += MPI_T_cvar_read(h, buf) != MPI_SUCCESS;
    free(buf);
    bad += MPI_T_cvar_handle_free(&h) != MPI_SUCCESS;
    bad += MPI_T_pvar_session_create(&s) != MPI_SUCCESS;
    bad += MPI_T_pvar_session_free(&s) != MPI_SUCCESS;
  }
  bad += MPI_T_finalize() != MPI_SUCCESS;
  thread_errs[t] = bad;
  return NULL;
}

static void check_threads(void) {
  pthread_t th[kThreads];
  for (long t = 0; t < kThreads; ++t) CHECK(pthread_create(&th[t], NULL, hammer, (void*)t) == 0, "thread %ld", t);
  for (int t = 0; t < kThreads; ++t) pthread_join(th[t], NULL);
  for (int t = 0; t < kThreads; ++t) CHECK(thread_errs[t] == 0, "thread %d: %d failed calls", t, thread_errs[t]);
}

static void check_not_initialized(const char* when) {
  int n;
  MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
  MPI_T_pvar_session s;
  MPI_Count ts;
  int rc = MPI_T_cvar_get_num(&n);
  CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "%s: cvar_get_num returned %d", when, rc);
  rc = MPI_T_cvar_get_index("CHORUS_DEBUG", &n);
  CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "%s: cvar_get_index returned %d", when, rc);
  rc = MPI_T_cvar_handle_alloc(0, NULL, &h, &n);
  CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "%s: cvar_handle_alloc returned %d", when, rc);
  rc = MPI_T_pvar_session_create(&s);
  CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "%s: pvar_session_create returned %d", when, rc);
  rc = MPI_T_category_get_num(&n);
  CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "%s: category_get_num returned %d", when, rc);
  rc = MPI_T_source_get_timestamp(0, &ts);
  CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "%s: source_get_timestamp returned %d", when, rc);
  rc = MPI_T_event_get_num(&n);
  CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "%s: event_get_num returned %d", when, rc);
  rc = MPI_T_finalize();
  CHECK(rc == MPI_T_ERR_NOT_INITIALIZED, "%s: finalize returned %d", when, rc);
}

int main(int argc, char** argv) {
  check_not_initialized("before MPI_T_init_thread");

  /* Before MPI_Init, nested. */
  int provided = -1;
  EXPECT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d", provided);
  EXPECT(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
  CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_T grants thread level %d, want MPI_THREAD_MULTIPLE", provided);
  EXPECT(MPI_T_init_thread(MPI_THREAD_SINGLE, NULL), MPI_T_ERR_INVALID);
  int num_cvar = -1;
  EXPECT(MPI_T_cvar_get_num(&num_cvar), MPI_SUCCESS);
  CHECK(num_cvar > 0, "%d cvars before MPI_Init", num_cvar);

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  int n2 = -1;
  EXPECT(MPI_T_cvar_get_num(&n2), MPI_SUCCESS);
  CHECK(n2 == num_cvar, "%d cvars after MPI_Init, %d before", n2, num_cvar);
  if (num_cvar > 0) {
    check_cvars(num_cvar);
    check_strings(num_cvar);
    check_bad_cvar_args(num_cvar);
    check_categories(num_cvar);
  }
  check_debug();
  check_pvars();
  check_pvar_values();
  check_events();
  check_sources();
  check_threads();

  /* A handle that outlives the last MPI_T_finalize. */
  MPI_T_cvar_handle kept = MPI_T_CVAR_HANDLE_NULL;
  int count;
  EXPECT(MPI_T_cvar_handle_alloc(0, NULL, &kept, &count), MPI_SUCCESS);

  MPI_Finalize();

  /* MPI_T outlives MPI: still initialized twice. */
  EXPECT(MPI_T_cvar_get_num(&n2), MPI_SUCCESS);
  EXPECT(MPI_T_finalize(), MPI_SUCCESS);
  EXPECT(MPI_T_cvar_get_num(&n2), MPI_SUCCESS);
  EXPECT(MPI_T_finalize(), MPI_SUCCESS);
  check_not_initialized("after the last MPI_T_finalize");

  /* Again after MPI_Finalize: the old handle is gone. */
  EXPECT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
  EXPECT(MPI_T_cvar_get_num(&n2), MPI_SUCCESS);
  CHECK(n2 == num_cvar, "%d cvars after MPI_Finalize, %d before", n2, num_cvar);
  char buf[4096];
  EXPECT(MPI_T_cvar_read(kept, buf), MPI_T_ERR_INVALID_HANDLE);
  EXPECT(MPI_T_finalize(), MPI_SUCCESS);
  check_not_initialized("after MPI_Finalize and the last MPI_T_finalize");

  if (errs) {
    printf("mpit r%d: %d errors\n", rank, errs);
    return 1;
  }
  if (rank == 0) printf("No Errors\n");
  return 0;
}
