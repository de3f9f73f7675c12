/* The portable C path: a generated C nano-benchmark compiled with the
 * user's compiler and run as its own program, as X-Ray did.  Used where no
 * machine-code backend exists for the ISA.  Each kernel costs a compile
 * (0.1 s to several seconds), so probes use few points on this path.
 *
 * Files live in a private temporary directory, removed after each kernel;
 * xray_remove_temporaries() removes whatever a signal interrupted, and is
 * async-signal-safe. */
#include "xray-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[256], src[300], exe[300], extra[3][300];

void
xray_remove_temporaries(void)
{
  int i;

  if (src[0])
    unlink(src);
  if (exe[0])
    unlink(exe);
  for (i = 0; i < 3; i++)
    if (extra[i][0])
      unlink(extra[i]);
  if (dir[0])
    rmdir(dir);
}

static void
forget(void)
{
  xray_remove_temporaries();
  src[0] = exe[0] = dir[0] = extra[0][0] = extra[1][0] = extra[2][0] = 0;
}

/* A private temporary directory holding k.c and k (and three more files
 * for a kernel set); removed by xray__tmp_close() or on a signal. */
static int
tmp_open(char *err, size_t errlen)
{
  const char *tmp = getenv("TMPDIR");

  snprintf(dir, sizeof dir, "%s/xray.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    snprintf(err, errlen, "cannot create a temporary directory in %s: %s",
             tmp && *tmp ? tmp : "/tmp", strerror(errno));
    dir[0] = 0;
    return -1;
  }
  snprintf(src, sizeof src, "%s/k.c", dir);
  snprintf(exe, sizeof exe, "%s/k", dir);
  return 0;
}

int
xray__tmp_open(const char **csrc, const char *const names[3], const char **paths, char *err,
               size_t errlen)
{
  int i;

  if (tmp_open(err, errlen))
    return -1;
  *csrc = src;
  for (i = 0; i < 3 && names[i]; i++) {
    snprintf(extra[i], sizeof extra[i], "%s/%s", dir, names[i]);
    paths[i] = extra[i];
  }
  return 0;
}

void
xray__tmp_close(void)
{
  forget();
}

/* Quote s for the shell into out. */
int
xray__shell_quote(char *out, size_t len, const char *s)
{
  size_t o = 0;

  if (len < 3)
    return -1;
  out[o++] = '\'';
  for (; *s; s++) {
    if (*s == '\'') {
      if (o + 5 >= len)
        return -1;
      memcpy(out + o, "'\\''", 4);
      o += 4;
    } else {
      if (o + 2 >= len)
        return -1;
      out[o++] = *s;
    }
  }
  out[o++] = '\'';
  out[o] = 0;
  return 0;
}

int
xray__ckernel_run(const struct xray_cspec *c, const char *cc, const char *cflags,
                  double *ns_per_stmt, long *code_bytes, char *err, size_t errlen)
{
  char cmd[2048], qsrc[400], qexe[400], line[128];
  FILE *f;
  int rc = -1, status;

  *ns_per_stmt = 0;
  *code_bytes = 0;
  if (tmp_open(err, errlen))
    return -1;
  if (!(f = fopen(src, "w"))) {
    snprintf(err, errlen, "cannot write %s: %s", src, strerror(errno));
    goto out;
  }
  if (xray__gen_c(f, c, err, errlen) || xray__gen_c_main(f, c)) {
    fclose(f);
    goto out;
  }
  if (fclose(f)) {
    snprintf(err, errlen, "cannot write %s", src);
    goto out;
  }
  if (xray__shell_quote(qsrc, sizeof qsrc, src) || xray__shell_quote(qexe, sizeof qexe, exe))
    goto out;
  /* CC and CFLAGS are words for the shell, as in make. */
  snprintf(cmd, sizeof cmd, "%s %s -o %s %s >/dev/null 2>&1", cc, cflags, qexe, qsrc);
  status = system(cmd);
  if (status != 0) {
    snprintf(err, errlen, "'%s %s' cannot compile the C kernel", cc, cflags);
    goto out;
  }
  if (!(f = popen(qexe, "r"))) {
    snprintf(err, errlen, "cannot run the C kernel");
    goto out;
  }
  while (fgets(line, sizeof line, f)) {
    sscanf(line, "code_bytes %ld", code_bytes);
    sscanf(line, "ns_per_statement %lf", ns_per_stmt);
  }
  if (pclose(f) != 0 || !(*ns_per_stmt > 0)) {
    snprintf(err, errlen, "the C kernel did not report a time");
    goto out;
  }
  rc = 0;
out:
  forget();
  return rc;
}
