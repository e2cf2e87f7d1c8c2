/* A plain PMIx client for the launcher's dynamic-process support: PMIx_Spawn
 * (what MPI_Comm_spawn does) and PMIx_Publish/Lookup/Unpublish (MPI's name
 * service), run as the ranks of a chorusrun job.
 *
 * usage: pmix_spawn parent    rank 0 spawns 3 copies of this program ("child")
 *                             with CHORUS_TEST_SPAWNED=1 and meets them (PMIx_Connect,
 *                             a fence across both namespaces that exchanges values,
 *                             PMIx_Disconnect), then a program that does
 *                             not exist, a spawn of 0 processes and one into a missing
 *                             directory (all must fail), and one into / (PMIX_WDIR:
 *                             "pwd" prints its directory),
 *                             then publishes, looks up and unpublishes names; rank 1
 *                             waits (PMIX_WAIT) for a name rank 0 publishes last.
 *                             Every rank prints "parent R ok" and exits 0.
 *        pmix_spawn child     a spawned copy: checks its job (3 ranks, its own
 *                             namespace, PMIX_SPAWNED, the parent's id, the
 *                             variable), fences with its peers, prints "child R of 3
 *                             ok" and, a moment later (the parents are gone by then),
 *                             "child R done".
 *        pmix_spawn fail CODE rank 0 spawns 2 copies ("failchild CODE"): rank 1 of
 *                             them finalizes and exits CODE, rank 0 waits forever, as
 *                             do the parents; the launcher must end them all.
 *        pmix_spawn abort CODE as fail, but spawned rank 1 calls PMIx_Abort(CODE).
 * Names the failed check and exits 1 on any error. */
#include <pmix.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;
static const char* role = "pmix_spawn";

static void die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "pmix_spawn %s rank %u: ", role, me.rank);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

static pmix_value_t* get(const char* nspace, pmix_rank_t rank, const char* key) {
  pmix_proc_t p;
  pmix_value_t* v = NULL;
  PMIX_PROC_LOAD(&p, nspace, rank);
  pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
  if (rc != PMIX_SUCCESS) die("PMIx_Get(%s): %s", key, PMIx_Error_string(rc));
  return v;
}

static char self_path[PATH_MAX];

static void find_self(void) {
  ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
  if (n <= 0) die("readlink /proc/self/exe failed");
  self_path[n] = '\0';
}

/* PMIx_Spawn of `cmd` with one argument (`arg`, and `arg2` unless NULL),
 * `nprocs` copies, `env` added (or NULL), PMIX_WDIR `job_wdir` among the job's
 * info and `app_wdir` among the app's (unless NULL). */
static pmix_status_t spawn_in(const char* cmd, const char* arg, const char* arg2, int nprocs, const char* env,
                              const char* job_wdir, const char* app_wdir, pmix_nspace_t nspace) {
  pmix_app_t app;
  PMIX_APP_CONSTRUCT(&app);
  app.cmd = strdup(cmd);
  app.argv = calloc(4, sizeof(char*));
  app.argv[0] = strdup(cmd);
  app.argv[1] = strdup(arg);
  if (arg2) app.argv[2] = strdup(arg2);
  if (env) {
    app.env = calloc(2, sizeof(char*));
    app.env[0] = strdup(env);
  }
  app.maxprocs = nprocs;
  if (app_wdir) {
    PMIX_INFO_CREATE(app.info, 1);
    app.ninfo = 1;
    PMIX_INFO_LOAD(&app.info[0], PMIX_WDIR, app_wdir, PMIX_STRING);
  }
  pmix_info_t job;
  if (job_wdir) PMIX_INFO_LOAD(&job, PMIX_WDIR, job_wdir, PMIX_STRING);
  pmix_status_t rc = PMIx_Spawn(job_wdir ? &job : NULL, job_wdir ? 1 : 0, &app, 1, nspace);
  if (job_wdir) PMIX_INFO_DESTRUCT(&job);
  PMIX_APP_DESTRUCT(&app);
  return rc;
}

static pmix_status_t spawn(const char* cmd, const char* arg, const char* arg2, int nprocs, const char* env,
                           pmix_nspace_t nspace) {
  return spawn_in(cmd, arg, arg2, nprocs, env, NULL, NULL, nspace);
}

static void publish(const char* key, const char* value, pmix_status_t expect) {
  pmix_info_t info;
  PMIX_INFO_LOAD(&info, key, value, PMIX_STRING);
  pmix_status_t rc = PMIx_Publish(&info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != expect) die("PMIx_Publish(%s): %s, expected %s", key, PMIx_Error_string(rc), PMIx_Error_string(expect));
}

/* Looks `key` up; with `value`, expects it, else expects `expect`. */
static void lookup(const char* key, const char* value, pmix_status_t expect, bool wait) {
  pmix_pdata_t pd;
  PMIX_PDATA_CONSTRUCT(&pd);
  PMIX_LOAD_KEY(pd.key, key);
  pmix_info_t info;
  bool yes = true;
  PMIX_INFO_LOAD(&info, PMIX_WAIT, &yes, PMIX_BOOL);
  pmix_status_t rc = PMIx_Lookup(&pd, 1, wait ? &info : NULL, wait ? 1 : 0);
  PMIX_INFO_DESTRUCT(&info);
  if (value) {
    if (rc != PMIX_SUCCESS) die("PMIx_Lookup(%s): %s", key, PMIx_Error_string(rc));
    if (pd.value.type != PMIX_STRING || strcmp(pd.value.data.string, value) != 0)
      die("PMIx_Lookup(%s): not the value '%s' published", key, value);
  } else if (rc != expect) {
    die("PMIx_Lookup(%s): %s, expected %s", key, PMIx_Error_string(rc), PMIx_Error_string(expect));
  }
  PMIX_PDATA_DESTRUCT(&pd);
}

static void unpublish(const char* key, pmix_status_t expect) {
  char* keys[2] = {(char*)key, NULL};
  pmix_status_t rc = PMIx_Unpublish(keys, NULL, 0);
  if (rc != expect) die("PMIx_Unpublish(%s): %s, expected %s", key, PMIx_Error_string(rc), PMIx_Error_string(expect));
}

static void fence(void) {
  pmix_status_t rc = PMIx_Fence(NULL, 0, NULL, 0);
  if (rc != PMIX_SUCCESS) die("PMIx_Fence: %s", PMIx_Error_string(rc));
}

/* What MPI_Comm_spawn's two sides may do to meet: PMIx_Connect, then each side
 * puts a value and a fence across both namespaces (rank 0 of the parents and
 * every child) collects them, then each reads the other side's. */
static void meet(const char* parent_ns, pmix_rank_t parent_rank, const char* child_ns, pmix_rank_t nchildren) {
  pmix_proc_t procs[2];
  PMIX_PROC_LOAD(&procs[0], parent_ns, parent_rank);
  PMIX_PROC_LOAD(&procs[1], child_ns, PMIX_RANK_WILDCARD);
  pmix_status_t rc = PMIx_Connect(procs, 2, NULL, 0);
  if (rc != PMIX_SUCCESS) die("PMIx_Connect: %s", PMIx_Error_string(rc));
  const bool is_parent = strcmp(me.nspace, parent_ns) == 0;
  char mine[64];
  snprintf(mine, sizeof mine, "from-%s-%u", is_parent ? "parent" : "child", me.rank);
  pmix_value_t val;
  PMIX_VALUE_LOAD(&val, mine, PMIX_STRING);
  rc = PMIx_Put(PMIX_GLOBAL, is_parent ? "test.parent" : "test.child", &val);
  PMIX_VALUE_DESTRUCT(&val);
  if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) die("PMIx_Put/Commit: %s", PMIx_Error_string(rc));
  pmix_info_t collect;
  bool yes = true;
  PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  rc = PMIx_Fence(procs, 2, &collect, 1);
  PMIX_INFO_DESTRUCT(&collect);
  if (rc != PMIX_SUCCESS) die("PMIx_Fence across namespaces: %s", PMIx_Error_string(rc));
  char want[64];
  if (is_parent) {
    for (pmix_rank_t r = 0; r < nchildren; ++r) {
      pmix_value_t* v = get(child_ns, r, "test.child");
      snprintf(want, sizeof want, "from-child-%u", r);
      if (v->type != PMIX_STRING || strcmp(v->data.string, want) != 0) die("child %u's value is wrong", r);
      PMIX_VALUE_RELEASE(v);
    }
  } else {
    pmix_value_t* v = get(parent_ns, parent_rank, "test.parent");
    snprintf(want, sizeof want, "from-parent-%u", parent_rank);
    if (v->type != PMIX_STRING || strcmp(v->data.string, want) != 0) die("the parent's value is wrong");
    PMIX_VALUE_RELEASE(v);
  }
  rc = PMIx_Disconnect(procs, 2, NULL, 0);
  if (rc != PMIX_SUCCESS) die("PMIx_Disconnect: %s", PMIx_Error_string(rc));
}

static int parent(void) {
  if (me.rank == 0) {
    pmix_nspace_t child;
    pmix_status_t rc = spawn(self_path, "child", NULL, 3, "CHORUS_TEST_SPAWNED=1", child);
    if (rc != PMIX_SUCCESS) die("PMIx_Spawn: %s", PMIx_Error_string(rc));
    if (child[0] == '\0') die("PMIx_Spawn returned no namespace");
    if (strcmp(child, me.nspace) == 0) die("PMIx_Spawn returned our own namespace");
    printf("parent spawned %s\n", child);
    meet(me.nspace, me.rank, child, 3);
    printf("parent met its children\n");

    pmix_nspace_t none;
    rc = spawn("/nonexistent/chorus-no-such-program", "x", NULL, 1, NULL, none);
    if (rc == PMIX_SUCCESS) die("PMIx_Spawn of a missing program succeeded");
    printf("parent: missing program refused: %s\n", PMIx_Error_string(rc));
    rc = spawn(self_path, "child", NULL, 0, NULL, none);
    if (rc == PMIX_SUCCESS) die("PMIx_Spawn of 0 processes succeeded");
    printf("parent: 0 processes refused: %s\n", PMIx_Error_string(rc));
    rc = spawn_in(self_path, "pwd", NULL, 1, NULL, NULL, "/nonexistent/chorus-no-such-dir", none);
    if (rc == PMIX_SUCCESS) die("PMIx_Spawn into a missing directory succeeded");
    printf("parent: missing directory refused: %s\n", PMIx_Error_string(rc));
    rc = spawn_in(self_path, "pwd", NULL, 1, NULL, "/", NULL, none);
    if (rc != PMIX_SUCCESS) die("PMIx_Spawn with PMIX_WDIR: %s", PMIx_Error_string(rc));

    publish("svc", "port-xyz", PMIX_SUCCESS);
    lookup("svc", "port-xyz", PMIX_SUCCESS, false);
    lookup("no-such-svc", NULL, PMIX_ERR_NOT_FOUND, false);
    publish("svc", "port-other", PMIX_ERR_DUPLICATE_KEY);
    unpublish("svc", PMIX_SUCCESS);
    lookup("svc", NULL, PMIX_ERR_NOT_FOUND, false);
    unpublish("svc", PMIX_ERR_NOT_FOUND);
    /* Rank 1 waits for this one. */
    usleep(100000);
    publish("late", "port-late", PMIX_SUCCESS);
  } else if (me.rank == 1) {
    lookup("late", "port-late", PMIX_SUCCESS, true);
  }
  fence();
  printf("parent %u ok\n", me.rank);
  fflush(stdout);
  PMIx_Finalize(NULL, 0);
  return 0;
}

static int child(void) {
  pmix_value_t* v = get(me.nspace, PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
  if (v->type != PMIX_UINT32 || v->data.uint32 != 3) die("job size is not 3");
  PMIX_VALUE_RELEASE(v);
  if (me.rank >= 3) die("rank out of range");
  if (strstr(me.nspace, ".spawn") == NULL) die("namespace '%s' does not look spawned", me.nspace);
  const char* var = getenv("CHORUS_TEST_SPAWNED");
  if (!var || strcmp(var, "1") != 0) die("CHORUS_TEST_SPAWNED is not 1");
  v = get(me.nspace, PMIX_RANK_WILDCARD, PMIX_SPAWNED);
  if (v->type != PMIX_BOOL || !v->data.flag) die("PMIX_SPAWNED is not true");
  PMIX_VALUE_RELEASE(v);
  v = get(me.nspace, PMIX_RANK_WILDCARD, PMIX_PARENT_ID);
  if (v->type != PMIX_PROC || v->data.proc->rank != 0 || strcmp(v->data.proc->nspace, me.nspace) == 0)
    die("PMIX_PARENT_ID is not rank 0 of another namespace");
  pmix_proc_t parent_id = *v->data.proc;
  PMIX_VALUE_RELEASE(v);
  v = get(me.nspace, me.rank, PMIX_LOCAL_RANK);
  if (v->type != PMIX_UINT16 || v->data.uint16 != me.rank) die("local rank is not the rank");
  PMIX_VALUE_RELEASE(v);
  printf("child %u of 3 ok\n", me.rank);
  fflush(stdout);
  meet(parent_id.nspace, parent_id.rank, me.nspace, 3);
  fence();
  PMIx_Finalize(NULL, 0);
  /* The parents are gone by now: the launcher still waits for us. */
  usleep(300000);
  printf("child %u done\n", me.rank);
  return 0;
}

/* A spawned job where rank 1 fails (exit CODE, or PMIx_Abort with it). */
static int failchild(int code, bool abort_it) {
  if (me.rank == 1) {
    usleep(100000);
    if (abort_it) {
      PMIx_Abort(code, "spawned rank aborts", NULL, 0);
    } else {
      PMIx_Finalize(NULL, 0);
    }
    exit(code);
  }
  for (;;) pause();
  return 0;
}

static int fail_parent(const char* code, bool abort_it) {
  if (me.rank == 0) {
    pmix_nspace_t child;
    pmix_status_t rc = spawn(self_path, abort_it ? "abortchild" : "failchild", code, 2, NULL, child);
    if (rc != PMIX_SUCCESS) die("PMIx_Spawn: %s", PMIx_Error_string(rc));
    printf("parent spawned %s\n", child);
    fflush(stdout);
  }
  for (;;) pause();
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: pmix_spawn parent|child|fail CODE|abort CODE\n");
    return 2;
  }
  role = argv[1];
  find_self();
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "pmix_spawn: PMIx_Init: %s\n", PMIx_Error_string(rc));
    return 1;
  }
  if (strcmp(role, "parent") == 0) return parent();
  if (strcmp(role, "child") == 0) return child();
  if (strcmp(role, "pwd") == 0) {
    char cwd[PATH_MAX];
    printf("pwd child in %s\n", getcwd(cwd, sizeof cwd) ? cwd : "?");
    PMIx_Finalize(NULL, 0);
    return 0;
  }
  if (argc > 2 && strcmp(role, "fail") == 0) return fail_parent(argv[2], false);
  if (argc > 2 && strcmp(role, "abort") == 0) return fail_parent(argv[2], true);
  if (argc > 2 && strcmp(role, "failchild") == 0) return failchild(atoi(argv[2]), false);
  if (argc > 2 && strcmp(role, "abortchild") == 0) return failchild(atoi(argv[2]), true);
  die("unknown role");
  return 2;
}
