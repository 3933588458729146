/* Spends a good part of its time in the PLT stubs of strlen and labs (built with -fno-builtin). */
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 1000;
    volatile unsigned long sink = 0;
    char word[8] = "abc";
    for (long i = 0; i < rounds * 20000L; i++) {
        sink += strlen(word);
        sink += labs(-i);
    }
    return (int) (sink & 1);
}
