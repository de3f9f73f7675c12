/* Shared by the fuzz targets: the input as a C string. */
#ifndef XRAY_FUZZ_H
#define XRAY_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A NUL-terminated copy of data (cut at its first NUL), or NULL. */
static char *
fuzz_string(const uint8_t *data, size_t size)
{
  char *s = malloc(size + 1);

  if (s) {
    memcpy(s, data, size);
    s[size] = 0;
  }
  return s;
}

#endif
