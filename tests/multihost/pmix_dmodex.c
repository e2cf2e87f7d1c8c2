/* PMIx_Get of another rank's data after a fence that did not collect it: the
 * data must come from the rank's node on request (direct modex), through the
 * daemon tree when that node is another host. Every rank puts a value, commits,
 * fences without PMIX_COLLECT_DATA, then gets every rank's value, and a key
 * nobody put from a rank on another node, which must fail with NOT_FOUND, not hang.
 * Prints "dmodex rank R of N ok" or names the failed check and exits 1. */
#include <pmix.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void) {
  pmix_proc_t me, p;
  pmix_value_t val, *v = NULL, *sz = NULL;
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "dmodex: PMIx_Init: %s\n", PMIx_Error_string(rc));
    return 1;
  }
  PMIX_PROC_LOAD(&p, me.nspace, PMIX_RANK_WILDCARD);
  if ((rc = PMIx_Get(&p, PMIX_JOB_SIZE, NULL, 0, &sz)) != PMIX_SUCCESS) {
    fprintf(stderr, "dmodex rank %u: job size: %s\n", me.rank, PMIx_Error_string(rc));
    return 1;
  }
  const pmix_rank_t n = sz->data.uint32;
  char mine[128], host[64] = {0}, hosts[64][64];
  gethostname(host, sizeof host - 1);
  snprintf(mine, sizeof mine, "dm-%u@%s", me.rank, host);
  if (n > 64) {
    fprintf(stderr, "dmodex: at most 64 ranks\n");
    return 1;
  }
  PMIX_VALUE_LOAD(&val, mine, PMIX_STRING);
  if (PMIx_Put(PMIX_GLOBAL, "chorus.test.dm", &val) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS) {
    fprintf(stderr, "dmodex rank %u: put/commit failed\n", me.rank);
    return 1;
  }
  PMIX_VALUE_DESTRUCT(&val);
  if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) {  /* no data collected */
    fprintf(stderr, "dmodex rank %u: fence: %s\n", me.rank, PMIx_Error_string(rc));
    return 1;
  }
  for (pmix_rank_t r = 0; r < n; ++r) {
    char want[64];
    snprintf(want, sizeof want, "dm-%u@", r);
    PMIX_PROC_LOAD(&p, me.nspace, r);
    rc = PMIx_Get(&p, "chorus.test.dm", NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_STRING || strncmp(v->data.string, want, strlen(want)) != 0) {
      fprintf(stderr, "dmodex rank %u: rank %u's value: %s\n", me.rank, r,
              rc != PMIX_SUCCESS ? PMIx_Error_string(rc) : "wrong");
      return 1;
    }
    snprintf(hosts[r], sizeof hosts[r], "%s", v->data.string + strlen(want));
    PMIX_VALUE_RELEASE(v);
  }
  /* A key nobody put, of the first rank on another host (each value names its
   * host; a local rank's missing key makes the PMIx library wait for it to
   * appear, up to its own timeout). */
  for (pmix_rank_t r = 0; r < n; ++r) {
    if (strcmp(hosts[r], hosts[me.rank]) == 0) continue;
    PMIX_PROC_LOAD(&p, me.nspace, r);
    rc = PMIx_Get(&p, "chorus.test.nobody", NULL, 0, &v);
    if (rc != PMIX_ERR_NOT_FOUND) {
      fprintf(stderr, "dmodex rank %u: a key rank %u never put: %s, expected NOT_FOUND\n", me.rank, r,
              PMIx_Error_string(rc));
      return 1;
    }
    break;
  }
  if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) return 1;
  printf("dmodex rank %u of %u ok\n", me.rank, n);
  fflush(stdout);
  return PMIx_Finalize(NULL, 0) == PMIX_SUCCESS ? 0 : 1;
}
