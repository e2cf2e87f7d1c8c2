/* Dynamic processes: ports, MPI_Comm_accept/connect (inside one job and between two
 * jobs), MPI_Comm_join, the name directory, MPI_Comm_spawn(_multiple),
 * MPI_Comm_get_parent, MPI_Comm_disconnect.
 *
 *   dynamic            in-job cases: port errors, accept/connect between the even
 *                      and odd ranks, join over a loopback socket, names
 *   dynamic spawn      spawns itself ("child") and works with the children
 *   dynamic server F   accepts one connection on a port it writes to file F
 *   dynamic client F   connects to the port in file F (another mpirun)
 *   dynamic singleton  started alone: spawn and the name directory fail with their
 *                      error classes (no launcher to ask); ports and join work
 *
 * Every check that fails prints FAIL and the program exits 1. */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int g_rank, g_size, g_failed;

#define CHECK(cond, ...)                                        \
  do {                                                          \
    if (!(cond)) {                                              \
      fprintf(stderr, "FAIL rank %d line %d: ", g_rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                             \
      fprintf(stderr, "\n");                                    \
      g_failed = 1;                                             \
    }                                                           \
  } while (0)

static int error_class(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls;
}

/* Work both groups of an intercommunicator do, whatever made it: point-to-point
 * both ways, a collective across, a merge and a collective on it. `low` is this
 * side's half in the merge. */
static void exercise(MPI_Comm inter, int low) {
  int lsize, rsize, lrank;
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Comm_rank(inter, &lrank);
  int flag = 0;
  MPI_Comm_test_inter(inter, &flag);
  CHECK(flag, "not an intercommunicator");
  /* Rank 0 of each side sends its group size to every remote rank. */
  if (lrank == 0)
    for (int r = 0; r < rsize; ++r) MPI_Send(&lsize, 1, MPI_INT, r, 7, inter);
  int got = -1;
  MPI_Status st;
  MPI_Recv(&got, 1, MPI_INT, 0, 7, inter, &st);
  CHECK(got == rsize, "remote size %d by message, %d by MPI_Comm_remote_size", got, rsize);
  CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 7, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
  /* Allreduce across: each side gets the sum of the other side's ranks + 1. */
  int mine = lrank + 1, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, inter);
  CHECK(sum == rsize * (rsize + 1) / 2, "intercomm allreduce %d, want %d", sum, rsize * (rsize + 1) / 2);
  /* A larger message than any eager limit, remote rank 0 to remote rank 0. */
  enum { kBig = 1 << 20 };
  int* big = malloc(kBig * sizeof(int));
  if (lrank == 0) {
    for (int i = 0; i < kBig; ++i) big[i] = i ^ (low ? 0x55 : 0xaa);
    MPI_Sendrecv_replace(big, kBig, MPI_INT, 0, 8, 0, 8, inter, MPI_STATUS_IGNORE);
    int bad = 0;
    for (int i = 0; i < kBig; ++i) bad += big[i] != (i ^ (low ? 0xaa : 0x55));
    CHECK(bad == 0, "%d wrong ints in the 4 MiB exchange", bad);
  }
  free(big);
  MPI_Comm merged;
  MPI_Intercomm_merge(inter, !low, &merged);
  int msize, mrank;
  MPI_Comm_size(merged, &msize);
  MPI_Comm_rank(merged, &mrank);
  CHECK(msize == lsize + rsize, "merged size %d", msize);
  CHECK(low ? mrank == lrank : mrank == rsize + lrank, "merged rank %d (local %d, low %d)", mrank, lrank, low);
  int total = 0, one = mrank;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, merged);
  CHECK(total == msize * (msize - 1) / 2, "merged allreduce %d", total);
  /* A new intercommunicator over the merged one: its low half against its high half. */
  if (msize >= 2) {
    MPI_Comm half, inter2;
    int color = mrank < msize / 2;
    MPI_Comm_split(merged, color, mrank, &half);
    MPI_Intercomm_create(half, 0, merged, color ? msize / 2 : 0, 11, &inter2);
    int r2 = 0;
    MPI_Comm_remote_size(inter2, &r2);
    CHECK(r2 == (color ? msize - msize / 2 : msize / 2), "intercomm over merged: remote size %d", r2);
    int b = mrank, bsum = 0;
    MPI_Allreduce(&b, &bsum, 1, MPI_INT, MPI_SUM, inter2);
    int want = 0;
    for (int r = (color ? msize / 2 : 0); r < (color ? msize : msize / 2); ++r) want += r;
    CHECK(bsum == want, "intercomm over merged: allreduce %d, want %d", bsum, want);
    MPI_Comm_free(&inter2);
    MPI_Comm_free(&half);
  }
  MPI_Comm_free(&merged);
}

static void write_file(const char* path, const char* text) {
  char tmp[1024];
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  FILE* f = fopen(tmp, "w");
  fputs(text, f);
  fclose(f);
  rename(tmp, path);
}

static int server(const char* path) {
  char port[MPI_MAX_PORT_NAME];
  if (g_rank == 0) {
    MPI_Open_port(MPI_INFO_NULL, port);
    write_file(path, port);
  }
  MPI_Comm inter;
  MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
  exercise(inter, 1);
  MPI_Comm_disconnect(&inter);
  CHECK(inter == MPI_COMM_NULL, "disconnect left the handle");
  if (g_rank == 0) MPI_Close_port(port);
  return 0;
}

static int client(const char* path) {
  char port[MPI_MAX_PORT_NAME] = {0};
  if (g_rank == 0) {
    for (int i = 0; i < 3000; ++i) {
      FILE* f = fopen(path, "r");
      if (f) {
        if (fgets(port, sizeof port, f)) {
          fclose(f);
          break;
        }
        fclose(f);
      }
      usleep(10000);
    }
    CHECK(port[0], "no port name in %s", path);
  }
  MPI_Comm inter;
  MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
  exercise(inter, 0);
  MPI_Comm_disconnect(&inter);
  return 0;
}

static void port_errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  char port[MPI_MAX_PORT_NAME];
  CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "MPI_Open_port");
  CHECK(strlen(port) < MPI_MAX_PORT_NAME && strncmp(port, "chorus-port:", 12) == 0, "port name %s", port);
  CHECK(MPI_Close_port(port) == MPI_SUCCESS, "MPI_Close_port");
  CHECK(error_class(MPI_Close_port(port)) == MPI_ERR_PORT, "closing a closed port");
  MPI_Comm c = MPI_COMM_WORLD;
  int rc = MPI_Comm_connect("no such port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &c);
  CHECK(error_class(rc) == MPI_ERR_PORT, "connect to a bad name: class %d", error_class(rc));
  CHECK(c == MPI_COMM_NULL, "connect failed but newcomm is not MPI_COMM_NULL");
  rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c);
  CHECK(error_class(rc) == MPI_ERR_PORT, "accept on a closed port: class %d", error_class(rc));
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  CHECK(parent == MPI_COMM_NULL, "a job nobody spawned has a parent");
  rc = MPI_Comm_disconnect(&c);
  CHECK(error_class(rc) == MPI_ERR_COMM, "disconnect of MPI_COMM_NULL: class %d", error_class(rc));
  c = MPI_COMM_WORLD;
  rc = MPI_Comm_disconnect(&c);
  CHECK(error_class(rc) == MPI_ERR_COMM, "disconnect of MPI_COMM_WORLD: class %d", error_class(rc));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Even ranks accept, odd ranks connect: one job, two groups. */
static void in_job(void) {
  if (g_size < 2) return;
  MPI_Comm half, inter;
  int even = g_rank % 2 == 0;
  MPI_Comm_split(MPI_COMM_WORLD, even, g_rank, &half);
  char port[MPI_MAX_PORT_NAME] = {0};
  if (g_rank == 0) {
    MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 3, MPI_COMM_WORLD);
  } else if (g_rank == 1) {
    MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  if (even)
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
  else
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
  /* The remote group is the other parity, in rank order. */
  MPI_Group wg, rg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Comm_remote_group(inter, &rg);
  int rsize;
  MPI_Group_size(rg, &rsize);
  for (int r = 0; r < rsize; ++r) {
    int w = -1;
    MPI_Group_translate_ranks(rg, 1, &r, wg, &w);
    CHECK(w == 2 * r + (even ? 1 : 0), "remote rank %d is world rank %d", r, w);
  }
  MPI_Group_free(&rg);
  MPI_Group_free(&wg);
  exercise(inter, even);
  MPI_Comm_disconnect(&inter);
  if (g_rank == 0) MPI_Close_port(port);
  MPI_Comm_free(&half);
}

/* Ranks 0 and 1 join over a loopback TCP connection. */
static void join(void) {
  if (g_size < 2 || g_rank > 1) return;
  int fd = -1;
  if (g_rank == 0) {
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(ls, (struct sockaddr*)&a, sizeof a);
    listen(ls, 1);
    socklen_t len = sizeof a;
    getsockname(ls, (struct sockaddr*)&a, &len);
    int port = ntohs(a.sin_port);
    MPI_Send(&port, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
    fd = accept(ls, NULL, NULL);
    close(ls);
  } else {
    int port;
    MPI_Recv(&port, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((unsigned short)port);
    CHECK(connect(fd, (struct sockaddr*)&a, sizeof a) == 0, "connect to rank 0's socket");
  }
  MPI_Comm inter;
  CHECK(MPI_Comm_join(fd, &inter) == MPI_SUCCESS, "MPI_Comm_join");
  int rsize = 0, v = g_rank + 40, got = 0;
  MPI_Comm_remote_size(inter, &rsize);
  CHECK(rsize == 1, "join: remote size %d", rsize);
  MPI_Sendrecv(&v, 1, MPI_INT, 0, 0, &got, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
  CHECK(got == (1 - g_rank) + 40, "join: got %d", got);
  MPI_Comm_disconnect(&inter);
  close(fd);
}

static void names(void) {
  char port[MPI_MAX_PORT_NAME] = {0}, found[MPI_MAX_PORT_NAME] = {0};
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  if (g_rank == 0) {
    MPI_Open_port(MPI_INFO_NULL, port);
    CHECK(MPI_Publish_name("chorus-test-svc", MPI_INFO_NULL, port) == MPI_SUCCESS, "MPI_Publish_name");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK(MPI_Lookup_name("chorus-test-svc", MPI_INFO_NULL, found) == MPI_SUCCESS, "MPI_Lookup_name");
  if (g_rank == 0) CHECK(strcmp(found, port) == 0, "looked up \"%s\", published \"%s\"", found, port);
  int rc = MPI_Lookup_name("chorus-test-nothing", MPI_INFO_NULL, found);
  CHECK(error_class(rc) == MPI_ERR_NAME, "lookup of an unknown name: class %d", error_class(rc));
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 0) {
    CHECK(MPI_Unpublish_name("chorus-test-svc", MPI_INFO_NULL, port) == MPI_SUCCESS, "MPI_Unpublish_name");
    MPI_Close_port(port);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  rc = MPI_Lookup_name("chorus-test-svc", MPI_INFO_NULL, found);
  CHECK(error_class(rc) == MPI_ERR_NAME, "lookup after unpublish: class %d", error_class(rc));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static int child(MPI_Comm parent) {
  int psize = 0;
  MPI_Comm_remote_size(parent, &psize);
  int appnum_flag = 0, *appnum = NULL;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &appnum_flag);
  exercise(parent, 0);
  MPI_Comm_disconnect(&parent);
  MPI_Comm again;
  MPI_Comm_get_parent(&again);
  CHECK(again == MPI_COMM_NULL, "MPI_Comm_get_parent after disconnect");
  return 0;
}

static void spawn(const char* self) {
  char* args[] = {"child", NULL};
  int codes[3] = {-1, -1, -1};
  MPI_Comm inter;
  CHECK(MPI_Comm_spawn(self, args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes) == MPI_SUCCESS,
        "MPI_Comm_spawn");
  for (int i = 0; i < 3; ++i) CHECK(codes[i] == MPI_SUCCESS, "errcodes[%d] = %d", i, codes[i]);
  int rsize = 0;
  MPI_Comm_remote_size(inter, &rsize);
  CHECK(rsize == 3, "spawned %d, want 3", rsize);
  exercise(inter, 1);
  MPI_Comm_disconnect(&inter);

  /* Two commands at once: one world of 1 + 2 processes. */
  char* cmds[2] = {(char*)self, (char*)self};
  char** argvs[2] = {args, args};
  int counts[2] = {1, 2};
  MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
  CHECK(MPI_Comm_spawn_multiple(2, cmds, argvs, counts, infos, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE) ==
            MPI_SUCCESS, "MPI_Comm_spawn_multiple");
  MPI_Comm_remote_size(inter, &rsize);
  CHECK(rsize == 3, "spawn_multiple: %d processes, want 3", rsize);
  exercise(inter, 1);
  MPI_Comm_disconnect(&inter);

  /* A command that does not exist: an error on every rank, no job lost. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int bad[2] = {0, 0};
  int rc = MPI_Comm_spawn("/nonexistent/chorus-no-such-program", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                          MPI_COMM_WORLD, &inter, bad);
  CHECK(error_class(rc) == MPI_ERR_SPAWN, "spawn of a missing program: class %d", error_class(rc));
  CHECK(inter == MPI_COMM_NULL, "failed spawn gave a communicator");
  if (g_rank == 0) CHECK(bad[0] != MPI_SUCCESS && bad[1] != MPI_SUCCESS, "errcodes %d %d", bad[0], bad[1]);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void singleton(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm inter = MPI_COMM_WORLD;
  int codes[2] = {0, 0};
  int rc = MPI_Comm_spawn("/bin/true", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
  CHECK(error_class(rc) == MPI_ERR_SPAWN, "singleton spawn: class %d", error_class(rc));
  CHECK(inter == MPI_COMM_NULL && codes[0] == MPI_ERR_SPAWN && codes[1] == MPI_ERR_SPAWN, "failed spawn outputs");
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  CHECK(strstr(msg, "MPI_Comm_spawn") && strstr(msg, "singleton"), "spawn error says where and why: %s", msg);
  char port[MPI_MAX_PORT_NAME];
  MPI_Open_port(MPI_INFO_NULL, port);
  rc = MPI_Publish_name("svc", MPI_INFO_NULL, port);
  CHECK(error_class(rc) == MPI_ERR_SERVICE, "singleton publish: class %d", error_class(rc));
  rc = MPI_Lookup_name("svc", MPI_INFO_NULL, port);
  CHECK(error_class(rc) == MPI_ERR_NAME, "singleton lookup: class %d", error_class(rc));
  MPI_Close_port(port);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "child") == 0) {
    CHECK(parent != MPI_COMM_NULL, "a spawned process has no parent");
    if (parent != MPI_COMM_NULL) child(parent);
  } else if (strcmp(mode, "server") == 0 && argc > 2) {
    server(argv[2]);
  } else if (strcmp(mode, "client") == 0 && argc > 2) {
    client(argv[2]);
  } else if (strcmp(mode, "singleton") == 0) {
    singleton();
    port_errors();
  } else if (strcmp(mode, "spawn") == 0) {
    spawn(argv[0]);
  } else {
    port_errors();
    in_job();
    join();
    names();
  }
  int failed = g_failed;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (g_rank == 0) printf("%s %s\n", failed ? "FAILED" : "PASSED", mode[0] ? mode : "in-job");
  MPI_Finalize();
  return failed ? 1 : 0;
}
