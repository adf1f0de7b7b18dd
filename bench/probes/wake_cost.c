/* What one wake-up costs a client on this machine, with no load tester in
 * it: a round trip over a loopback TCP connection to an echo child (pinned
 * to CPU 0; the client to CPU 1), then a sleep of GAP µs, then a walk over
 * PAGES distinct 4 KiB pages (one byte each, the same pages every time).
 * Prints the client's CPU time (user + sys) per round trip.
 *
 *   wake_cost ROUNDS GAP_US PAGES [huge]
 *
 * `huge`: the pages are in a transparent-huge-page region. Used by
 * bench/wake_cost.sh. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  sched_setaffinity(0, sizeof s, &s);
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: wake_cost ROUNDS GAP_US PAGES [huge]\n");
    return 2;
  }
  int rounds = atoi(argv[1]), pages = atoi(argv[3]);
  long gap = atol(argv[2]);
  int huge = argc > 4 && strcmp(argv[4], "huge") == 0;
  int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
  struct sockaddr_in a = {.sin_family = AF_INET};
  inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
  socklen_t al = sizeof a;
  if (bind(l, (void *)&a, sizeof a) || listen(l, 1) || getsockname(l, (void *)&a, &al)) {
    perror("listen");
    return 1;
  }
  pid_t child = fork();
  if (child == 0) {
    pin(0);
    int c = accept(l, 0, 0);
    setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char b[512];
    ssize_t n;
    while ((n = read(c, b, sizeof b)) > 0) write(c, b, n);
    _exit(0);
  }
  pin(1);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(fd, (void *)&a, sizeof a)) {
    perror("connect");
    return 1;
  }
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  size_t sz = 64 << 20, H = 2 << 20;
  char *raw = mmap(0, sz + H, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *mem = (char *)(((unsigned long)raw + H - 1) & ~(H - 1));
  madvise(mem, sz, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  memset(mem, 1, sz);
  char msg[100] = "ping", buf[512];
  long acc = 0;
  struct rusage r0, r1;
  getrusage(RUSAGE_SELF, &r0);
  for (int i = 0; i < rounds; i++) {
    write(fd, msg, sizeof msg);
    size_t got = 0;
    while (got < sizeof msg) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n <= 0) {
        perror("read");
        return 1;
      }
      got += n;
    }
    if (gap) {
      struct timespec ts = {gap / 1000000, (gap % 1000000) * 1000};
      nanosleep(&ts, 0);
    }
    for (int p = 0; p < pages; p++) acc += mem[((size_t)p * 7919 % (sz / 4096)) * 4096];
  }
  getrusage(RUSAGE_SELF, &r1);
  double us = (r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) * 1e6 + (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) +
              (r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) * 1e6 + (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec);
  printf("%.1f\n", us / rounds + (acc & 0));
  close(fd);
  kill(child, SIGTERM);
  waitpid(child, 0, 0);
  return 0;
}
