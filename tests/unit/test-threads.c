/* Two threads measure at once, each a machine of its own: libxray keeps
 * no state of a probe's outside the machine and the report it is given,
 * so every probe gives each thread what it gives a thread alone.  Two
 * simulated machines (deterministic), every probe on each: first one
 * machine after the other, then both at once on two threads, then the
 * same machine on both; every value must read the same (number, source,
 * confirmation, method and reason; not the seconds it took).  Built with
 * -fsanitize=thread, the same run reports any data race (HACKING says
 * how). */
#include <xray.h>
#include "../tap.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *const spec[2] = {
  "l1i=32K:8:64,l1d=16K:4:64,l2=256K:8:64,tlb1=32:32:4K,tlb2=256:4:4K,cpus=2,noise=1,seed=3",
  "l1i=48K:12:64,l1d=24K:6:64,l2=384K:12:64:plru,tlb1=48:48:4K,cpus=4,smt=2,noise=2,seed=5"
};

struct job {
  const char *spec;
  xray_report *r;
  char err[256];
};

/* Every probe on a fresh machine of job j's spec, into j->r. */
static void *
measure(void *arg)
{
  struct job *j = arg;
  xray_machine *m = xray_machine_simulated(j->spec, j->err, sizeof j->err);
  size_t i;

  if (!m || !(j->r = xray_report_new())) {
    xray_machine_free(m);
    return NULL;
  }
  for (i = 0; xray_probe_at(i); i++)
    xray_probe_run(xray_probe_at(i), m, j->r);
  xray_machine_free(m);
  return NULL;
}

static int
same_text(const char *a, const char *b)
{
  return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Whether a and b hold the same values; the first that differs in *what. */
static int
same(const xray_report *a, const xray_report *b, const char **what)
{
  size_t i;

  *what = "";
  if (!a || !b || xray_report_count(a) != xray_report_count(b)) {
    *what = "the number of values";
    return 0;
  }
  for (i = 0; i < xray_report_count(a); i++) {
    const xray_value *u = xray_report_at(a, i), *v = xray_report_at(b, i);
    double x = xray_value_number(u), y = xray_value_number(v);
    if (!same_text(xray_value_name(u), xray_value_name(v))
        || xray_value_source(u) != xray_value_source(v) || !(x == y || (x != x && y != y))
        || xray_value_confirmed(u) != xray_value_confirmed(v)
        || !same_text(xray_value_method(u), xray_value_method(v))
        || !same_text(xray_value_reason(u), xray_value_reason(v))) {
      *what = xray_value_name(u);
      return 0;
    }
  }
  return 1;
}

/* Jobs a and b on two threads at once; 0 if both threads ran. */
static int
at_once(struct job *a, struct job *b)
{
  pthread_t t[2];
  int ok0 = pthread_create(&t[0], NULL, measure, a) == 0;
  int ok1 = pthread_create(&t[1], NULL, measure, b) == 0;

  if (ok0)
    pthread_join(t[0], NULL);
  if (ok1)
    pthread_join(t[1], NULL);
  return ok0 && ok1 ? 0 : -1;
}

int
main(void)
{
  struct job alone[2], pair[2], twin[2];
  const char *what = "";
  int i, ran, ok;

  tap_plan(5);
  memset(alone, 0, sizeof alone);
  memset(pair, 0, sizeof pair);
  memset(twin, 0, sizeof twin);
  for (i = 0; i < 2; i++) {
    alone[i].spec = pair[i].spec = spec[i];
    twin[i].spec = spec[0];
    measure(&alone[i]);
  }
  tap_ok(alone[0].r && alone[1].r && xray_report_count(alone[0].r) > 50
             && xray_report_count(alone[1].r) > 50,
         "every probe ran on each machine alone: %zu and %zu values%s%s",
         alone[0].r ? xray_report_count(alone[0].r) : 0,
         alone[1].r ? xray_report_count(alone[1].r) : 0, alone[0].err, alone[1].err);
  ran = at_once(&pair[0], &pair[1]) == 0;
  ok = ran && same(alone[0].r, pair[0].r, &what);
  tap_ok(ok, "machine 1 on a thread beside machine 2 reads as alone%s%s", what[0] ? ": not " : "",
         what);
  ok = ran && same(alone[1].r, pair[1].r, &what);
  tap_ok(ok, "machine 2 on a thread beside machine 1 reads as alone%s%s", what[0] ? ": not " : "",
         what);
  ran = at_once(&twin[0], &twin[1]) == 0;
  ok = ran && same(alone[0].r, twin[0].r, &what) && same(alone[0].r, twin[1].r, &what);
  tap_ok(ok, "machine 1 on two threads at once reads as alone on both%s%s", what[0] ? ": not " : "",
         what);
  ok = alone[0].r && !same(alone[0].r, alone[1].r, &what);
  tap_ok(ok, "the two machines differ (in %s), so the comparisons can fail", what);
  for (i = 0; i < 2; i++) {
    xray_report_free(alone[i].r);
    xray_report_free(pair[i].r);
    xray_report_free(twin[i].r);
  }
  return tap_failed != 0;
}
