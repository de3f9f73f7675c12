/* Recordings read by --replay: the input is a machine file and a
 * points.csv, split at the first line "--"; both are written to a private
 * directory and read back as a recording. */
#include "xray-internal.h"
#include "fuzz.h"

#include <stdio.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
put(const char *dir, const char *name, const char *text, size_t n)
{
  char path[512];
  FILE *f;

  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (!(f = fopen(path, "wb")))
    return -1;
  fwrite(text, 1, n, f);
  return fclose(f);
}

static char dir[256];

static void
remove_dir(void)
{
  rmdir(dir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char err[256] = "", *s, *split;
  xray_machine *m;

  if (!dir[0]) {
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/xray-fuzz.XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(dir))
      abort();
    atexit(remove_dir);
  }
  if (!(s = fuzz_string(data, size)))
    return 0;
  split = strstr(s, "\n--\n");
  if (put(dir, "machine", s, split ? (size_t) (split - s + 1) : strlen(s))
      || put(dir, "points.csv", split ? split + 4 : "", split ? strlen(split + 4) : 0))
    abort();
  m = xray_machine_replay(dir, err, sizeof err);
  if (!m && !err[0])
    abort();
  xray_machine_free(m);
  free(s);
  {
    char path[512];
    snprintf(path, sizeof path, "%s/machine", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/points.csv", dir);
    unlink(path);
  }
  return 0;
}
