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
#if !defined _POSIX_C_SOURCE && !defined _GNU_SOURCE
#define _POSIX_C_SOURCE 200809L /* fork, kill, sigprocmask under -std=c99 */
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

int
xray__run_shell(const char *cmd, const char *out, char *err, size_t errlen)
{
  sigset_t all, old;
  pid_t pid, w;
  int status, fd, e;
  struct run *slot = NULL;
  size_t i;

  if (!cmd) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  /* Signals wait until the child's pid is known, so that a handler never
   * misses a command it must stop. */
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  pid = fork();
  if (pid == 0) {
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
  if (pid > 0) {
    setpgid(pid, pid);          /* both sides set it: no race with exec */
    slot = claim_running(pid);
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (pid < 0) {
    snprintf(err, errlen, "cannot start a process: %s", strerror(e));
    return -1;
  }
  do
    w = waitpid(pid, &status, 0);
  while (w < 0 && errno == EINTR);
  /* Cleared only if a signal handler did not take it first. */
  if (slot) {
    pid_t mine = pid;
    __atomic_compare_exchange_n(&slot->pg, &mine, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->slot.state, 0, __ATOMIC_RELEASE);
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
