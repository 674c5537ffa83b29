/* The floor for one sow (issue 20): a bare pipe round trip between two C processes, each
 * blocking in read(2), as an arena and a bot that did nothing else would exchange `go` and
 * `bestmove`.
 *
 * Usage: pingpong SECONDS
 * Prints one line: round_trips wall_s parent_cpu_s child_cpu_s (CPU = user + system, from
 * getrusage; the child's is counted once it has exited). Built by benches/harness.rs with the
 * system compiler at -O2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static double cpu(const struct rusage *r) {
    return r->ru_utime.tv_sec + r->ru_utime.tv_usec * 1e-6 + r->ru_stime.tv_sec +
           r->ru_stime.tv_usec * 1e-6;
}

int main(int argc, char **argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    int down[2], up[2];
    if (pipe(down) != 0 || pipe(up) != 0) {
        perror("pipe");
        return 1;
    }
    char buf[256];
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        close(down[1]);
        close(up[0]);
        for (;;) {
            if (read(down[0], buf, sizeof buf) <= 0) _exit(0);
            if (write(up[1], "bestmove 3\n", 11) != 11) _exit(1);
        }
    }
    close(down[0]);
    close(up[1]);
    const char *msg = "position startpos moves 3 6 1 2 4 5 6 1 2 3\ngo\n";
    size_t len = strlen(msg);
    struct rusage before, self, children;
    getrusage(RUSAGE_SELF, &before);
    long trips = 0;
    double start = now(), end = start + seconds;
    do {
        for (int i = 0; i < 256; i++, trips++) {
            if (write(down[1], msg, len) != (ssize_t)len || read(up[0], buf, sizeof buf) <= 0) {
                fprintf(stderr, "pingpong: the child stopped answering\n");
                return 1;
            }
        }
    } while (now() < end);
    double wall = now() - start;
    close(down[1]);
    int status;
    waitpid(pid, &status, 0);
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    printf("%ld %.6f %.6f %.6f\n", trips, wall, cpu(&self) - cpu(&before), cpu(&children));
    return 0;
}
