/* The MPI tool information interface (MPI_T): set-up before MPI_Init and after
 * MPI_Finalize (nested), every control variable's info and value, the string
 * conventions, CHORUS_DEBUG and its enumeration (run with CHORUS_DEBUG set by
 * meson), writes of the log's level and subsystems, refused writes of the other rows, the categories (one per subsystem under "chorus"),
 * performance variables that count what the job did (messages on the rings,
 * collective algorithm uses, the progress timer), pvar sessions, events (every
 * type's info and category; chorus_coll_algorithm and chorus_p2p_unexpected
 * raised by the job and read inside restricted callbacks; a NONE callback's
 * instances kept through the calls that raise them, handed over at the start of
 * MPI_Wait and MPI_Finalize, the rest reported dropped), the event
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
    /* The log's level and subsystems, and whether large shared-window calls may leave the
       window (read at each such call), may be written; the rest is read once at start-up. */
    const int writable = strcmp(name, "CHORUS_DEBUG") == 0 || strcmp(name, "CHORUS_DEBUG_SUBSYS") == 0 ||
                         strcmp(name, "CHORUS_COLL_BUSY_SWITCH") == 0;
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
  int v[2] = {rank, rank}, sum = 0;  /* two ints travel below */
  MPI_Barrier(MPI_COMM_WORLD);
  /* Collectives of the barrier above run through the rings too: start from here. */
  EXPECT(MPI_T_pvar_reset(s, msgs), MPI_SUCCESS);
  EXPECT(MPI_T_pvar_reset(s, bytes), MPI_SUCCESS);
  if (size >= 2 && rank < 2) {
    for (int i = 0; i < 10; ++i) {
      if (rank == 0) MPI_Send(v, 2, MPI_INT, 1, 5, MPI_COMM_WORLD);
      else MPI_Recv(v, 2, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  const unsigned long long sent = rank == 0 && size >= 2 ? 10 : 0;
  CHECK(pvar_value(s, msgs) == sent && pvar_value(s, bytes) == 8 * sent, "%llu messages and %llu bytes, want %llu and %llu",
        pvar_value(s, msgs), pvar_value(s, bytes), sent, 8 * sent);
  for (int i = 0; i < 3; ++i) MPI_Allreduce(v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const unsigned long long want = 3;
  CHECK(pvar_value(s, algo) == want, "recursive_doubling ran %llu allreduces, want %llu", pvar_value(s, algo), want);
  /* readreset, write and reset change what this handle reads. */
  unsigned long long got = 0, forty = 40;
  EXPECT(MPI_T_pvar_readreset(s, algo, &got), MPI_SUCCESS);
  CHECK(got == want && pvar_value(s, algo) == 0, "readreset gave %llu, then %llu", got, pvar_value(s, algo));
  EXPECT(MPI_T_pvar_write(s, algo, &forty), MPI_SUCCESS);
  MPI_Allreduce(v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
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
  CHECK(num >= 3, "%d event types", num);
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

/* ---- events raised by the runtime ---- */

#define MAX_SEEN 4096
struct seen {
  int elems[8];          /* the MPI_INT elements, in order */
  MPI_Count counts[8];   /* the MPI_COUNT elements, in order */
  MPI_Count ts;
  int source;
  int safety;
  unsigned char copy[64];
};
static struct seen g_seen[MAX_SEEN];
static int g_nseen = 0;
static MPI_T_event_instance g_last_instance = NULL;
static int g_cb_errors = 0;       /* restricted calls that failed inside a callback */
static int g_none_seen = 0;       /* instances the MPI_T_CB_REQUIRE_NONE callback got */
static int g_none_safety_bad = 0; /* ... with another cb_safety than NONE */
static int g_none_match = 0;      /* ... of the allreduce of count 41 */
static long long g_dropped = 0;   /* reported by the dropped handler */
static int g_freed = 0;           /* the free callback ran, with the right user data */
static int g_coll_raised = 0;     /* coll_cb calls */
static int g_late_seen = 0;       /* instances the NONE callback of the registration kept to the end got */
static int g_late_match = 0;      /* ... of the allreduce of count 43 */
static int g_late_key;            /* its user data */
static int g_event_types[3];      /* event index of coll_algorithm, p2p_unexpected, hang_wait */
static MPI_Datatype g_elem_types[3][8];
static int g_nelems[3];

/* Reads one instance with the restricted calls: its elements, timestamp, source and copy. */
static void record(MPI_T_event_instance ev, int which, MPI_T_cb_safety safety) {
  if (g_nseen >= MAX_SEEN) return;
  struct seen* s = &g_seen[g_nseen++];
  memset(s, 0, sizeof *s);
  int ni = 0, nc = 0;
  for (int e = 0; e < g_nelems[which]; ++e) {
    if (g_elem_types[which][e] == MPI_INT) {
      if (MPI_T_event_read(ev, e, &s->elems[ni++]) != MPI_SUCCESS) ++g_cb_errors;
    } else if (g_elem_types[which][e] == MPI_COUNT) {
      if (MPI_T_event_read(ev, e, &s->counts[nc++]) != MPI_SUCCESS) ++g_cb_errors;
    }
  }
  char big[8];
  if (MPI_T_event_read(ev, g_nelems[which], big) != MPI_T_ERR_INVALID_INDEX) ++g_cb_errors;
  if (MPI_T_event_get_timestamp(ev, &s->ts) != MPI_SUCCESS) ++g_cb_errors;
  if (MPI_T_event_get_source(ev, &s->source) != MPI_SUCCESS) ++g_cb_errors;
  if (MPI_T_event_copy(ev, s->copy) != MPI_SUCCESS) ++g_cb_errors;
  s->safety = (int)safety;
  g_last_instance = ev;
}

static void coll_cb(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety safety, void* ud) {
  (void)reg;
  if (ud != (void*)&g_event_types[0]) ++g_cb_errors;
  ++g_coll_raised;
  record(ev, 0, safety);
}

static void unexpected_cb(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety safety,
                          void* ud) {
  (void)reg;
  (void)ud;
  record(ev, 1, safety);
}

static void none_cb(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety safety, void* ud) {
  (void)reg;
  const int late = ud == (void*)&g_late_key;
  ++*(late ? &g_late_seen : &g_none_seen);
  if (safety != MPI_T_CB_REQUIRE_NONE) ++g_none_safety_bad;
  MPI_Count count = -1;
  int collective = -1;
  if (MPI_T_event_read(ev, 1, &collective) != MPI_SUCCESS || MPI_T_event_read(ev, 3, &count) != MPI_SUCCESS)
    ++g_cb_errors;
  if (count == 41 && !late) ++g_none_match;
  if (count == 43 && late) ++g_late_match;
  /* Any MPI call may be made here. */
  int size = 0;
  if (MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS || size < 1) ++g_cb_errors;
}

static void dropped_cb(MPI_Count count, MPI_T_event_registration reg, int source, MPI_T_cb_safety safety,
                       void* ud) {
  (void)reg;
  (void)ud;
  (void)safety;
  if (source != 0) ++g_cb_errors;
  g_dropped += count;
}

static void free_cb(MPI_T_event_registration reg, MPI_T_cb_safety safety, void* ud) {
  (void)reg;
  (void)safety;
  if (ud == (void*)&g_freed) g_freed = 1;
}

static int event_index(const char* name) {
  int idx = -1;
  EXPECT(MPI_T_event_get_index(name, &idx), MPI_SUCCESS);
  return idx;
}

/* The name of pvar `index` is `want`. */
static int pvar_named(int index, const char* want) {
  char name[256];
  int len = sizeof name;
  if (MPI_T_pvar_get_info(index, name, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL) !=
      MPI_SUCCESS)
    return 0;
  return strcmp(name, want) == 0;
}

/* Every event type: its info, elements and category; then what the runtime raises. */
static void check_event_types(int num) {
  const char* names[3] = {"chorus_coll_algorithm", "chorus_p2p_unexpected", "chorus_hang_wait"};
  for (int k = 0; k < 3; ++k) {
    int idx = g_event_types[k] = event_index(names[k]);
    if (idx < 0) continue;
    char name[64], desc[2048];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = -1, bind = -1, n = 0;
    MPI_T_enum en = MPI_T_ENUM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    /* NULL arrays: the count only. */
    EXPECT(MPI_T_event_get_info(idx, NULL, NULL, NULL, NULL, NULL, &n, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(n > 0 && n <= 8, "%s: %d elements", names[k], n);
    MPI_Aint disp[8];
    int want = n;
    EXPECT(MPI_T_event_get_info(idx, name, &name_len, &verbosity, g_elem_types[k], disp, &n, &en, &info, desc,
                                &desc_len, &bind),
           MPI_SUCCESS);
    g_nelems[k] = n;
    CHECK(n == want, "%s: %d elements, then %d", names[k], want, n);
    CHECK(strcmp(name, names[k]) == 0 && name_len == (int)strlen(name) + 1, "event %d is '%s'", idx, name);
    CHECK(desc_len > 40 && strstr(desc, "Elements:") != NULL, "%s: description '%s'", names[k], desc);
    CHECK(bind == MPI_T_BIND_NO_OBJECT, "%s: bound to %d", names[k], bind);
    CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL, "%s: verbosity %d",
          names[k], verbosity);
    CHECK(info != MPI_INFO_NULL, "%s: no info object", names[k]);
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    MPI_Aint end = 0;
    for (int e = 0; e < n && e < 8; ++e) {
      CHECK(g_elem_types[k][e] == MPI_INT || g_elem_types[k][e] == MPI_COUNT || g_elem_types[k][e] == MPI_DOUBLE,
            "%s: element %d has an unexpected datatype", names[k], e);
      CHECK(disp[e] >= end && disp[e] % (MPI_Aint)type_size(g_elem_types[k][e]) == 0,
            "%s: element %d at %ld overlaps or is unaligned", names[k], e, (long)disp[e]);
      end = disp[e] + (MPI_Aint)type_size(g_elem_types[k][e]);
    }
    CHECK(end <= 64, "%s: data of %ld bytes", names[k], (long)end);
    if (k == 0) {
      int items = 0;
      char ename[64];
      int elen = sizeof ename;
      CHECK(en != MPI_T_ENUM_NULL, "chorus_coll_algorithm has no enumeration of the collectives");
      if (en != MPI_T_ENUM_NULL) {
        EXPECT(MPI_T_enum_get_info(en, &items, ename, &elen), MPI_SUCCESS);
        CHECK(items > 10, "%d collectives in '%s'", items, ename);
      }
    }
  }
  /* Each event type is in exactly one category. */
  int ncat = 0, total = 0;
  EXPECT(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
  for (int c = 0; c < ncat; ++c) {
    int ne = 0, list[16];
    EXPECT(MPI_T_category_get_num_events(c, &ne), MPI_SUCCESS);
    total += ne;
    if (ne > 16) ne = 16;
    EXPECT(MPI_T_category_get_events(c, ne, list), MPI_SUCCESS);
    for (int i = 0; i < ne; ++i) CHECK(list[i] >= 0 && list[i] < num, "category %d lists event %d", c, list[i]);
  }
  CHECK(total == num, "%d event types, %d in categories", num, total);
}

static int collective_value(const char* want) {
  int idx = g_event_types[0];
  MPI_T_enum en = MPI_T_ENUM_NULL;
  if (idx < 0 ||
      MPI_T_event_get_info(idx, NULL, NULL, NULL, NULL, NULL, NULL, &en, NULL, NULL, NULL, NULL) != MPI_SUCCESS ||
      en == MPI_T_ENUM_NULL)
    return -1;
  int items = 0;
  MPI_T_enum_get_info(en, &items, NULL, NULL);
  for (int i = 0; i < items; ++i) {
    char name[64];
    int len = sizeof name, value = -1;
    if (MPI_T_enum_get_item(en, i, &value, name, &len) == MPI_SUCCESS && strcmp(name, want) == 0) return value;
  }
  return -1;
}

/* The runtime's events reach the callbacks: at once for one registered at
 * MPI_T_CB_REQUIRE_MPI_RESTRICTED, later for one at MPI_T_CB_REQUIRE_NONE. */
static void check_event_delivery(void) {
  if (g_event_types[0] < 0 || g_event_types[1] < 0) return;
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_T_event_registration coll = NULL, none = NULL, unexp = NULL;
  EXPECT(MPI_T_event_handle_alloc(g_event_types[0], NULL, MPI_INFO_NULL, &coll), MPI_SUCCESS);
  /* A registration without a callback is not called. */
  int in[64], out[64];
  for (int i = 0; i < 64; ++i) in[i] = rank + i;
  MPI_Count t0;
  MPI_T_source_get_timestamp(0, &t0);
  EXPECT(MPI_T_event_register_callback(coll, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &g_event_types[0],
                                       coll_cb),
         MPI_SUCCESS);
  EXPECT(MPI_T_event_register_callback(coll, 7, MPI_INFO_NULL, NULL, coll_cb), MPI_T_ERR_INVALID);
  MPI_Info info = MPI_INFO_NULL;
  EXPECT(MPI_T_event_callback_get_info(coll, MPI_T_CB_REQUIRE_THREAD_SAFE, &info), MPI_SUCCESS);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  EXPECT(MPI_T_event_callback_get_info(coll, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, &info), MPI_T_ERR_INVALID);
  EXPECT(MPI_T_event_handle_get_info(coll, &info), MPI_SUCCESS);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  g_nseen = 0;
  EXPECT(MPI_Allreduce(in, out, 37, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  MPI_Count t1;
  MPI_T_source_get_timestamp(0, &t1);
  int found = 0;
  const int allreduce = collective_value("allreduce");
  CHECK(allreduce >= 0, "no 'allreduce' in the collectives' enumeration");
  for (int i = 0; i < g_nseen; ++i) {
    struct seen* s = &g_seen[i];
    /* comm, collective, algorithm_pvar, internal; count, element_size */
    if (s->elems[0] != (int)MPI_COMM_WORLD || s->counts[0] != 37) continue;
    ++found;
    CHECK(s->elems[1] == allreduce, "collective %d, want allreduce (%d)", s->elems[1], allreduce);
    CHECK(pvar_named(s->elems[2], "coll_allreduce_recursive_doubling"),
          "the algorithm's pvar %d is not coll_allreduce_recursive_doubling", s->elems[2]);
    CHECK(s->counts[1] == (MPI_Count)sizeof(int), "element size %ld", (long)s->counts[1]);
    CHECK(s->elems[3] == 0, "the user's allreduce is marked internal");
    CHECK(s->ts >= t0 && s->ts <= t1, "timestamp %lld outside [%lld, %lld]", (long long)s->ts, (long long)t0,
          (long long)t1);
    CHECK(s->source == 0, "source %d", s->source);
    CHECK(s->safety == MPI_T_CB_REQUIRE_MPI_RESTRICTED, "called with cb_safety %d", s->safety);
    int comm_copied;
    memcpy(&comm_copied, s->copy, sizeof comm_copied);
    CHECK(comm_copied == (int)MPI_COMM_WORLD, "MPI_T_event_copy's first element reads %d", comm_copied);
  }
  CHECK(found == 1, "%d chorus_coll_algorithm events for the allreduce of 37 (of %d seen)", found, g_nseen);
  CHECK(g_cb_errors == 0, "%d restricted calls failed inside the callbacks", g_cb_errors);
  /* An instance is valid only inside its callback. */
  char buf[64];
  if (g_last_instance) EXPECT(MPI_T_event_read(g_last_instance, 0, buf), MPI_T_ERR_INVALID_HANDLE);

  /* A NULL function removes the callback: nothing more arrives. */
  EXPECT(MPI_T_event_register_callback(coll, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, NULL, NULL),
         MPI_SUCCESS);
  g_nseen = 0;
  EXPECT(MPI_Allreduce(in, out, 39, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  CHECK(g_nseen == 0, "%d events after the callback was removed", g_nseen);

  /* A callback at NONE only: kept and handed over later, or reported dropped.
   * The restricted callback on `coll` counts what was raised meanwhile. */
  EXPECT(MPI_T_event_register_callback(coll, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, &g_event_types[0],
                                       coll_cb),
         MPI_SUCCESS);
  EXPECT(MPI_T_event_handle_alloc(g_event_types[0], NULL, MPI_INFO_NULL, &none), MPI_SUCCESS);
  EXPECT(MPI_T_event_register_callback(none, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, none_cb), MPI_SUCCESS);
  EXPECT(MPI_T_event_set_dropped_handler(none, dropped_cb), MPI_SUCCESS);
  g_nseen = 0;
  g_none_seen = 0;
  g_coll_raised = 0;
  EXPECT(MPI_Allreduce(in, out, 41, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  /* More than any registration keeps: counts that differ call after call take the full path. */
  for (int i = 0; i < 1200; ++i)
    EXPECT(MPI_Allreduce(in, out, 1 + i % 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
  CHECK(g_nseen >= 1201, "%d chorus_coll_algorithm events for 1201 allreduces", g_nseen);
  /* Kept, not handed over inside those calls; at the start of an MPI_Wait, the
   * first 1024 of them, and the dropped handler hears of the rest. */
  CHECK(g_none_seen == 0, "%d instances reached the NONE callback inside the collectives", g_none_seen);
  MPI_Request null_req = MPI_REQUEST_NULL;
  EXPECT(MPI_Wait(&null_req, MPI_STATUS_IGNORE), MPI_SUCCESS);
  CHECK(g_none_seen == 1024 && g_dropped == g_coll_raised - 1024 && g_none_match == 1,
        "MPI_Wait handed the NONE callback %d instances (the allreduce of 41 %d times) and reported %lld dropped, "
        "of %d raised", g_none_seen, g_none_match, g_dropped, g_coll_raised);

  /* Unexpected messages: rank 1 sends before rank 0 receives. */
  EXPECT(MPI_T_event_handle_alloc(g_event_types[1], NULL, MPI_INFO_NULL, &unexp), MPI_SUCCESS);
  EXPECT(MPI_T_event_register_callback(unexp, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, NULL,
                                       unexpected_cb),
         MPI_SUCCESS);
  if (size >= 2) {
    long long v = 12345;
    /* Every rank registered before the message leaves. */
    g_nseen = 0;
    EXPECT(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    if (rank == 1) EXPECT(MPI_Send(&v, 1, MPI_LONG_LONG, 0, 77, MPI_COMM_WORLD), MPI_SUCCESS);
    EXPECT(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    if (rank == 0) {
      /* The barrier may end before the message is read off the ring: a probe reads it. */
      EXPECT(MPI_Probe(1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
      int seen77 = 0;
      for (int i = 0; i < g_nseen; ++i) {
        struct seen* s = &g_seen[i];
        /* source, tag, context; bytes */
        if (s->elems[1] != 77) continue;
        ++seen77;
        CHECK(s->elems[0] == 1, "unexpected message from rank %d, want 1", s->elems[0]);
        CHECK(s->elems[2] % 2 == 0, "context %d of a point-to-point message is odd", s->elems[2]);
        CHECK(s->counts[0] == 8, "unexpected message of %ld bytes, want 8", (long)s->counts[0]);
      }
      CHECK(seen77 == 1, "%d chorus_p2p_unexpected events for the message of tag 77 (of %d)", seen77, g_nseen);
      EXPECT(MPI_Recv(&v, 1, MPI_LONG_LONG, 1, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS);
      CHECK(v == 12345, "received %lld", v);
    }
  }
  EXPECT(MPI_T_event_handle_free(unexp, NULL, NULL), MPI_SUCCESS);
  /* The NONE callback removed: what it still had counts as dropped. */
  EXPECT(MPI_T_event_register_callback(none, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, NULL), MPI_SUCCESS);
  const int raised = g_coll_raised;
  /* Another NONE callback, kept to the end: MPI_Finalize hands it what it kept. */
  MPI_T_event_registration late = NULL;
  EXPECT(MPI_T_event_handle_alloc(g_event_types[0], NULL, MPI_INFO_NULL, &late), MPI_SUCCESS);
  EXPECT(MPI_T_event_register_callback(late, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &g_late_key, none_cb),
         MPI_SUCCESS);
  EXPECT(MPI_Allreduce(in, out, 43, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
  EXPECT(MPI_T_event_handle_free(coll, &g_freed, free_cb), MPI_SUCCESS);
  CHECK(g_freed == 1, "the free callback did not run (or got other user data)");
  EXPECT(MPI_T_event_register_callback(coll, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, NULL, coll_cb),
         MPI_T_ERR_INVALID_HANDLE);
  /* `none` stays registered: MPI_Finalize reports what it lost (main checks). */
  g_event_types[2] = raised;  /* reused: what main compares against after MPI_Finalize */
}

/* After MPI_Finalize: the NONE callback got every instance, or heard it was dropped. */
static void check_events_after_finalize(void) {
  if (g_event_types[0] < 0) return;
  const int raised = g_event_types[2];
  CHECK(g_none_seen + g_dropped == raised, "NONE callback: %d delivered + %lld dropped, %d raised", g_none_seen,
        g_dropped, raised);
  CHECK(g_late_match == 1, "the NONE callback kept to MPI_Finalize: %d delivered, the allreduce of 43 %d times",
        g_late_seen, g_late_match);
  CHECK(g_none_safety_bad == 0, "%d deferred instances came with cb_safety other than NONE", g_none_safety_bad);
  CHECK(g_cb_errors == 0, "%d calls failed inside the callbacks", g_cb_errors);
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
  int num_events = 0;
  MPI_T_event_get_num(&num_events);
  check_event_types(num_events);
  check_event_delivery();
  check_threads();

  /* A handle that outlives the last MPI_T_finalize. */
  MPI_T_cvar_handle kept = MPI_T_CVAR_HANDLE_NULL;
  int count;
  EXPECT(MPI_T_cvar_handle_alloc(0, NULL, &kept, &count), MPI_SUCCESS);

  MPI_Finalize();
  check_events_after_finalize();

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
