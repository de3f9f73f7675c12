/* Commands xray runs: the user's compiler (CC and CFLAGS are words for the
 * shell, as in make) and compiled C kernels.
 *
 * They run under /bin/sh through fork and exec, not system(): system()
 * ignores SIGINT and SIGQUIT in the caller while the command runs, so a
 * Ctrl-C meant for xray was lost and a killed compiler looked like a
 * failed compile.  Here the caller's signal dispositions stay as they are;
 * the command gets the default ones and a process group of its own, which
 * xray__run_stop() (called by xray_remove_temporaries() from a signal
 * handler) ends as a whole, compiler passes included. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fork, kill, sigprocmask under -std=c99; sched_setaffinity */
#endif
#include "kernels/kernels.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#endif

/* The process groups of the commands in flight, an entry for each thread
 * that runs one (two threads may each build kernels for a machine of
 * their own); pg 0: none.  pg is set and cleared with atomics, so that
 * xray__run_stop, from a signal handler, ends every one. */
struct run {
  struct xray__slot slot;
  pid_t pg;
};
static struct xray__slot *running;

struct xray__slot *
xray__slot_claim(struct xray__slot **list, size_t size)
{
  struct xray__slot *s;

  for (s = __atomic_load_n(list, __ATOMIC_ACQUIRE); s; s = s->next) {
    int none = 0;
    if (__atomic_compare_exchange_n(&s->state, &none, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
      return s;
  }
  if (!(s = calloc(1, size)))
    return NULL;
  s->state = 1;
  s->next = __atomic_load_n(list, __ATOMIC_ACQUIRE);
  while (!__atomic_compare_exchange_n(list, &s->next, s, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
    ;
  return s;
}

char *
xray__strf(const char *fmt, ...)
{
  va_list ap;
  int n;
  char *s;

  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0 || !(s = malloc((size_t) n + 1)))
    return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t) n + 1, fmt, ap);
  va_end(ap);
  return s;
}

char *
xray__shell_word(const char *s)
{
  size_t n = 3;
  const char *p;
  char *out, *o;

  for (p = s; *p; p++)
    n += *p == '\'' ? 4 : 1;
  if (!(o = out = malloc(n)))
    return NULL;
  *o++ = '\'';
  for (p = s; *p; p++)
    if (*p == '\'') {
      memcpy(o, "'\\''", 4);
      o += 4;
    } else
      *o++ = *p;
  *o++ = '\'';
  *o = 0;
  return out;
}

const char *
xray__no_debug(const char *cflags)
{
  const char *p = cflags;

  for (;;) {
    p += strspn(p, " \t\n");
    if (!*p)
      return "";
    if (p[0] == '-' && p[1] == 'g')
      return " -g0";
    p += strcspn(p, " \t\n");
  }
}

void
xray__run_stop(void)
{
  struct xray__slot *s;

  for (s = __atomic_load_n(&running, __ATOMIC_ACQUIRE); s; s = s->next) {
    pid_t pg = __atomic_exchange_n(&((struct run *) s)->pg, 0, __ATOMIC_ACQ_REL);
    if (pg > 0) {
      kill(-pg, SIGKILL);
      waitpid(pg, NULL, 0);
    }
  }
}

#ifdef __linux__
/* The CPUs a command may run on, where this thread is bound to fewer
 * than it was (xray__run_cpus); none set: the thread's own. */
static XRAY__THREAD_LOCAL cpu_set_t child_cpus;
static XRAY__THREAD_LOCAL int child_cpus_set;
#endif

void
xray__run_cpus(const int *cpu, int n)
{
#ifdef __linux__
  int i;

  CPU_ZERO(&child_cpus);
  for (i = 0; i < n; i++)
    if (cpu[i] >= 0 && cpu[i] < CPU_SETSIZE)
      CPU_SET(cpu[i], &child_cpus);
  child_cpus_set = CPU_COUNT(&child_cpus) > 0;
#else
  (void) cpu;
  (void) n;
#endif
}

int
xray__run_lanes(void)
{
#ifdef __linux__
  cpu_set_t now;

  if (child_cpus_set)
    return CPU_COUNT(&child_cpus);
  if (sched_getaffinity(0, sizeof now, &now) == 0 && CPU_COUNT(&now) > 0)
    return CPU_COUNT(&now);
#endif
  return 1;
}

/* An entry of running for process group pid; NULL without memory (the
 * command then runs without one: a signal does not stop it). */
static struct run *
claim_running(pid_t pid)
{
  struct run *r = (struct run *) xray__slot_claim(&running, sizeof *r);

  if (r)
    __atomic_store_n(&r->pg, pid, __ATOMIC_RELEASE);
  return r;
}

/* A command started (start) and its end awaited (finish). */
struct started {
  pid_t pid;
  struct run *slot;
};

/* Start cmd; with spread, on the CPUs of xray__run_cpus (a compiler),
 * else where this thread runs (a command that times itself). */
static int
start(const char *cmd, const char *out, int spread, struct started *c, char *err, size_t errlen)
{
  sigset_t all, old;
  int fd, e;
  size_t i;

  c->slot = NULL;
  if (!cmd) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  /* Signals wait until the child's pid is known, so that a handler never
   * misses a command it must stop. */
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  c->pid = fork();
  if (c->pid == 0) {
    setpgid(0, 0);
    /* The caller's handlers (which remove the caller's files) must not
     * run here before exec replaces them: every caught signal is reset;
     * one the caller ignores stays ignored, as exec would keep it. */
    for (i = 1; i < 65; i++) {
      struct sigaction sa;
      if (sigaction((int) i, NULL, &sa) == 0 && sa.sa_handler != SIG_IGN
          && sa.sa_handler != SIG_DFL)
        signal((int) i, SIG_DFL);
    }
    /* A compiler driver waits for its passes: never with SIGCHLD ignored. */
    signal(SIGCHLD, SIG_DFL);
    sigprocmask(SIG_SETMASK, &old, NULL);
#ifdef __linux__
    /* Not on the one CPU xray times on: commands started together run
     * side by side. */
    if (spread && child_cpus_set)
      sched_setaffinity(0, sizeof child_cpus, &child_cpus);
#else
    (void) spread;
#endif
    if ((fd = open("/dev/null", O_RDONLY)) >= 0 && fd != 0) {
      dup2(fd, 0);
      close(fd);
    }
    if ((fd = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0)
      _exit(126);
    dup2(fd, 1);
    dup2(fd, 2);
    if (fd > 2)
      close(fd);
    execl("/bin/sh", "sh", "-c", cmd, (char *) NULL);
    _exit(127);
  }
  e = errno;
  if (c->pid > 0) {
    setpgid(c->pid, c->pid); /* both sides set it: no race with exec */
    c->slot = claim_running(c->pid);
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (c->pid < 0) {
    snprintf(err, errlen, "cannot start a process: %s", strerror(e));
    return -1;
  }
  return 0;
}

static int
finish(struct started *c, char *err, size_t errlen)
{
  pid_t w;
  int status;

  do
    w = waitpid(c->pid, &status, 0);
  while (w < 0 && errno == EINTR);
  /* Cleared only if a signal handler did not take it first. */
  if (c->slot) {
    pid_t mine = c->pid;
    __atomic_compare_exchange_n(&c->slot->pg, &mine, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    __atomic_store_n(&c->slot->slot.state, 0, __ATOMIC_RELEASE);
  }
  if (w < 0) {
    snprintf(err, errlen, "lost the command's process: %s", strerror(errno));
    return -1;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return 0;
  if (WIFSIGNALED(status))
    snprintf(err, errlen, "killed by signal %d", WTERMSIG(status));
  else if (WEXITSTATUS(status) == 127)
    snprintf(err, errlen, "command not found (exit status 127)");
  else if (WEXITSTATUS(status) == 126)
    snprintf(err, errlen, "cannot be run (exit status 126)");
  else
    snprintf(err, errlen, "exit status %d", WEXITSTATUS(status));
  return -1;
}

int
xray__run_shell(const char *cmd, const char *out, char *err, size_t errlen)
{
  struct started c;

  return start(cmd, out, 0, &c, err, errlen) ? -1 : finish(&c, err, errlen);
}

int
xray__run_shells(char *const *cmd, const char *const *out, int n, char *err, size_t errlen)
{
  struct started c[XRAY__RUN_MAX];
  char why[128];
  int i, ran = 0, bad = 0;

  if (n > XRAY__RUN_MAX) {
    snprintf(err, errlen, "more than %d commands at once", XRAY__RUN_MAX);
    return 1;
  }
  for (i = 0; i < n && !bad; i++)
    if (start(cmd[i], out[i], 1, &c[i], err, errlen))
      bad = i + 1;
    else
      ran++;
  /* Every command started is awaited, a failed start's included. */
  for (i = 0; i < ran; i++)
    if (finish(&c[i], why, sizeof why) && !bad) {
      bad = i + 1;
      snprintf(err, errlen, "%s", why);
    }
  return bad;
}
