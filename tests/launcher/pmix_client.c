/* A plain PMIx client, run as the ranks of a chorusrun job. It checks what the
 * launcher registered (size, rank, local rank/size, hostname, node id) and does
 * the exchange MPI_Init does: put a value, commit, fence with data collection,
 * then get every peer's value.
 *
 * usage: pmix_client EXPECTED_SIZE [abort RANK CODE]
 * Prints one "ok" line per rank and exits 0, or names the failed check and
 * exits 1. With "abort", rank RANK calls PMIx_Abort(CODE) after the exchange,
 * as MPI_Abort does, and then exits 1, while the other ranks wait in a fence
 * it never joins: the launcher must report the abort and end them. */
#include <pmix.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pmix_proc_t me;

static void die(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "pmix_client rank %u: ", me.rank);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}

/* PMIx_Get of `key` on (nspace, rank); the caller releases the value. */
static pmix_value_t* get(pmix_rank_t rank, const char* key) {
  pmix_proc_t p;
  pmix_value_t* v = NULL;
  PMIX_PROC_LOAD(&p, me.nspace, rank);
  pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
  if (rc != PMIX_SUCCESS) die("PMIx_Get(%s) on rank %u: %s", key, rank, PMIx_Error_string(rc));
  return v;
}

static unsigned long get_uint(pmix_rank_t rank, const char* key) {
  pmix_value_t* v = get(rank, key);
  unsigned long out;
  switch (v->type) {
    case PMIX_UINT32: out = v->data.uint32; break;
    case PMIX_UINT16: out = v->data.uint16; break;
    case PMIX_PROC_RANK: out = v->data.rank; break;
    default: die("%s has unexpected type %d", key, (int)v->type);
  }
  PMIX_VALUE_RELEASE(v);
  return out;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: pmix_client EXPECTED_SIZE\n");
    return 2;
  }
  unsigned long expected = strtoul(argv[1], NULL, 10);
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "pmix_client: PMIx_Init: %s\n", PMIx_Error_string(rc));
    return 1;
  }
  if (strncmp(me.nspace, "chorus.", 7) != 0) die("unexpected namespace '%s'", me.nspace);

  unsigned long size = get_uint(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
  if (size != expected) die("job size %lu, expected %lu", size, expected);
  if (me.rank >= size) die("rank %u out of range", me.rank);
  /* One node: local rank == rank, local size == size, node id 0. */
  unsigned long lrank = get_uint(me.rank, PMIX_LOCAL_RANK);
  if (lrank != me.rank) die("local rank %lu, expected %u", lrank, me.rank);
  unsigned long lsize = get_uint(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE);
  if (lsize != size) die("local size %lu, expected %lu", lsize, size);
  if (get_uint(me.rank, PMIX_NODEID) != 0) die("node id is not 0");
  if (get_uint(PMIX_RANK_WILDCARD, PMIX_NUM_NODES) != 1) die("PMIX_NUM_NODES is not 1");

  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  pmix_value_t* hv = get(me.rank, PMIX_HOSTNAME);
  if (hv->type != PMIX_STRING || strcmp(hv->data.string, host) != 0)
    die("hostname '%s', expected '%s'", hv->type == PMIX_STRING ? hv->data.string : "?", host);
  PMIX_VALUE_RELEASE(hv);
  pmix_value_t* peers = get(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
  if (peers->type != PMIX_STRING) die("PMIX_LOCAL_PEERS is not a string");
  PMIX_VALUE_RELEASE(peers);

  /* The modex: every rank publishes a value, fences, reads everyone's. */
  char mine[64];
  snprintf(mine, sizeof mine, "value-of-rank-%u", me.rank);
  pmix_value_t val;
  PMIX_VALUE_LOAD(&val, mine, PMIX_STRING);
  if ((rc = PMIx_Put(PMIX_GLOBAL, "chorus.test.key", &val)) != PMIX_SUCCESS)
    die("PMIx_Put: %s", PMIx_Error_string(rc));
  PMIX_VALUE_DESTRUCT(&val);
  if ((rc = PMIx_Commit()) != PMIX_SUCCESS) die("PMIx_Commit: %s", PMIx_Error_string(rc));
  pmix_info_t collect;
  bool yes = true;
  PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
  if ((rc = PMIx_Fence(NULL, 0, &collect, 1)) != PMIX_SUCCESS) die("PMIx_Fence: %s", PMIx_Error_string(rc));
  PMIX_INFO_DESTRUCT(&collect);
  for (pmix_rank_t r = 0; r < size; ++r) {
    char want[64];
    snprintf(want, sizeof want, "value-of-rank-%u", r);
    pmix_value_t* v = get(r, "chorus.test.key");
    if (v->type != PMIX_STRING || strcmp(v->data.string, want) != 0)
      die("rank %u's value is wrong", r);
    PMIX_VALUE_RELEASE(v);
  }
  if (argc >= 5 && strcmp(argv[2], "abort") == 0 && me.rank == strtoul(argv[3], NULL, 10)) {
    rc = PMIx_Abort(atoi(argv[4]), "pmix_client test abort", NULL, 0);
    if (rc != PMIX_SUCCESS) die("PMIx_Abort: %s", PMIx_Error_string(rc));
    _exit(1); /* not the abort code: the launcher must report the abort itself */
  }
  /* A second fence, as MPI_Finalize does, before leaving. */
  if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) die("PMIx_Fence 2: %s", PMIx_Error_string(rc));
  printf("pmix_client rank %u/%lu ok on %s\n", me.rank, size, host);
  fflush(stdout);
  if ((rc = PMIx_Finalize(NULL, 0)) != PMIX_SUCCESS) die("PMIx_Finalize: %s", PMIx_Error_string(rc));
  return 0;
}
