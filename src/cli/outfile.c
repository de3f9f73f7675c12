/* cli/outfile.c: the xray command's output files, written so that
 * nothing is left half-written and nothing is clobbered. */
#include "cli/cli.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *prog = "xray";

/* Outputs.  A regular file, or a name not yet taken, is written to a
 * temporary file beside it and renamed into place on success, with the
 * mode (and, where xray may, the owner) of the file it replaces; the
 * temporaries go on every other exit path, signals included.  A symbolic
 * link is followed: its target is replaced so, and the link stays.
 * Anything else (a device such as /dev/null, a FIFO) is written through,
 * never replaced.  A path that cannot be written is refused before any
 * measuring. */
struct outfile {
  struct outfile *next;
  enum xray_cli_out which;
  char *path; /* the file renamed over (a link's target); NULL: direct */
  char *volatile tmp; /* set once the temporary exists, for the handler */
  FILE *f;
};
/* The outputs this run opened, the newest first.  A signal's handler
 * walks them, so an entry is whole before it is linked in, and its tmp
 * is set with signals held (out_open). */
static struct outfile *volatile outs;

static void
remove_temps(void)
{
  struct outfile *o;

  for (o = outs; o; o = o->next)
    if (o->tmp)
      unlink(o->tmp);
}

static struct outfile *
out_find(enum xray_cli_out which)
{
  struct outfile *o;

  for (o = outs; o && o->which != which; o = o->next)
    ;
  return o;
}

static void
on_signal(int sig)
{
  remove_temps();
  xray_remove_temporaries();
  signal(sig, SIG_DFL);
  raise(sig);
}

/* Every signal whose default action ends the process: its temporaries go
 * first (and the compiler in flight), then it ends as the signal says. */
static void
catch_signals(void)
{
  static const int sigs[] = {
    SIGHUP,    SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGUSR1, SIGUSR2, SIGABRT,
    SIGSEGV,   SIGBUS, SIGFPE,  SIGILL,  SIGTRAP, SIGSYS,  SIGXCPU, SIGXFSZ,
#ifdef SIGVTALRM
    SIGVTALRM,
#endif
#ifdef SIGPROF
    SIGPROF,
#endif
#ifdef SIGPOLL
    SIGPOLL,
#endif
  };
  size_t i;

  for (i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask);
    /* A signal ignored by whoever started xray (nohup) stays ignored. */
    if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
      sigaction(sigs[i], &sa, NULL);
  }
}

static void
out_refuse(const char *path, const char *why)
{
  fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, why);
  exit(2);
}

static FILE *
out_open(struct outfile *o, const char *path)
{
  struct stat st;
  char *target = NULL, *tmp;
  sigset_t all, old;
  mode_t mode;
  int fd, exists, e;

  if (strcmp(path, "-") == 0)
    return o->f = stdout;
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && !(target = realpath(path, NULL)))
    out_refuse(path, errno == ENOENT ? "a symbolic link to nothing" : strerror(errno));
  if (!target && !(target = strdup(path))) {
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(1);
  }
  exists = stat(target, &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    out_refuse(path, "it is a directory");
  if (exists && !S_ISREG(st.st_mode)) {
    /* A device or FIFO: written through. */
    if (!(o->f = fopen(target, "w")))
      out_refuse(path, strerror(errno));
    free(target);
    return o->f;
  }
  o->path = target;
  if (!(tmp = malloc(strlen(target) + 16))) {
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(1);
  }
  sprintf(tmp, "%s.tmpXXXXXX", target);
  /* mkstemp makes the file 0600: it gets the mode of the file it replaces,
   * or a new file's. */
  mode = umask(0);
  umask(mode);
  mode = exists ? st.st_mode & 07777 : 0666 & ~mode;
  /* A signal finds the temporary named as soon as it exists, and never a
   * name that is not yet xray's. */
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  if ((fd = mkstemp(tmp)) >= 0)
    o->tmp = tmp;
  e = errno;
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (fd < 0) {
    free(tmp);
    out_refuse(path, e == ENOENT ? "no such directory" : strerror(e));
  }
  if (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "w"))) {
    fprintf(stderr, "%s: cannot write '%s': %s\n", prog, path, strerror(errno));
    exit(1);
  }
  /* The owner too, where xray may give the file away (as root); else it
   * stays xray's. */
  if (exists && fchown(fd, st.st_uid, st.st_gid) != 0) {
  }
  return o->f;
}

/* 0, or -1 with a message: the output is complete and in place. */
static int
out_commit(struct outfile *o, const char *name)
{
  int bad;

  if (!o->f)
    return 0;
  if (o->f == stdout) {
    if (fflush(stdout) == 0 && !ferror(stdout))
      return 0;
    fprintf(stderr, "%s: cannot write the standard output: %s\n", prog, strerror(errno));
    return -1;
  }
  bad = ferror(o->f) | fclose(o->f);
  o->f = NULL;
  if (!bad && (!o->tmp || rename(o->tmp, o->path) == 0)) {
    char *tmp = o->tmp;
    o->tmp = NULL;
    free(tmp);
    free(o->path);
    o->path = NULL;
    return 0;
  }
  fprintf(stderr, "%s: cannot write '%s': %s\n", prog, name, strerror(errno ? errno : EIO));
  return -1;
}

int
xray_cli_stdout_done(void)
{
  struct outfile o = { .f = stdout };

  return out_commit(&o, "-") ? 1 : 0;
}

FILE *
xray_cli_out_open(enum xray_cli_out which, const char *path)
{
  struct outfile *o = out_find(which);

  if (!o) {
    if (!(o = calloc(1, sizeof *o))) {
      fprintf(stderr, "%s: out of memory\n", prog);
      exit(1);
    }
    o->which = which;
    o->next = outs;
    outs = o;
  }
  return out_open(o, path);
}

FILE *
xray_cli_out_file(enum xray_cli_out which)
{
  struct outfile *o = out_find(which);

  return o ? o->f : NULL;
}

int
xray_cli_out_commit(enum xray_cli_out which, const char *name)
{
  struct outfile *o = out_find(which);

  return o ? out_commit(o, name) : 0;
}

void
xray_cli_out_guard(void)
{
  catch_signals();
  atexit(remove_temps);
}
