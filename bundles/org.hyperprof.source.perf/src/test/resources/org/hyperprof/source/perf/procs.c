/*
 * Processes for the import's process agreement tests: a thread that renames itself in the middle
 * of its run, a forked child that renames itself and then execs, and a pid that a later child gets
 * again (clone3's set_tid, as root). Prints the two children's pids that should be equal.
 */
#define _GNU_SOURCE
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long sink;

#define WORK(name, n) \
    static void __attribute__((noinline)) name(void) { \
        for (unsigned long i = 0; i < (n); i++) sink += i * 7; \
    }

WORK(main_work, 30000000UL)
WORK(worker_before, 30000000UL)
WORK(worker_after, 30000000UL)
WORK(child_before, 40000000UL)
WORK(child_after, 40000000UL)
WORK(exec_work, 50000000UL)
WORK(first_work, 30000000UL)
WORK(second_work, 30000000UL)

static void *worker(void *arg) {
    (void)arg;
    worker_before();
    prctl(PR_SET_NAME, "worker-renamed", 0, 0, 0);
    worker_after();
    return NULL;
}

/* A child with exactly pid `want` (clone3's set_tid, which needs CAP_SYS_ADMIN), or -1. */
static pid_t fork_as(pid_t want) {
    struct clone_args args;
    memset(&args, 0, sizeof args);
    args.exit_signal = SIGCHLD;
    args.set_tid = (uint64_t)(uintptr_t)&want;
    args.set_tid_size = 1;
    return (pid_t)syscall(SYS_clone3, &args, sizeof args);
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "exec") == 0) {
        exec_work();
        return 0;
    }
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    main_work();
    pthread_join(t, NULL);
    pid_t c = fork();
    if (c == 0) {
        child_before();
        prctl(PR_SET_NAME, "renamed", 0, 0, 0);
        child_after();
        execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
        _exit(1);
    }
    waitpid(c, NULL, 0);
    pid_t a = fork();
    if (a == 0) {
        prctl(PR_SET_NAME, "first", 0, 0, 0);
        first_work();
        _exit(0);
    }
    waitpid(a, NULL, 0);
    pid_t b = fork_as(a);
    if (b < 0) {
        b = fork();
    }
    if (b == 0) {
        prctl(PR_SET_NAME, "second", 0, 0, 0);
        second_work();
        _exit(0);
    }
    waitpid(b, NULL, 0);
    printf("%d %d\n", a, b);
    return 0;
}
