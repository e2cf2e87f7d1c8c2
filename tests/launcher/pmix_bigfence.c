/* Large PMIx data: every rank puts MIB MiB (argv[1], default 100), fences with
 * PMIX_COLLECT_DATA, then gets every other rank's value and checks its size and
 * contents.
 * - On one node (launcher_pmix_bigvalue): any value over 4 MiB made OpenPMIx's
 *   shared-memory store fail and the launcher's server crash; the server now
 *   uses the hash store.
 * - Across hosts (multihost_jobs): with 4 ranks of 100 MiB the fence's result is
 *   400 MiB on its way down the daemon tree, and a node of 3 ranks sends 300 MiB
 *   up: more than one frame (256 MiB) carries, so such messages go in parts;
 *   before, the connection was closed as "not our protocol".
 * Prints "bigfence rank R of N ok" or names the failed check and exits 1. */
#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pattern(pmix_rank_t rank, size_t i) { return (unsigned char)(rank * 31 + i / 4096 + i % 251); }

int main(int argc, char** argv) {
  const size_t bytes = (size_t)(argc > 1 ? atoi(argv[1]) : 100) << 20;
  pmix_proc_t me, p;
  pmix_value_t val, *v = NULL, *sz = NULL;
  pmix_status_t rc = PMIx_Init(&me, NULL, 0);
  if (rc != PMIX_SUCCESS) {
    fprintf(stderr, "bigfence: PMIx_Init: %s\n", PMIx_Error_string(rc));
    return 1;
  }
  PMIX_PROC_LOAD(&p, me.nspace, PMIX_RANK_WILDCARD);
  if ((rc = PMIx_Get(&p, PMIX_JOB_SIZE, NULL, 0, &sz)) != PMIX_SUCCESS) {
    fprintf(stderr, "bigfence rank %u: job size: %s\n", me.rank, PMIx_Error_string(rc));
    return 1;
  }
  const pmix_rank_t n = sz->data.uint32;
  char* mine = malloc(bytes);
  if (!mine) return 1;
  for (size_t i = 0; i < bytes; ++i) mine[i] = (char)pattern(me.rank, i);
  PMIX_VALUE_CONSTRUCT(&val);
  val.type = PMIX_BYTE_OBJECT;
  val.data.bo.bytes = mine;
  val.data.bo.size = bytes;
  if (PMIx_Put(PMIX_GLOBAL, "chorus.test.big", &val) != PMIX_SUCCESS || PMIx_Commit() != PMIX_SUCCESS) {
    fprintf(stderr, "bigfence rank %u: put/commit failed\n", me.rank);
    return 1;
  }
  free(mine);
  pmix_info_t info;
  bool collect = true;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  if ((rc = PMIx_Fence(NULL, 0, &info, 1)) != PMIX_SUCCESS) {
    fprintf(stderr, "bigfence rank %u: fence: %s\n", me.rank, PMIx_Error_string(rc));
    return 1;
  }
  for (pmix_rank_t r = 0; r < n; ++r) {
    if (r == me.rank) continue;
    PMIX_PROC_LOAD(&p, me.nspace, r);
    rc = PMIx_Get(&p, "chorus.test.big", NULL, 0, &v);
    if (rc != PMIX_SUCCESS || v->type != PMIX_BYTE_OBJECT || v->data.bo.size != bytes) {
      fprintf(stderr, "bigfence rank %u: rank %u's value: %s\n", me.rank, r,
              rc != PMIX_SUCCESS ? PMIx_Error_string(rc) : "wrong type or size");
      return 1;
    }
    for (size_t i = 0; i < bytes; ++i)
      if ((unsigned char)v->data.bo.bytes[i] != pattern(r, i)) {
        fprintf(stderr, "bigfence rank %u: rank %u's value differs at byte %zu\n", me.rank, r, i);
        return 1;
      }
    PMIX_VALUE_RELEASE(v);
  }
  if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) {
    fprintf(stderr, "bigfence rank %u: last fence: %s\n", me.rank, PMIx_Error_string(rc));
    return 1;
  }
  printf("bigfence rank %u of %u ok\n", me.rank, n);
  PMIx_Finalize(NULL, 0);
  return 0;
}
