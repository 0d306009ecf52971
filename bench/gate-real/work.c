/* A workload for measuring diff's gate on real recordings (bench/gate-real/run.sh): main runs six
 * functions of different kinds of work in rounds (integer loops, libc's qsort, snprintf, malloc),
 * so that a profile has libc frames and a machine's noise, not three loops. `work ROUNDS [FACTOR]`
 * makes render do FACTOR times its work (1.25, 2: the regressions the gate must catch). */
#include <stdlib.h>
#include <string.h>

static volatile unsigned long sink;

static __attribute__((noinline)) unsigned long mix(unsigned long n) {
    unsigned long x = 0;
    for (unsigned long i = 0; i < n; i++) x = x * 6364136223846793005UL + i;
    return x;
}

static int by_value(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static __attribute__((noinline)) void parse(void) {
    char text[4096];
    for (int i = 0; i < 4095; i++) text[i] = (i % 7) ? 'a' + i % 26 : ' ';
    text[4095] = 0;
    unsigned long words = 0;
    for (int round = 0; round < 300; round++)
        for (char *p = text; *p; p++) words += (*p == ' ');
    sink = words + mix(400000);
}

static __attribute__((noinline)) void sort(void) {
    int n = 20000, *values = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) values[i] = (int)(mix(i % 50) ^ (unsigned long)i * 2654435761UL);
    qsort(values, n, sizeof(int), by_value);
    sink = values[n / 2];
    free(values);
}

/* Formats numbers by hand, not with libc's snprintf: libc has no frame pointers, and perf -g would
 * lose render below it (its samples would not reach main). */
static __attribute__((noinline)) unsigned long digits(unsigned long n, char *out) {
    char reversed[24];
    int length = 0;
    do reversed[length++] = (char)('0' + n % 10); while ((n /= 10) > 0);
    for (int i = 0; i < length; i++) out[i] = reversed[length - 1 - i];
    return (unsigned long)length;
}

static __attribute__((noinline)) void render(double factor) {
    char line[256];
    unsigned long written = 0;
    int lines = (int)(60000 * factor);
    for (int i = 0; i < lines; i++) written += digits((unsigned long)i * 2654435761UL, line);
    sink = written + mix((unsigned long)(300000 * factor));
}

static __attribute__((noinline)) void compress(void) {
    unsigned char buffer[65536];
    for (int i = 0; i < 65536; i++) buffer[i] = (unsigned char)(i / 64);
    unsigned long runs = 0;
    for (int round = 0; round < 20; round++)
        for (int i = 1; i < 65536; i++) runs += buffer[i] != buffer[i - 1];
    sink = runs;
}

static __attribute__((noinline)) void allocate(void) {
    void *blocks[512];
    for (int round = 0; round < 40; round++) {
        for (int i = 0; i < 512; i++) blocks[i] = malloc(16 + (i * 37) % 4000);
        for (int i = 0; i < 512; i++) free(blocks[i]);
    }
}

static __attribute__((noinline)) void checksum(void) { sink = mix(500000); }

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    double factor = argc > 2 ? atof(argv[2]) : 1.0;
    for (int r = 0; r < rounds; r++) {
        parse();
        sort();
        render(factor);
        compress();
        allocate();
        checksum();
    }
    return 0;
}
