/* Runs a fuzz target over the files named on the command line (a seed
 * corpus, or crashes libFuzzer found), so that make check replays them
 * with any compiler; under --enable-fuzzing the targets link libFuzzer's
 * own main instead (make fuzz). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
main(int argc, char **argv)
{
  int i;

  for (i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0, got;

    if (!f) {
      perror(argv[i]);
      return 2;
    }
    do {
      if (n == cap) {
        uint8_t *b = realloc(buf, cap = cap ? 2 * cap : 4096);
        if (!b) {
          fprintf(stderr, "%s: out of memory\n", argv[i]);
          return 2;
        }
        buf = b;
      }
      got = fread(buf + n, 1, cap - n, f);
      n += got;
    } while (got > 0);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    printf("ok %d - %s (%zu bytes)\n", i, argv[i], n);
  }
  return 0;
}
