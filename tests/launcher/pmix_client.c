/* A plain PMIx client, run as the ranks of a chorusrun job. It checks what the
 * launcher registered (size, rank, local rank/size, hostname, node id) and does
 * the exchange MPI_Init does: put a value, commit, fence with data collection,
 * then get every peer's value.
 *
 * usage: pmix_client EXPECTED_SIZE [abort RANK CODE | hosts HOST:N,HOST:N,... [nodeid]]
 * Prints one "ok" line per rank and exits 0, or names the failed check and
 * exits 1. With "hosts", the job runs on those hosts, N ranks each in order
 * (mpirun --host with the same list): every node-level key is checked against
 * that map, other ranks' host names included, and PMIx_Resolve_nodes must list
 * every host. With "abort", rank RANK calls PMIx_Abort(CODE) after the exchange,
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
  /* The map: node k is hosts[k] with counts[k] ranks, from first[k] on. One node
   * unless "hosts" gives them: local rank == rank, local size == size, node 0. */
  enum { kMaxHosts = 64 };
  char hosts[kMaxHosts][64];
  unsigned long counts[kMaxHosts], first[kMaxHosts];
  int nhosts = 0;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  if (argc >= 4 && strcmp(argv[2], "hosts") == 0) {
    char* list = strdup(argv[3]);
    unsigned long at = 0;
    for (char* item = strtok(list, ","); item && nhosts < kMaxHosts; item = strtok(NULL, ",")) {
      char* colon = strchr(item, ':');
      if (!colon) die("hosts: '%s' is not HOST:N", item);
      *colon = 0;
      snprintf(hosts[nhosts], sizeof hosts[nhosts], "%s", item);
      counts[nhosts] = strtoul(colon + 1, NULL, 10);
      first[nhosts] = at;
      at += counts[nhosts++];
    }
    free(list);
    if (at != size) die("hosts: %lu ranks in the map, the job has %lu", at, size);
  } else {
    snprintf(hosts[0], sizeof hosts[0], "%s", host);
    counts[0] = size;
    first[0] = 0;
    nhosts = 1;
  }
  int node = 0;
  while (node + 1 < nhosts && me.rank >= first[node + 1]) ++node;
  unsigned long lrank = get_uint(me.rank, PMIX_LOCAL_RANK);
  if (lrank != me.rank - first[node]) die("local rank %lu, expected %lu", lrank, me.rank - first[node]);
  unsigned long nrank = get_uint(me.rank, PMIX_NODE_RANK);
  if (nrank != lrank) die("node rank %lu, expected %lu (one job per node)", nrank, lrank);
  unsigned long lsize = get_uint(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE);
  if (lsize != counts[node]) die("local size %lu, expected %lu", lsize, counts[node]);
  if (get_uint(me.rank, PMIX_NODEID) != (unsigned long)node) die("node id is not %d", node);
  if (get_uint(PMIX_RANK_WILDCARD, PMIX_NUM_NODES) != (unsigned long)nhosts) die("PMIX_NUM_NODES is not %d", nhosts);
  if (strcmp(hosts[node], host) != 0) die("runs on '%s', the map puts it on '%s'", host, hosts[node]);

  /* Every rank's host name, those of other nodes included; with "nodeid" after
   * the list, every rank's PMIX_NODEID too (known and open: another node's
   * rank's answers NOT-FOUND in OpenPMIx 4.2's client; nothing in Chorus reads
   * it, its own is checked above; tests/multihost/remote_nodeid.sh). */
  const int nodeids = argc >= 5 && strcmp(argv[2], "hosts") == 0 && strcmp(argv[4], "nodeid") == 0;
  for (int k = 0; k < nhosts; ++k)
    for (unsigned long r = first[k]; r < first[k] + counts[k]; ++r) {
      pmix_value_t* hv = get((pmix_rank_t)r, PMIX_HOSTNAME);
      if (hv->type != PMIX_STRING || strcmp(hv->data.string, hosts[k]) != 0)
        die("rank %lu's hostname '%s', expected '%s'", r, hv->type == PMIX_STRING ? hv->data.string : "?",
            hosts[k]);
      PMIX_VALUE_RELEASE(hv);
      if (nodeids && get_uint((pmix_rank_t)r, PMIX_NODEID) != (unsigned long)k) die("rank %lu's node id is not %d", r, k);
    }
  /* PMIX_LOCAL_PEERS: this node's ranks, in order, comma-separated. */
  char want_peers[1024] = "";
  for (unsigned long r = first[node]; r < first[node] + counts[node]; ++r)
    snprintf(want_peers + strlen(want_peers), sizeof want_peers - strlen(want_peers), "%s%lu",
             r == first[node] ? "" : ",", r);
  pmix_value_t* peers = get(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS);
  if (peers->type != PMIX_STRING) die("PMIX_LOCAL_PEERS is not a string");
  if (strcmp(peers->data.string, want_peers) != 0)
    die("PMIX_LOCAL_PEERS '%s', expected '%s'", peers->data.string, want_peers);
  PMIX_VALUE_RELEASE(peers);
  /* The node map: every host of the job. */
  char* nodelist = NULL;
  if ((rc = PMIx_Resolve_nodes(me.nspace, &nodelist)) != PMIX_SUCCESS || !nodelist)
    die("PMIx_Resolve_nodes: %s", PMIx_Error_string(rc));
  for (int k = 0; k < nhosts; ++k) {
    int found = 0;
    char* copy = strdup(nodelist);
    for (char* n = strtok(copy, ","); n && !found; n = strtok(NULL, ",")) found = strcmp(n, hosts[k]) == 0;
    free(copy);
    if (!found) die("PMIx_Resolve_nodes gives '%s', without %s", nodelist, hosts[k]);
  }
  free(nodelist);

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
