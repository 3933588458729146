/* A short busy program for the agreement tests: user functions with distinct names, recursion, libc
 * work, system calls (kernel samples), a child process (FORK) and an exec'ed program (COMM exec and
 * new mappings). The first argument scales the work (default 100). */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;
static char buffer[1 << 16];

unsigned long squares(unsigned long n) {
    unsigned long s = 0;
    for (unsigned long i = 0; i < n; i++) s += i * i;
    return s;
}

unsigned long mixing(unsigned long n) {
    unsigned long s = 1;
    for (unsigned long i = 0; i < n; i++) s ^= s * 31 + i;
    return s;
}

unsigned long recurse(int depth, unsigned long n) {
    if (depth == 0) return squares(n);
    return recurse(depth - 1, n) + 1;
}

void libc_work(int rounds) {
    for (int i = 0; i < rounds; i++) {
        memset(buffer, i, sizeof buffer);
        sink += strlen(buffer);
    }
}

void syscalls(int n) {
    for (int i = 0; i < n; i++) sink += getppid();
}

void child_work(unsigned long scale) {
    for (unsigned long k = 0; k < scale; k++) sink += mixing(20000);
}

int main(int argc, char **argv) {
    unsigned long scale = argc > 1 ? strtoul(argv[1], 0, 10) : 100;
    pid_t child = fork();
    if (child == 0) {
        child_work(scale);
        return 0;
    }
    for (unsigned long k = 0; k < scale; k++) {
        sink += squares(20000);
        sink += mixing(10000);
        sink += recurse(6, 5000);
        libc_work(2);
        syscalls(100);
    }
    waitpid(child, 0, 0);
    if (argc > 2) execl(argv[2], argv[2], "-c", "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done", (char *) 0);
    return 0;
}
