/*
 * bench/watch-floor's floor under every runtime: a watch read with read(2) and nothing else, from
 * the paced stand-in on 127.0.0.1:PORT. Counts EVENTS watch lines (a line ends with "}\n"; the
 * chunked framing's own lines do not), from the first to the last, and prints this process's CPU
 * (user + system, getrusage) and read calls per event over that span as one JSON line.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

static double cpu_us(const struct rusage *r) {
  return (r->ru_utime.tv_sec + r->ru_stime.tv_sec) * 1e6 + r->ru_utime.tv_usec + r->ru_stime.tv_usec;
}

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  int port = atoi(argv[1]);
  long expected = atol(argv[2]);
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in address = {0};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, (struct sockaddr *)&address, sizeof address) != 0) return perror("connect"), 1;
  const char *request = "GET /api/v1/pods?watch=true HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  if (write(s, request, strlen(request)) < 0) return perror("write"), 1;
  static char buffer[65536];
  long events = 0, reads = 0, readsAtFirst = 0;
  char previous = 0;
  struct rusage first, last;
  for (;;) {
    ssize_t n = read(s, buffer, sizeof buffer);
    reads++;
    if (n <= 0) return fprintf(stderr, "only %ld of %ld events arrived\n", events, expected), 1;
    for (ssize_t i = 0; i < n; previous = buffer[i++]) {
      if (buffer[i] != '\n' || previous != '}') continue;
      if (++events == 1) {
        getrusage(RUSAGE_SELF, &first);
        readsAtFirst = reads;
      } else if (events == expected) {
        getrusage(RUSAGE_SELF, &last);
        printf("{\"events\":%ld,\"cpuMicrosecondsPerEvent\":%.1f,\"readSyscallsPerEvent\":%.2f}\n", expected,
               (cpu_us(&last) - cpu_us(&first)) / (expected - 1), (double)(reads - readsAtFirst) / (expected - 1));
        return 0;
      }
    }
  }
}
