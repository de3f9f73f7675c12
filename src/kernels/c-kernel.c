/* The portable C path: a generated C nano-benchmark compiled with the
 * user's compiler and run as its own program, as X-Ray did.  Used where no
 * machine-code backend exists for the ISA.  Each kernel costs a compile
 * (0.1 s to several seconds), so probes use few points on this path.
 *
 * Files live in a private temporary directory, removed after each kernel;
 * xray_remove_temporaries() removes whatever a signal interrupted (and
 * stops the command in flight), and is async-signal-safe. */
#include "kernels/kernels.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The private temporary directories in use: one for each thread that
 * builds a kernel at that moment (two threads may each measure a machine
 * of their own), entries of a list a signal handler walks (see
 * xray__slot_claim).  slot.state: 0 free; 1 its paths are being written
 * or cleared; 2 ready, so that a signal handler may remove its files.  A
 * thread finds its own through mine. */
struct tmp {
  struct xray__slot slot;
  char dir[256], src[300], exe[300], extra[XRAY__TMP_MORE][300];
};
static struct xray__slot *tmps;
static XRAY__THREAD_LOCAL struct tmp *mine;

/* Remove t's files and directory; async-signal-safe. */
static void
remove_files(const struct tmp *t)
{
  int i;

  if (t->src[0])
    unlink(t->src);
  if (t->exe[0])
    unlink(t->exe);
  for (i = 0; i < XRAY__TMP_MORE; i++)
    if (t->extra[i][0])
      unlink(t->extra[i]);
  if (t->dir[0])
    rmdir(t->dir);
}

void
xray_remove_temporaries(void)
{
  struct xray__slot *s;

  xray__run_stop();
  for (s = __atomic_load_n(&tmps, __ATOMIC_ACQUIRE); s; s = s->next)
    if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) == 2)
      remove_files((const struct tmp *) s);
}

/* This thread's directory goes, and its slot is free again. */
static void
forget(void)
{
  struct tmp *t = mine;
  int i;

  if (!t)
    return;
  remove_files(t);
  __atomic_store_n(&t->slot.state, 1, __ATOMIC_RELEASE);
  memset(t->dir, 0, sizeof t->dir);
  t->src[0] = t->exe[0] = 0;
  for (i = 0; i < XRAY__TMP_MORE; i++)
    t->extra[i][0] = 0;
  mine = NULL;
  __atomic_store_n(&t->slot.state, 0, __ATOMIC_RELEASE);
}

/* A run killed by SIGKILL (or a library caller's signal with no handler)
 * leaves its directory behind.  Each kernel's directory lives for seconds,
 * so one of this user's older than a day is such a leftover: its files
 * (xray makes no subdirectories) and it go.  Once a process, whichever
 * thread comes first. */
static void
sweep_stale(const char *tmp)
{
  static int swept;
  DIR *d, *sub;
  struct dirent *e, *f;
  struct stat st;
  char path[512], file[1024];
  time_t now = time(NULL);

  if (__atomic_exchange_n(&swept, 1, __ATOMIC_RELAXED) || !(d = opendir(tmp)))
    return;
  while ((e = readdir(d))) {
    if (strncmp(e->d_name, "xray.", 5) != 0 || strlen(e->d_name) != 11)
      continue;
    snprintf(path, sizeof path, "%s/%s", tmp, e->d_name);
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid()
        || now - st.st_mtime < 86400 || !(sub = opendir(path)))
      continue;
    while ((f = readdir(sub)))
      if (strcmp(f->d_name, ".") && strcmp(f->d_name, "..")) {
        snprintf(file, sizeof file, "%s/%s", path, f->d_name);
        unlink(file);
      }
    closedir(sub);
    rmdir(path);
  }
  closedir(d);
}

/* The private temporary directory, with k.c, k and up to XRAY__TMP_MORE
 * more files; removed by xray__tmp_close() or on a signal. */
int
xray__tmp_open(const char **csrc, const char *const names[XRAY__TMP_MORE], const char **paths,
               char *err, size_t errlen)
{
  const char *tmp = getenv("TMPDIR");
  struct tmp *t = NULL;
  int i;

  if (!tmp || !*tmp)
    tmp = "/tmp";
  sweep_stale(tmp);
  if (strlen(tmp) > sizeof t->dir - 32) {
    snprintf(err, errlen, "TMPDIR is longer than %zu bytes: give a shorter one",
             sizeof t->dir - 32);
    return -1;
  }
  forget();
  if (!(t = (struct tmp *) xray__slot_claim(&tmps, sizeof *t))) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  snprintf(t->dir, sizeof t->dir, "%s/xray.XXXXXX", tmp);
  if (!mkdtemp(t->dir)) {
    snprintf(err, errlen, "cannot create a temporary directory in %.100s (TMPDIR): %s", tmp,
             strerror(errno));
    t->dir[0] = 0;
    __atomic_store_n(&t->slot.state, 0, __ATOMIC_RELEASE);
    return -1;
  }
  snprintf(t->src, sizeof t->src, "%s/k.c", t->dir);
  snprintf(t->exe, sizeof t->exe, "%s/k", t->dir);
  *csrc = t->src;
  for (i = 0; i < XRAY__TMP_MORE && names[i]; i++) {
    snprintf(t->extra[i], sizeof t->extra[i], "%s/%s", t->dir, names[i]);
    paths[i] = t->extra[i];
  }
  mine = t;
  __atomic_store_n(&t->slot.state, 2, __ATOMIC_RELEASE);
  return 0;
}

void
xray__tmp_close(void)
{
  forget();
}

int
xray__write_source(const char *path, int (*gen)(FILE *f, const void *arg, char *err, size_t errlen),
                   const void *arg, char *err, size_t errlen)
{
  FILE *f = fopen(path, "w");
  int bad, e;

  if (!f) {
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return -1;
  }
  err[0] = 0;
  errno = 0;
  bad = gen(f, arg, err, errlen) != 0;
  e = errno;
  if (fclose(f) != 0 && !bad) {
    bad = 1;
    e = errno;
  }
  /* A write error (a full TMPDIR) leaves no message of its own. */
  if (bad && !err[0])
    snprintf(err, errlen, "cannot write %s: %s", path, strerror(e ? e : EIO));
  return bad ? -1 : 0;
}

/* A C kernel with its driver. */
static int
gen_program(FILE *f, const void *arg, char *err, size_t errlen)
{
  const struct xray_cspec *c = arg;

  return xray__gen_c(f, c, err, errlen) || xray__gen_c_main(f, c) ? -1 : 0;
}

int
xray__ckernel_run(const struct xray_cspec *c, const char *cc, const char *cflags,
                  double *ns_per_stmt, long *code_bytes, char *err, size_t errlen)
{
  static const char *const names[XRAY__TMP_MORE] = { "out" };
  const char *csrc, *out[XRAY__TMP_MORE];
  char line[128], why[128], *qsrc = NULL, *qexe = NULL, *cmd = NULL;
  FILE *f;
  int rc = -1;

  *ns_per_stmt = 0;
  *code_bytes = 0;
  if (xray__tmp_open(&csrc, names, out, err, errlen))
    return -1;
  if (xray__write_source(csrc, gen_program, c, err, errlen))
    goto done;
  if (!(qsrc = xray__shell_word(csrc)) || !(qexe = xray__shell_word(mine->exe))
      || !(cmd = xray__strf("%s %s%s -o %s %s", cc, cflags, xray__no_debug(cflags), qexe, qsrc))) {
    snprintf(err, errlen, "out of memory");
    goto done;
  }
  if (xray__run_shell(cmd, NULL, why, sizeof why)) {
    snprintf(err, errlen, "'%.60s %.80s' cannot compile the C kernel: %s", cc, cflags, why);
    goto done;
  }
  if (xray__run_shell(qexe, out[0], why, sizeof why)) {
    snprintf(err, errlen, "the C kernel did not run: %s", why);
    goto done;
  }
  if ((f = fopen(out[0], "r"))) {
    while (fgets(line, sizeof line, f)) {
      sscanf(line, "code_bytes %ld", code_bytes);
      sscanf(line, "ns_per_statement %lf", ns_per_stmt);
    }
    fclose(f);
  }
  if (!(*ns_per_stmt > 0)) {
    snprintf(err, errlen, "the C kernel did not report a time");
    goto done;
  }
  rc = 0;
done:
  free(qsrc);
  free(qexe);
  free(cmd);
  forget();
  return rc;
}
