/* A test program with one hot function, spin, for the annotation tests. */
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) unsigned long spin(unsigned long n) {
    unsigned long a = 1, b = 2;
    for (unsigned long i = 0; i < n; i++) {
        a = a * 6364136223846793005UL + b;
        b ^= a >> 13;
        if (a & 1) b += i; else b -= i;
    }
    return a ^ b;
}
int main(int argc, char **argv) {
    unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 200000000UL;
    sink = spin(n);
    printf("%lu\n", sink);
    return 0;
}
